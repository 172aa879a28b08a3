"""Run with MXNet 1.9.1 (/work/mxref/bin/python): writes tests/goldens/adamw/cases.{json,npz}
(the AdamW update operators of adamw_cases.py)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_files  # noqa: E402
from adamw_cases import run_all  # noqa: E402

mx = golden_files.real_mxnet()
res = run_all(mx)
d = os.path.join(os.path.dirname(os.path.abspath(__file__)), "goldens", "adamw")
golden_files.write(os.path.join(d, "cases.json"), os.path.join(d, "cases.npz"),
                   {k: len(v) for k, v in res.items()},
                   {f"{k}.{i}": a for k, vs in res.items() for i, a in enumerate(vs)})
