"""``mxnet.contrib.onnx.onnx2mx.import_onnx``: the names MXNet's module holds beside its
graph converter class (xnd's converter is the package's ``_Importer``, behind
``import_model``)."""
from ..... import ndarray as nd  # noqa: F401
from ..... import symbol  # noqa: F401
from .....base import string_types  # noqa: F401
