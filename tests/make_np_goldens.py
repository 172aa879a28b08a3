"""Write tests/goldens/np/ from MXNet 1.9.1: run with /work/mxref/bin/python.

Each case of tests/np_cases.py (mx.np/mx.npx: dtype rules, 0-d results, printing,
indexing, autograd, every npx operator, errors) is evaluated on real MXNet and its
outcome recorded; tests/test_np.py replays the cases on xnd."""
import os
import sys
import warnings

warnings.filterwarnings("ignore")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mxnet as mx  # noqa: E402

import golden_files  # noqa: E402
import np_cases  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    assert mx.__version__ == "1.9.1", mx.__version__
    env = np_cases.environment(mx)
    meta, arrays = {}, {}
    for name in np_cases.CASES:
        meta[name] = np_cases.outcome(name, env, arrays)
    out = os.path.join(HERE, "goldens", "np")
    golden_files.write(os.path.join(out, "np.json"), os.path.join(out, "np.npz"), meta, arrays)


if __name__ == "__main__":
    main()
