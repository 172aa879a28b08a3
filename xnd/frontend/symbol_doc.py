"""``mx.symbol_doc`` (MXNet's ``mxnet/symbol_doc.py``): the classes whose docstrings MXNet
appends to its generated symbol documentation (``<Op>Doc``); they hold no behaviour beyond
``SymbolDoc.get_output_shape``."""


class SymbolDoc:
    """The base class of the extra documentation of mx.sym's operators."""

    @staticmethod
    def get_output_shape(sym, **input_shapes):
        """``{output name: shape}`` of `sym` given its input shapes."""
        _, s_outputs, _ = sym.infer_shape(**input_shapes)
        return dict(zip(sym.list_outputs(), s_outputs))


class ActivationDoc(SymbolDoc):
    """Extra documentation of ``Activation``."""


class DropoutDoc(SymbolDoc):
    """Extra documentation of ``Dropout``."""


class EmbeddingDoc(SymbolDoc):
    """Extra documentation of ``Embedding``."""


class FlattenDoc(SymbolDoc):
    """Extra documentation of ``Flatten``."""


class FullyConnectedDoc(SymbolDoc):
    """Extra documentation of ``FullyConnected``."""


class ConcatDoc(SymbolDoc):
    """Extra documentation of ``Concat``."""


class BroadcastPlusDoc(SymbolDoc):
    """Extra documentation of ``broadcast_plus``."""
