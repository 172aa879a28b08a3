"""``mxnet.contrib.onnx.onnx2mx.import_model``: ``import_model`` and ``get_model_metadata``
(the importer is _importer.py)."""
from ._importer import get_model_metadata, import_model  # noqa: F401
