"""A data iterator driven through a sequence of resets and partial reads:
make_sparse_io_goldens.py records what MXNet's LibSVMIter gives, test_sparse_io.py replays
the same sequence on xnd (where reset() leaves it depends on the prefetcher's read-ahead)."""
import numpy as np


def replay(it, ops):
    """The batch indices (lists) `it` gives per op of the space-separated `ops`: ``R`` resets
    (no entry), ``E`` reads to the epoch's end, ``N<k>`` reads k batches."""
    seen = []
    for op in ops.split():
        if op == "R":
            it.reset()
            continue
        n = None if op == "E" else int(op[1:])
        got = []
        for b in it:
            got.append(np.asarray(b.index).tolist())
            if n is not None and len(got) == n:
                break
        seen.append(got)
    return seen
