"""Goldens for tests/test_np_mode_data.py: Gluon's data pipeline under ``npx.set_np()`` on
MXNet 1.9.1 (tests/np_mode_data_cases.py). Run with the reference MXNet:

    /work/mxref/bin/python tests/make_np_mode_data_goldens.py

writes tests/goldens/np_mode_data/cases.json/.npz. MXNet's vision datasets verify their files'
SHA-1 and download otherwise: here they read the synthetic files the cases write (its
``download`` answers the local path, ``check_sha1`` yes).
"""
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import golden_files  # noqa: E402
import np_mode_data_cases as C  # noqa: E402


def main():
    mx = golden_files.real_mxnet()
    from mxnet.gluon.data.vision import datasets
    datasets.download = lambda url, path=None, sha1_hash=None, **_: os.path.join(
        path, url.split("/")[-1])
    datasets.check_sha1 = lambda path, sha1: True
    mx.npx.set_np()
    meta, arrays = {}, {}
    with tempfile.TemporaryDirectory() as root:
        C.write_datasets(root)
        results = {"array_dataset": C.case_array_dataset(mx),
                   "workers": C.case_dataloader_workers(mx),
                   "vision": C.case_vision_datasets(mx, root),
                   "transforms": C.case_transforms(mx),
                   "first_layer": C.case_first_layer(mx)}
    for case, values in results.items():
        for name, value in values.items():
            C.record(mx, value, f"{case}/{name}", meta, arrays)
    golden_files.write(os.path.join(HERE, "goldens", "np_mode_data", "cases.json"),
                       os.path.join(HERE, "goldens", "np_mode_data", "cases.npz"), meta, arrays)


if __name__ == "__main__":
    main()
