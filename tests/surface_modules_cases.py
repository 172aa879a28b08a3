"""Cases of the modules issue 41 added (mx.misc, mx.error, mx.symbol_doc, mx.log, the legacy
Convolution_v1 / Pooling_v1), shared by
make_surface_modules_goldens.py (on MXNet 1.9.1) and test_surface_modules.py (on xnd): each
takes ``mx`` and returns a JSON-able value."""
import importlib


def run_case(mx, fn):
    try:
        return {"value": fn(mx)}
    except Exception as e:  # noqa: BLE001  (the error type is the recorded answer)
        return {"error": type(e).__name__}


def factor_scheduler(mx):
    s = importlib.import_module("mxnet.misc").FactorScheduler(3, 0.5)
    return [s(i) for i in range(10)]


def factor_scheduler_bad_factor(mx):
    importlib.import_module("mxnet.misc").FactorScheduler(3, 1.5)


def internal_error_message(mx):
    return str(importlib.import_module("mxnet.error").InternalError("boom"))


def symbol_doc_output_shape(mx):
    fc = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=4, name="fc")
    out = importlib.import_module("mxnet.symbol_doc").SymbolDoc.get_output_shape(fc, data=(2, 3))
    return {k: list(v) for k, v in out.items()}


def get_logger_setup(mx):
    log = importlib.import_module("mxnet.log")
    lg = log.get_logger("xnd_surface_case")
    return [type(lg.handlers[0]).__name__, lg.level, log.get_logger("xnd_surface_case") is lg,
            len(lg.handlers), log.WARNING, log.DEBUG]


def _x(mx):
    return mx.nd.arange(16).reshape((1, 1, 4, 4))


def convolution_v1(mx):
    return mx.nd.Convolution_v1(_x(mx), mx.nd.ones((2, 1, 3, 3)), kernel=(3, 3), num_filter=2,
                                no_bias=True).asnumpy().tolist()


def pooling_v1_max(mx):
    return mx.nd.Pooling_v1(_x(mx), kernel=(3, 3), pool_type="max",
                            stride=(1, 1)).asnumpy().tolist()


def pooling_v1_avg_full(mx):
    return mx.nd.Pooling_v1(_x(mx), kernel=(2, 2), pool_type="avg", stride=(2, 2), pad=(1, 1),
                            pooling_convention="full").asnumpy().tolist()


def nd_while_loop(mx):
    def cond(i, s):
        return i < 5

    def func(i, s):
        return [i + s, i * 2], [i + 1, s + i]
    out, state = mx.nd.contrib.while_loop(cond, func, [mx.nd.array([0]), mx.nd.array([1])],
                                          max_iterations=7)
    return [[o.shape[0]] + o[:5].asnumpy().ravel().tolist() for o in out] + \
        [x.asnumpy().tolist() for x in state]


def nd_while_loop_no_max(mx):
    mx.nd.contrib.while_loop(lambda i: i < 1, lambda i: (i, i + 1), [mx.nd.array([0])])


def nd_cond(mx):
    return [mx.nd.contrib.cond(mx.nd.array([1]), lambda: 1, lambda: 2),
            mx.nd.contrib.cond(0, lambda: 1, lambda: 2)]


CASES = {f.__name__: f for f in (nd_while_loop, nd_while_loop_no_max, nd_cond, 
    factor_scheduler, factor_scheduler_bad_factor, internal_error_message,
    symbol_doc_output_shape, get_logger_setup, convolution_v1, pooling_v1_max,
    pooling_v1_avg_full)}
