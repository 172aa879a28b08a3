"""Small offline stand-ins for the data sets of MXNet's example/sparse (issue 42), in the
files and formats those scripts read, so they run unchanged from DIR:

* ``avazu DIR``: ``DIR/data/avazu-app`` and ``avazu-app.t`` (zero-based LibSVM, labels 0/1,
  indices below 1000001) for ``linear_classification/train.py``;
* ``movielens DIR``: ``DIR/data/ml-10M100K/r1.train`` and ``r1.test``
  (``user::item::rating::time``, users < 71569, items < 65135) for
  ``matrix_factorization/train.py``.

Deterministic (seeded numpy), so xnd and MXNet 1.9.1 read the same bytes.
Usage: python benchmarks/sparse_example_data.py {avazu,movielens} DIR [--rows N]
"""
import argparse
import os

import numpy as np


def avazu(root, rows, seed=0):
    rng = np.random.RandomState(seed)
    d = os.path.join(root, "data")
    os.makedirs(d, exist_ok=True)
    w = rng.randn(1000001)                      # a hidden linear rule makes labels learnable
    for name, n in (("avazu-app", rows), ("avazu-app.t", max(1, rows // 4))):
        lines = []
        for _ in range(n):
            k = rng.randint(5, 16)
            idx = np.unique(rng.randint(0, 1000001, k))
            label = int(w[idx].sum() > 0)
            lines.append("%d %s\n" % (label, " ".join("%d:1" % i for i in idx)))
        with open(os.path.join(d, name), "w") as f:
            f.writelines(lines)


def movielens(root, rows, seed=0):
    rng = np.random.RandomState(seed)
    d = os.path.join(root, "data", "ml-10M100K")
    os.makedirs(d, exist_ok=True)
    users, items = rng.randint(1, 71569, 200), rng.randint(1, 65135, 300)
    bias_u, bias_i = rng.uniform(-1, 1, 200), rng.uniform(-1, 1, 300)
    for name, n in (("r1.train", rows), ("r1.test", max(1, rows // 4))):
        u, i = rng.randint(0, 200, n), rng.randint(0, 300, n)
        score = np.clip(np.round((3.5 + bias_u[u] + bias_i[i]) * 2) / 2, 0.5, 5)
        with open(os.path.join(d, name), "w") as f:
            f.writelines("%d::%d::%g::%d\n" % (users[a], items[b], s, 838985046 + t)
                         for t, (a, b, s) in enumerate(zip(u, i, score)))


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("kind", choices=["avazu", "movielens"])
    ap.add_argument("dir")
    ap.add_argument("--rows", type=int, default=2000)
    a = ap.parse_args()
    (avazu if a.kind == "avazu" else movielens)(a.dir, a.rows)
