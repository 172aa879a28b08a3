"""MXNet's integer arithmetic quirks (issue 44), as plain data for make_int_math_goldens.py
(run on MXNet 1.9.1) and test_int_math.py (run on xnd): float -> integer casts of NaN, inf
and out-of-range values, float math on integer arrays (computed in float, converted back),
float indices of take/pick, integer hypot and float scalars meeting integer arrays.

Each table is a grid of inputs; MXNet's answer for every grid point is in the golden, so the
hypothesis test can draw any arrangement of grid points (shape, order, op) and look up the
expected values elementwise."""
import numpy as np

NAN, INF = float("nan"), float("inf")

# float inputs of the casts and of the indices: special values, the edges of each integer
# range, and ordinary fractions
FLOATS = [NAN, INF, -INF, 1e30, -1e30, 2.0 ** 63, -2.0 ** 63, 3e9, -3e9, 2.0 ** 31,
          -2.0 ** 31, 2.0 ** 31 - 256, -2.0 ** 31 + 256, 65536.7, 300.0, -300.0, 256.0, 255.5,
          128.0, 127.9, -128.0, -129.0, 2.7, -2.7, 0.5, -0.5, -0.0, 0.0, 1.0, 7.0, -8.0]
CAST_FROM = ["float32", "float64", "float16"]
INT_DTYPES = ["int8", "uint8", "int32", "int64"]

# integer inputs of the float math, per dtype (each within its dtype's range)
INTS = {"int8": [-128, -100, -4, -1, 0, 1, 2, 3, 100, 127],
        "uint8": [0, 1, 2, 3, 100, 200, 255],
        "int32": [-2 ** 31, -100, -4, -1, 0, 1, 2, 3, 100, 16777217, 2 ** 31 - 1],
        "int64": [-2 ** 40, -100, -4, -1, 0, 1, 2, 3, 100, 2 ** 40 + 1]}

# unary float math that keeps an integer input's dtype
UNARY = ["sqrt", "rsqrt", "cbrt", "rcbrt", "log", "log2", "log10", "log1p", "exp", "expm1",
         "reciprocal", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh",
         "tanh", "arcsinh", "arccosh", "arctanh", "sigmoid", "radians", "erf", "gammaln", "degrees", "gamma"]

# float scalars meeting an integer array
SCALARS = [NAN, INF, -INF, 1e30, 2.7, -2.7, 3e9]
SCALAR_OPS = ["_plus_scalar", "_mul_scalar", "_minus_scalar", "_rminus_scalar"]

TAKE_SIZE = 7  # take/pick from arange(7)


def index_grid():
    """The float indices: FLOATS plus in-range and just-out-of-range values."""
    return FLOATS + [3.0, 6.0, 6.9, -1.0, -7.0, 8.0, 13.0]

# the numpy interface (mx.np, after npx.set_np()): the same rule through its own functions
NP_UNARY = ["sqrt", "cbrt", "log", "log2", "log10", "log1p", "exp", "expm1", "reciprocal",
            "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh",
            "arcsinh", "arccosh", "arctanh", "degrees", "radians"]
