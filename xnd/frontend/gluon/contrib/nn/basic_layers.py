"""mx.gluon.contrib.nn.basic_layers: PixelShuffle1D/2D/3D and SparseEmbedding (with the
contrib containers re-exported from gluon.nn, where xnd keeps them).

SparseEmbedding is MXNet's Embedding whose weight and gradient are row_sparse arrays;
xnd has no sparse storage, so it is a dense Embedding with the same parameter names and
the same numbers (the gradient's untouched rows are zeros, as a dense view of MXNet's)."""
from .....base import numeric_types
from ...nn.basic_layers import Concurrent, HybridConcurrent, Identity, SyncBatchNorm  # noqa: F401
from .... import ndarray as _nd
from ...block import Block, HybridBlock
# names MXNet's module holds by importing them (its users import them from here)
from ...nn import BatchNorm, HybridSequential, Sequential  # noqa: E402,F401
from .... import ndarray as nd  # noqa: E402,F401
from ..... import context  # noqa: E402,F401


class SparseEmbedding(Block):
    """Turns non-negative integer indices into dense vectors of `output_dim`: a row_sparse
    weight read through its Trainer (``row_sparse_data``) and a row_sparse gradient."""

    def __init__(self, input_dim, output_dim, dtype="float32", weight_initializer=None, **kwargs):
        super().__init__(**kwargs)
        self._kwargs = {"input_dim": input_dim, "output_dim": output_dim, "dtype": dtype,
                        "sparse_grad": True}
        self.weight = self.params.get("weight", shape=(input_dim, output_dim),
                                      init=weight_initializer, dtype=dtype,
                                      grad_stype="row_sparse", stype="row_sparse")

    def forward(self, x):
        weight = self.weight.row_sparse_data(x)
        return _nd.Embedding(x, weight, name="fwd", **self._kwargs)

    def __repr__(self):
        return "{name}({input_dim} -> {output_dim}, {dtype})".format(
            name=self.__class__.__name__, **self._kwargs)


class _PixelShuffle(HybridBlock):
    """Moves groups of channels into blocks of pixels: (N, C*f1*..*fd, s1..sd) ->
    (N, C, s1*f1, .., sd*fd), the channel index being c*F + (i1*f2 + i2)*f3 + ... as
    MXNet's PixelShuffle layers read it."""
    _ndim = 0

    def __init__(self, factor):
        super().__init__()
        d = self._ndim
        if isinstance(factor, numeric_types):
            factor = (int(factor),) * d
        factor = tuple(int(f) for f in factor)
        if len(factor) != d:
            raise ValueError(f"wrong length {len(factor)} of factor, expected {d}")
        self._factors = factor

    def hybrid_forward(self, F, x):
        d, fs = self._ndim, self._factors
        total = 1
        for f in fs:
            total *= f
        x = F.reshape(x, (0, -4, -1, total) + (0,) * d)            # (N, C, F, s...)
        for k, f in enumerate(fs[:-1]):                            # F -> f1, f2, ..., fd
            x = F.reshape(x, (0, 0) + (0,) * k + (-4, f, -1) + (0,) * d)
        axes = (0, 1) + tuple(a for i in range(d) for a in (2 + d + i, 2 + i))
        x = F.transpose(x, axes)                                   # (N, C, s1, f1, s2, f2 ...)
        return F.reshape(x, (0, 0) + (-3,) * d)

    def __repr__(self):
        f = self._factors[0] if len(set(self._factors)) == 1 and self._ndim == 1 else self._factors
        return f"{self.__class__.__name__}({f})"


class PixelShuffle1D(_PixelShuffle):
    """(N, f*C, W) -> (N, C, W*f)."""
    _ndim = 1


class PixelShuffle2D(_PixelShuffle):
    """(N, f1*f2*C, H, W) -> (N, C, H*f1, W*f2)."""
    _ndim = 2


class PixelShuffle3D(_PixelShuffle):
    """(N, f1*f2*f3*C, D, H, W) -> (N, C, D*f1, H*f2, W*f3)."""
    _ndim = 3
