"""``mx.ndarray_doc`` (MXNet's ``mxnet/ndarray_doc.py``): the classes whose docstrings MXNet
appends to its generated operator documentation (``<Op>Doc``); they hold no behaviour."""


class NDArrayDoc:
    """The base class of the extra documentation of mx.nd's operators."""


class ReshapeDoc(NDArrayDoc):
    """Extra documentation of ``reshape`` (MXNet's examples)."""


class elemwise_addDoc(NDArrayDoc):
    """Extra documentation of ``elemwise_add``."""


class BroadcastToDoc(NDArrayDoc):
    """Extra documentation of ``broadcast_to``."""


class StackDoc(NDArrayDoc):
    """Extra documentation of ``stack``."""


class CustomDoc(NDArrayDoc):
    """Extra documentation of ``Custom`` (see mx.operator)."""
