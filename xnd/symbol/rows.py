"""Inference on a batch size a graph has not met, run at a bucketed batch size (issue 40,
pattern 3: ``predict`` or a hybridized forward outside ``record`` on a new batch size).

Each new batch size of hybridized inference costs a new program: a trace of the graph (a
small MLP: ~25 ms) and its host plan or compile, where MXNet runs ready kernels. A graph
whose every operator treats the rows of its batch independently (``row_independent``: each
output row depends only on the same row of each data input) computes the same rows on a
batch padded with zero rows. So, once a graph has met one batch size (which runs its own
programs from the start: a loop on one size pays no padding and switches tiers as before),
another size's first calls (``tiers.decide``'s ``inference`` row) run at a bucket (the smallest power
of two at least ``ROW_BUCKET_MIN``, up to ``ROW_BUCKET_MAX`` rows and ``MAX_ELEMENTS``
elements): one program for every size up to it, its outputs cut back to the size's rows.
Later calls of a size that comes back run its own programs. Padding and cutting run on the
host (numpy; CPU arrays only).

Which operators qualify is a table (``_UNARY``, ``_SAME_SHAPE``, ``_node_ok``): element-wise operators, the activations,
``FullyConnected``, and ``Convolution``/``Deconvolution``/``Pooling``/``BatchNorm`` over a
batch-first layout (BatchNorm in inference reads its moving statistics, never the batch);
parameters may only feed weight slots. Anything that reduces, reshapes or sorts across the
batch axis, draws random numbers or is not in the table keeps the exact size.

Numbers: each row is the same arithmetic on the same values. A matrix product's kernel may
block a larger batch differently, so products agree with the exact size's program to float
rounding, as across a tier switch (docs/porting.md); element-wise results are exact.
"""
import numpy as np

from .. import _transfer, tiers

# TIERS: the smallest bucket (batches of 3, 12, 25 and 50 rows share one program) and the
# largest (a bigger batch runs at its own size: padding would cost more than a program)
ROW_BUCKET_MIN = 64
ROW_BUCKET_MAX = 1024
# a padded copy over this many elements costs more than it saves (host copies both ways)
MAX_ELEMENTS = 1 << 22

_UNARY = frozenset((
    "Activation", "relu", "sigmoid", "tanh", "softsign", "exp", "log", "sqrt", "square",
    "abs", "negative", "Flatten", "Cast", "clip", "_copy", "BlockGrad",
    "_plus_scalar", "_minus_scalar", "_rminus_scalar", "_mul_scalar", "_div_scalar",
    "_rdiv_scalar", "_power_scalar", "_rpower_scalar", "_maximum_scalar", "_minimum_scalar"))
_SAME_SHAPE = frozenset(("elemwise_add", "elemwise_sub", "elemwise_mul", "elemwise_div"))
_WEIGHTED = frozenset(("FullyConnected", "Convolution", "Deconvolution", "BatchNorm"))
_WEIGHT_SLOTS = frozenset(("weight", "bias", "gamma", "beta", "moving_mean", "moving_var"))


def _batch_first(node):
    layout = node.params().get("layout")
    return layout is None or str(layout).startswith("N")


def _node_ok(node):
    name = node.op.name
    if node.op.rng:
        return False
    if name in _UNARY or name in _SAME_SHAPE:
        return True
    if name == "LeakyReLU":
        return node.params().get("act_type") != "rrelu"
    if name in ("Convolution", "Deconvolution", "Pooling"):
        return _batch_first(node)
    if name == "BatchNorm":
        return node.params().get("axis", 1) != 0
    return name == "FullyConnected"


def row_independent(plan):
    """Whether every output row of ``plan`` (rewrite.InferencePlan) depends only on the same
    row of each data input (module doc)."""
    if not plan.data_args:
        return False
    for n in plan.kept:
        if id(n) in plan.param_nodes:
            continue
        if not _node_ok(n):
            return False
        for j, e in enumerate(n.inputs):
            e = plan.resolve(e)
            if plan._is_param(e):
                if n.op.name not in _WEIGHTED or n.input_slot(j) not in _WEIGHT_SLOTS:
                    return False
            elif e[1] != 0 or n.op.name in _WEIGHTED and n.input_slot(j) != "data":
                return False     # (a second output: BatchNorm's batch statistics)
    return not any(e[1] != 0 or plan._is_param(e) for e in plan.outputs)


def bucket(n, row_elements=1):
    """The padded batch size for ``n`` rows of ``row_elements`` each: the smallest power of two
    at least ``max(n, ROW_BUCKET_MIN)`` (at least ``n`` where that copy would exceed
    ``MAX_ELEMENTS``), or None (too large)."""
    if n > ROW_BUCKET_MAX:
        return None
    b = 1
    while b < n:
        b *= 2
    while b < ROW_BUCKET_MIN and 2 * b * row_elements <= MAX_ELEMENTS:
        b *= 2
    return b if b * row_elements <= MAX_ELEMENTS else None


class Rows:
    """Per graph: counts each batch size's calls and pads a size's first calls to its
    bucket (``run``)."""

    def __init__(self, plan):
        self.ok = row_independent(plan)
        self.first = None        # the first batch size met
        self.calls = {}          # (batch size, data avals) -> calls so far
        self.stats = {"padded": 0}

    def padded(self, data):
        """``(padded data, n)`` when this call runs at a bucket, else None."""
        if not self.ok or tiers.is_pinned():
            return None
        shapes = [getattr(a, "shape", ()) for a in data]
        if any(len(s) < 2 for s in shapes) or len({s[0] for s in shapes}) != 1:
            return None
        n = shapes[0][0]
        if self.first is None:
            self.first = n       # the graph's first batch size: its own programs from the start
        if n == self.first:
            return None
        b = bucket(n, sum(int(np.prod(s[1:])) for s in shapes))
        if b is None or b == n:
            return None
        devices = [next(iter(a.devices())) for a in data]
        if any(d.platform != "cpu" for d in devices):
            return None
        key = (n, tuple((s, a.dtype) for s, a in zip(shapes, data)))
        calls = self.calls.get(key, 0)
        if tiers.decide(tiers.INFERENCE, calls + 1, bucket=True) != tiers.BUCKET:
            return None
        self.calls[key] = calls + 1
        out = []
        for a, s, d in zip(data, shapes, devices):
            h = np.zeros((b,) + tuple(s[1:]), dtype=a.dtype)
            h[:n] = np.asarray(a)
            out.append(_transfer.to_device(h, d))
        self.stats["padded"] += 1
        return out, n

    @staticmethod
    def cut(outs, n):
        """The first ``n`` rows of each output (on the host, as the padding)."""
        return [_transfer.to_device(np.asarray(o)[:n], next(iter(o.devices()))) for o in outs]
