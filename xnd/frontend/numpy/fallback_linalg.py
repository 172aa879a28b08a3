"""``mxnet.numpy.fallback_linalg`` (MXNet's module): the linear-algebra functions mx.np.linalg
takes from official NumPy as they are."""
import numpy as _onp

__all__ = ["cond", "lstsq", "matrix_power", "matrix_rank", "multi_dot", "qr"]
globals().update({n: getattr(_onp.linalg, n) for n in __all__})
