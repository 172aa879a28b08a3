"""``mxnet.numpy.utils`` (MXNet's ``mxnet/numpy/utils.py``): the dtype aliases and constants
mx.np re-exports (``pi``, ``inf``, ``nan``, ``newaxis`` ...), numpy's own values."""
import numpy as _onp

float16, float32, float64 = _onp.float16, _onp.float32, _onp.float64
uint8, int8, int32, int64 = _onp.uint8, _onp.int8, _onp.int32, _onp.int64
bool_ = _onp.bool_
bool = _onp.bool_  # noqa: A001  (MXNet's name; numpy 2 dropped onp.bool's deprecation)
finfo = _onp.finfo
pi, e, inf, nan = _onp.pi, _onp.e, _onp.inf, _onp.nan
PINF, NINF, PZERO, NZERO = _onp.inf, -_onp.inf, 0.0, -0.0   # (numpy 2 removed the names)
NAN = NaN = _onp.nan
newaxis = None

_STR_2_DTYPE_ = {"float16": float16, "float32": float32, "float64": float64, "float": float64,
                 "uint8": uint8, "int8": int8, "int32": int32, "int64": int64, "int": int64,
                 "bool": bool, "bool_": bool_, "None": None}
