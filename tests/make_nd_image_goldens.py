"""Record MXNet 1.9.1's nd.image / vision-transform results for nd_image_cases.py.

    /work/mxref/bin/python tests/make_nd_image_goldens.py

Writes tests/goldens/nd_image/nd_image.{json,npz} (arrays, and their dtypes in the JSON)."""
import os
import sys

import golden_files
import nd_image_cases

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "goldens", "nd_image")


def main():
    import mxnet as mx
    res = nd_image_cases.run(mx)
    golden_files.write(os.path.join(OUT, "nd_image.json"), os.path.join(OUT, "nd_image.npz"),
                       {"dtypes": {k: str(v.dtype) for k, v in res.items()}}, res)


if __name__ == "__main__":
    sys.exit(main())
