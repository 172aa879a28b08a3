"""``mx.onnx``: export MXNet models to ONNX (MXNet 1.9.1's ``export_model``)."""
from .mx2onnx import export_model, get_operator_support

__all__ = ["export_model", "get_operator_support"]
