"""What ONNX export (``mx.onnx``, xnd/frontend/onnx/mx2onnx/) and ONNX import
(``mx.contrib.onnx``, xnd/frontend/contrib/onnx/onnx2mx/) share: the lazy import of the
``onnx`` package, with MXNet's message when it is missing, and the decorator that files a
translation function in its table under every operator name it handles. Private to those two;
no MXNet module of its own."""


def require_onnx():
    """The ``onnx`` package (with ``onnx.helper`` loaded), or MXNet's ImportError."""
    try:
        import onnx
        import onnx.helper  # noqa: F401
    except ImportError:
        raise ImportError("Onnx and protobuf need to be installed. Instructions to install - "
                          "https://github.com/onnx/onnx (pip install 'xnd[onnx]')") from None
    return onnx


def registrar(table):
    """``@decorator(*names)`` that puts the function in `table` under each of the names."""
    def register(*names):
        def deco(fn):
            for n in names:
                table[n] = fn
            return fn
        return deco
    return register
