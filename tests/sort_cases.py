"""Cases for MXNet's CPU sort order (tests/test_sort_order.py, tests/make_sort_goldens.py):
rows with equal values and NaN, where libstdc++'s unstable introsort and heap select decide
the order.  Inputs come from numpy's legacy RandomState, the same on every numpy."""
import numpy as np


def _data(kind, shape, seed):
    rs = np.random.RandomState(seed)
    if kind == "ties":          # few distinct values
        return rs.randint(0, 4, size=shape).astype("float32")
    if kind == "int_ties":
        return rs.randint(-3, 3, size=shape).astype("int32")
    if kind == "nan":           # ties, NaN and infinities
        x = rs.randint(0, 5, size=shape).astype("float32")
        x[rs.rand(*shape) < 0.15] = np.nan
        x[rs.rand(*shape) < 0.05] = np.inf
        x[rs.rand(*shape) < 0.05] = -np.inf
        return x
    if kind == "normal_nan":    # distinct values and a few NaN
        x = rs.randn(*shape).astype("float64")
        x[rs.rand(*shape) < 0.1] = np.nan
        return x
    if kind == "sorted_ties":
        return np.sort(rs.randint(0, 6, size=shape), axis=-1).astype("float32")
    if kind == "distinct":
        return rs.permutation(int(np.prod(shape))).reshape(shape).astype("float32")
    raise ValueError(kind)


def cases():
    """(name, data, op, kwargs): op one of sort, argsort, topk."""
    out = []
    seed = 0
    for kind in ("ties", "int_ties", "nan", "normal_nan", "sorted_ties", "distinct"):
        for n in (5, 17, 100, 700):
            seed += 1
            x = _data(kind, (3, n), seed)
            for asc in (True, False):
                out.append((f"{kind}_{n}_sort_{asc}", x, "sort", dict(is_ascend=asc)))
                out.append((f"{kind}_{n}_argsort_{asc}", x, "argsort", dict(is_ascend=asc)))
                for k in sorted({max(1, n // 8), n // 8 + 1}):   # heap select | introsort
                    out.append((f"{kind}_{n}_topk{k}_{asc}", x, "topk",
                                dict(k=k, is_ascend=asc, ret_typ="indices")))
        seed += 1
        x = _data(kind, (30, 4), seed)
        out.append((f"{kind}_axis0_argsort", x, "argsort", dict(axis=0)))
        out.append((f"{kind}_axis0_topk", x, "topk", dict(axis=0, k=3, ret_typ="both")))
        out.append((f"{kind}_flat_sort", x, "sort", dict(axis=None, is_ascend=False)))
    return out


def run(mx, name, x, op, kwargs):
    """The case's outputs as numpy arrays."""
    res = getattr(mx.nd, op)(mx.nd.array(x, dtype=x.dtype), **kwargs)
    res = res if isinstance(res, list) else [res]
    return [r.asnumpy() for r in res]
