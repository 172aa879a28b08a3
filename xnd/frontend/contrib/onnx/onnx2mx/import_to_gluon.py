"""``mxnet.contrib.onnx.onnx2mx.import_to_gluon``: ``import_to_gluon`` (the importer is
_importer.py)."""
from ._importer import import_to_gluon  # noqa: F401
