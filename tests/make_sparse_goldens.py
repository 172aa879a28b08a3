"""Record MXNet 1.9.1's sparse arrays and operators (tests/sparse_cases.py) and training with
sparse gradients (tests/sparse_train_cases.py) and the recorded sparse operators
(tests/sparse_tape_cases.py):

    /work/mxref/bin/python tests/make_sparse_goldens.py [stem ...]

writes tests/goldens/<stem>/cases.{json,npz} for the stems named (default: all of sparse,
sparse_train, sparse_tape)."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import mxnet as mx  # noqa: E402

import golden_files  # noqa: E402
import sparse_cases  # noqa: E402
import sparse_tape_cases  # noqa: E402
import sparse_train_cases  # noqa: E402

STEMS = {"sparse": sparse_cases, "sparse_train": sparse_train_cases,
         "sparse_tape": sparse_tape_cases}

if __name__ == "__main__":
    for stem in sys.argv[1:] or sorted(STEMS):
        module = STEMS[stem]
        arrays = {}
        for name, fn in module.CASES.items():
            arrays.update({name + "/" + k: v for k, v in fn(mx).items()})
        d = os.path.join(HERE, "goldens", stem)
        golden_files.write(os.path.join(d, "cases.json"), os.path.join(d, "cases.npz"),
                           {"mxnet": mx.__version__, "arrays": sorted(arrays)}, arrays)
