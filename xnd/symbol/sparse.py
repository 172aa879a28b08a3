"""mx.sym.sparse: the operator names of MXNet's sparse symbol namespace, as the dense
registry operators (xnd has no sparse storage; see frontend/ndarray/sparse.py)."""
import sys

_sym = sys.modules[__package__]

for _name in ("ElementWiseSum", "Embedding", "FullyConnected", "LinearRegressionOutput",
              "LogisticRegressionOutput", "MAERegressionOutput", "abs", "add_n", "broadcast_add",
              "broadcast_div", "broadcast_mul", "broadcast_sub", "cast_storage", "clip", "concat",
              "dot", "elemwise_add", "elemwise_div", "elemwise_mul", "elemwise_sub", "exp",
              "make_loss", "mean", "negative", "norm", "relu", "retain", "sigmoid", "sign",
              "slice", "sqrt", "square", "stop_gradient", "sum", "tanh", "where", "zeros_like"):
    if hasattr(_sym, _name):
        globals()[_name] = getattr(_sym, _name)
