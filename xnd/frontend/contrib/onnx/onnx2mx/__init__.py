"""``mx.contrib.onnx.onnx2mx``: ONNX import, as MXNet's package lays it out (``import_model``,
``import_onnx``, ``import_to_gluon`` submodules); the importer itself is ``_importer.py``."""
from . import import_model, import_onnx, import_to_gluon  # noqa: F401
from ._importer import get_model_metadata  # noqa: F401
