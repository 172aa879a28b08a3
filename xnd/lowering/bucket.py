"""Eager elementwise operators on a new shape, run at a bucketed length instead of compiled.

An eager call of a new (op, attributes, input shapes) costs a whole XLA compilation (30-70 ms
on 2 cores, far more under load); MXNet runs a ready kernel in microseconds. MXNet's own test
suite, NLP batches and detection heads call ``+``, ``*``, ``exp``... on ever new shapes.

An elementwise operator (``Op.elementwise``: each output element depends only on the same
element of each input) computes the same numbers on a flattened copy of its inputs. So a
small call on a new shape flattens its inputs on the host (broadcast first, for the
``broadcast_*`` ops), pads them to a power-of-two length and runs the op's own kernel at that
length: one compilation serves every shape up to it. The result is cut back and reshaped on
the host. ``Flat`` does this while ``tiers.decide`` says ``BUCKET`` for a combination (its
first two calls, xnd/tiers' table); a loop on one
shape then compiles the exact kernel, which, unlike this path, does not wait for its inputs.
tests/test_bucket.py checks that both paths agree bit for bit.

Samplers (``elementwise="flat"``: ``_random_uniform``, ``_random_normal``...) have no inputs,
and their counter-based streams give the first n numbers of a longer draw as the draw of n
(element i comes from counter i): a small new ``shape`` is drawn at the bucketed length and
cut back (``create``), the same numbers (tests/test_bucket.py).

A bound graph made only of elementwise ops (``a + b``, ``cast(a) % cast(b)``) whose
arguments share one shape runs its forward and backward programs bucketed the same way
(``graph_shape``): the graph's gradient is elementwise too, so the padding never reaches
the cut-back results.
"""
import math

import numpy as np

from .. import _compat_jax, tiers
from . import host_eval

MAX_ELEMENTS = host_eval.ELEMENTWISE_MAX   # larger arrays compile
MIN_LENGTH = 64                    # the smallest bucket: tiny shapes share one program


def bucket_length(n):
    """The padded length for ``n`` elements: the next power of two, at least MIN_LENGTH."""
    return max(MIN_LENGTH, 1 << (n - 1).bit_length())


def _out_shape(shapes):
    """The common shape of the inputs (same rank, each dim equal or 1), or None: other cases
    (rank-0, zero-size, rank mismatch, incompatible dims) take the kernel, which raises
    MXNet's errors."""
    first = shapes[0]
    if not first or any(len(s) != len(first) for s in shapes):
        return None
    out = []
    for dims in zip(*shapes):
        big = {d for d in dims if d != 1}
        if len(big) > 1 or 0 in dims:
            return None
        out.append(big.pop() if big else 1)
    return tuple(out)


_DONE = -1     # Flat's count of a combination past its bucketed calls


class Flat:
    """Counts calls per (op, static key, input avals); ``run`` computes a call at the
    bucketed length while ``tiers.decide(kind, n, bucket=True)`` says ``BUCKET``: a
    combination met a third time is a loop, whose exact kernel compiles then."""

    LIMIT = 1 << 14                # combinations remembered (then forgotten all at once)

    def __init__(self, kind=tiers.EAGER):
        self._seen = {}
        self.kind = kind

    def run(self, op, key, vals, dyn, device, recording=False):
        """The op's results as jax.Arrays on ``device``, or None when this call compiles
        (also while ``recording`` when an input is still being computed: see
        ``host_eval.run``)."""
        k = (op.name, key, tuple([(v.shape, v.dtype) for v in vals]))
        if not self._bucketed(k):
            return None
        if recording and _compat_jax.computing(vals):
            return None
        shapes = [v.shape for v in vals]
        shape = _out_shape(shapes)
        if shape is None or (op.elementwise != "broadcast" and len(set(shapes)) > 1):
            return None                # (elemwise_add of (3, 1) and (1, 2) raises MXNet's error)
        n = math.prod(shape)
        if n > MAX_ELEMENTS:
            return None
        self.admit(k)
        length = bucket_length(n)
        res = op.kernel(key)(*flatten(vals, shape, length, device), *dyn)
        outs = list(res) if isinstance(res, (tuple, list)) else [res]
        if any(o.shape != (length,) for o in outs):
            return None                # not elementwise after all: the exact kernel runs
        return unflatten(outs, shape, device, vals)

    def create(self, op, key, dyn, device):
        """An input-less ``elementwise="flat"`` op (a sampler) on a new small ``shape``: its
        kernel at the bucketed length, the first elements kept (None: this call compiles)."""
        pos = op.static.index("shape")
        shape = tuple(key[pos])
        n = math.prod(shape)
        if not shape or not 0 < n <= MAX_ELEMENTS or not self.admit((op.name, key)):
            return None
        length = bucket_length(n)
        res = op.kernel(key[:pos] + ((length,),) + key[pos + 1:])(*dyn)
        return unflatten([res], shape, device, [])

    def admit(self, k):
        """Count one bucketed call of combination ``k``; False once it had its bucketed calls."""
        if not self._bucketed(k):
            return False
        calls = self._seen.get(k, 0)
        if len(self._seen) >= self.LIMIT:
            self._seen.clear()
        self._seen[k] = calls + 1
        return True

    def _bucketed(self, k):
        """Whether combination ``k``'s next call runs bucketed; a combination past its
        bucketed calls is marked, so a loop's steady state is one lookup."""
        calls = self._seen.get(k, 0)
        if calls == _DONE:
            return False
        if tiers.decide(self.kind, calls + 1, bucket=True) == tiers.BUCKET:
            return True
        if not tiers.is_pinned():
            self._seen[k] = _DONE
        return False


def flatten(vals, shape, length, device):
    """``vals`` broadcast to ``shape``, flattened and padded with ones to ``length`` on the
    host, then put on ``device`` (ones: a pad never divides by zero or takes log(0))."""
    n = math.prod(shape)
    flat = []
    for v in vals:
        h = np.broadcast_to(np.asarray(v), shape).reshape(-1)
        flat.append(np.concatenate([h, np.ones(length - n, h.dtype)]))
    return host_eval.put(flat, [f.dtype for f in flat], device, vals)


def unflatten(outs, shape, device, vals):
    """Bucketed results cut back to ``shape`` elements and reshaped, on the host."""
    n = math.prod(shape)
    host = [np.asarray(o)[:n].reshape(shape) for o in outs]
    return host_eval.put(host, [o.dtype for o in outs], device, vals)


def graph_shape(elementwise_graph, vals, key):
    """The shape at which a bound graph runs bucketed (``Graphs``), else None: every op of
    the graph elementwise, every argument of one small shape, among the bucketed calls
    of (graph, shape, dtypes) (the ``graph`` row of xnd/tiers' table)."""
    if not elementwise_graph or not vals:
        return None
    shape = vals[0].shape
    if not shape or any(v.shape != shape for v in vals) or not 0 < math.prod(shape) <= MAX_ELEMENTS:
        return None
    return shape if GRAPHS.admit((key, shape, tuple(v.dtype for v in vals))) else None


GRAPHS = Flat(tiers.GRAPH)  # bound graphs' calls (symbol/executor.py)
