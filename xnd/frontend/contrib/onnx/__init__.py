"""``mx.contrib.onnx``: ONNX import (``import_model``, ``import_to_gluon``,
``get_model_metadata``) and the old path of ``export_model`` (now ``mx.onnx``).  As in
MXNet 1.9.1 each entry point first prints its deprecation notice."""
from ...onnx import export_model as _export_model
from . import onnx2mx
from .onnx2mx.import_model import get_model_metadata as get_model_metadata_
from .onnx2mx.import_model import import_model as import_model_
from .onnx2mx.import_to_gluon import import_to_gluon as import_to_gluon_

export_model_ = _export_model  # MXNet's names of the entry points without their notice

__all__ = ["import_model", "get_model_metadata", "import_to_gluon", "export_model"]

_IMPORT_NOTE = ("Please be advised that importing ONNX models into MXNet is going to be "
                "deprecated in the upcoming MXNet v1.10 release. The following apis will be "
                "deleted: mxnet.contrib.onnx.import_model/get_model_metadata/import_to_gluon.")


def import_model(*args, **kwargs):
    """An ONNX file as ``(sym, arg_params, aux_params)``."""
    print("Calling mxnet.contrib.onnx.import_model...")
    print(_IMPORT_NOTE)
    return import_model_(*args, **kwargs)


def get_model_metadata(*args, **kwargs):
    """``{'input_tensor_data': [(name, shape)], 'output_tensor_data': [...]}`` of an ONNX
    file."""
    print("Calling mxnet.contrib.onnx.get_model_metadata...")
    print(_IMPORT_NOTE)
    return get_model_metadata_(*args, **kwargs)


def import_to_gluon(*args, **kwargs):
    """An ONNX file as a Gluon SymbolBlock with its parameters loaded."""
    print("Calling mxnet.contrib.onnx.import_to_gluon...")
    print(_IMPORT_NOTE)
    return import_to_gluon_(*args, **kwargs)


def export_model(*args, **kwargs):
    """``mx.onnx.export_model`` (its old path)."""
    print("Calling mxnet.contrib.onnx.export_model...")
    print("Please be advised that the ONNX module has been moved to mxnet.onnx and "
          "mxnet.onnx.export_model is the preferred path. The current path will be deprecated "
          "in the upcoming MXNet v1.10 release.")
    return _export_model(*args, **kwargs)
