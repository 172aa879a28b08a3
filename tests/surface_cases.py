"""Cases shared by make_surface_goldens.py (on MXNet 1.9.1) and test_surface.py (on xnd):
each takes the ``mx`` module and returns a JSON-able value. Deterministic inputs only."""
import json
import pickle

import numpy as np


def run_case(mx, fn):
    try:
        with mx.name.NameManager():  # automatic names count from 0 in each case
            return {"value": fn(mx)}
    except Exception as e:  # noqa: BLE001  (the error type is the recorded answer)
        return {"error": type(e).__name__}


def _names(mx, attrs):
    return sorted(a for a in attrs if not a.startswith("_"))


def base_names(mx):
    b = mx.base
    return {"integer_types": [t.__name__ for t in b.integer_types],
            "numeric_types": [t.__name__ for t in b.numeric_types],
            "string_types": [t.__name__ for t in b.string_types],
            "mx_real_t": np.dtype(b.mx_real_t).name, "py_str": b.py_str(b"abc"),
            "null_repr": repr(b._Null), "data_dir_is_str": isinstance(b.data_dir(), str)}


def not_implemented_for_symbol_message(mx):
    def f():
        pass
    return str(mx.base.NotImplementedForSymbol(f, "my_op", 1, "x"))


def symbol_bool(mx):
    bool(mx.sym.var("x"))


def np_shape_flags(mx):
    out = [mx.is_np_shape()]
    with mx.np_shape(True):
        out.append(mx.is_np_shape())
        with mx.np_shape(False):
            out.append(mx.is_np_shape())
        out.append(mx.is_np_shape())
    out.append(mx.is_np_shape())
    prev = mx.set_np_shape(True)
    out += [prev, mx.is_np_shape(), mx.set_np_shape(False), mx.is_np_shape()]

    @mx.use_np_shape
    def inside():
        return mx.is_np_shape()
    out.append(inside())
    return out


def np_array_needs_np_shape(mx):
    mx.util.set_np(shape=False, array=True)


def infer_partial_legacy(mx):
    x, y = mx.sym.var("x"), mx.sym.var("y")
    z = mx.sym.dot(x, y)
    _, out, _ = z.infer_shape_partial(x=(0, 3, 4), y=(4, 5))
    d = mx.sym.sin(mx.sym.var("data"))
    a, o, _ = d.infer_shape_partial()
    return [list(out[0]), list(a[0]), list(o[0])]


def infer_partial_np_shape(mx):
    x, y = mx.sym.var("x"), mx.sym.var("y")
    z = mx.sym.dot(x, y)
    with mx.np_shape(True):
        _, out, _ = z.infer_shape_partial(x=(-1, 3, 4), y=(4, 5))
        d = mx.sym.sin(mx.sym.var("data"))
        a, o, _ = d.infer_shape_partial()
    return [list(out[0]), a[0], o[0]]


def infer_elemwise_completes(mx):
    a = mx.sym.Variable("a", shape=(0, 10))
    b = mx.sym.Variable("b", shape=(12, 0))
    args, outs, _ = (a + b).infer_shape()
    return [list(s) for s in args] + [list(outs[0])]


def sym_maximum_names(mx):
    a, b = mx.sym.var("a"), mx.sym.var("b")
    out = []
    for f in (mx.sym.maximum, mx.sym.minimum, mx.sym.pow, mx.sym.power, mx.sym.hypot):
        out.append([f(a, b).name, f(a, 2).name, f(2, b).name, f(2, 3)])
    return out


def sym_maximum_values(mx):
    a, b = mx.sym.var("a"), mx.sym.var("b")
    exprs = [mx.sym.maximum(a, b), mx.sym.minimum(a, 2.5), mx.sym.pow(2, b), mx.sym.hypot(a, b)]
    out = []
    for e in exprs:
        args = {k: mx.nd.array(v) for k, v in (("a", [1, 5, -2]), ("b", [3, 2, 0.5]))
                if k in e.list_arguments()}
        out.append(e.eval(ctx=mx.cpu(), **args)[0].asnumpy().tolist())
    return out


def sym_lr_mult_attrs(mx):
    f = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=10, lr_mult=2, wd_mult=0.5,
                              name="fc")
    nodes = json.loads(f.tojson())["nodes"]
    return {"list_attr": f.list_attr(), "attr_dict": f.attr_dict(),
            "json_attrs": {n["name"]: n.get("attrs") for n in nodes}}


def nd_lr_mult_rejected(mx):
    mx.nd.FullyConnected(mx.nd.ones((2, 3)), mx.nd.ones((4, 3)), mx.nd.ones(4), num_hidden=4,
                         lr_mult=2)


def sym_children(mx):
    data = mx.sym.Variable("data")
    fc1 = mx.sym.FullyConnected(data=data, name="fc1", num_hidden=10)
    fc2 = mx.sym.FullyConnected(data=fc1, name="fc2", num_hidden=100)
    sliced = mx.sym.SliceChannel(data, num_outputs=3, name="slice")
    concat = mx.sym.Concat(*list(sliced))
    return [fc2.get_children().list_outputs(),
            fc2.get_children().get_children().list_outputs(),
            fc2.get_children()["fc2_weight"].get_children() is None,
            concat.get_children().list_outputs(), sliced.get_children().list_outputs()]


def sym_pickle_roundtrip(mx):
    net = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3, name="fc")
    net = mx.sym.Activation(net, act_type="relu", name="act")
    back = pickle.loads(pickle.dumps(net))
    return [back.tojson() == net.tojson(), back.list_arguments()]


def sym_numpy_int_attr(mx):
    t = mx.sym.transpose(mx.sym.var("x"), axes=(np.int64(1), np.int64(0)))
    return json.loads(t.tojson())["nodes"][1]["attrs"]


def sym_infer_type_partial(mx):
    net = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3, name="fc")
    args, outs, aux = net.infer_type_partial()
    return [args, outs, aux]


def get_symbol_names(mx):
    x = mx.nd.ones((1,))
    x.attach_grad()
    z = mx.nd.ones((1,))
    z.attach_grad()
    with mx.autograd.record():
        y = x * x + 2 * z - 1
        w = mx.nd.relu(x) + mx.nd.ones((1,))
    s = mx.autograd.get_symbol(y)
    nodes = [(n["op"], n["name"], n.get("attrs")) for n in json.loads(s.tojson())["nodes"]]
    val = s.eval(ctx=mx.cpu(), var0=mx.nd.array([3]), var1=mx.nd.array([1]))[0]
    return [s.list_arguments(), nodes, val.asnumpy().tolist(),
            mx.autograd.get_symbol(w).list_arguments()]


def get_symbol_of_hybridized_blocks(mx):
    """A recorded hybridized block: its operators inlined up to ``inline_limit`` (default 2),
    else one ``_CachedOp`` node over data and parameters."""
    def structure(y):
        d = json.loads(mx.autograd.get_symbol(y).tojson())
        return [[n["op"], len(n["inputs"])] for n in d["nodes"]], d["heads"]

    net = mx.gluon.nn.HybridSequential()
    with net.name_scope():
        for _ in range(3):
            net.add(mx.gluon.nn.Dense(4))
    net.initialize(mx.init.One())
    out = []
    for limit in (3, 0):
        net.hybridize(inline_limit=limit)
        with mx.autograd.record():
            y = net(mx.nd.ones((1, 2)))
        out.append(structure(y))
        y.backward()
    one = mx.gluon.nn.Dense(3)
    one.initialize(mx.init.One())
    one.hybridize()
    with mx.autograd.record():
        y = one(mx.nd.ones((1, 2))) * 2
    out.append(structure(y))
    return out


def get_symbol_not_recorded(mx):
    mx.autograd.get_symbol(mx.nd.ones((1,)))


def fresh_grad(mx):
    x = mx.nd.ones((2,))
    y = mx.nd.ones((2,))
    dx, dy = mx.nd.zeros((2,)), mx.nd.zeros((2,))
    mx.autograd.mark_variables([x, y], [dx, dy])
    out = [x._fresh_grad, y._fresh_grad]
    with mx.autograd.record():
        (x + 2 + y).backward()
    out += [x._fresh_grad, y._fresh_grad]
    x._fresh_grad = False
    y._fresh_grad = False
    with mx.autograd.record():
        ((x + 2).detach() + y).backward()
    return out + [x._fresh_grad, y._fresh_grad, dx.asnumpy().tolist()]


def sparse_namespace(mx):
    names = ["dot", "elemwise_add", "square", "retain", "csr_matrix", "row_sparse_array",
             "CSRNDArray", "RowSparseNDArray", "zeros", "cast_storage"]
    return {"nd": [hasattr(mx.nd.sparse, n) for n in names],
            "sym": [hasattr(mx.sym.sparse, n) for n in ["dot", "elemwise_add", "square"]],
            "dot": mx.nd.sparse.dot(mx.nd.array([[1, 2], [3, 4]]),
                                    mx.nd.array([[1], [1]])).asnumpy().tolist()}


def test_utils_star(mx):
    scope = {}
    exec("from mxnet.test_utils import *", scope)
    want = ["mx", "np", "NDArray", "Symbol", "assert_almost_equal", "verify_generator",
            "chi_square_check", "gen_buckets_probs_with_ppf", "mean_check", "var_check",
            "check_consistency", "compare_optimizer", "compare_ndarray_tuple", "environment",
            "DummyIter", "get_mnist_ubyte", "get_cifar10", "default_context", "use_np",
            "rand_shape_nd", "same_symbol_structure", "check_speed", "create_vector"]
    return {n: n in scope for n in want}


def gen_buckets(mx):
    buckets, probs = mx.test_utils.gen_buckets_probs_with_ppf(lambda p: p * 2 - 1, 4)
    return [[list(b) for b in buckets], probs]


def chi_square_discrete(mx):
    samples = np.array([0, 1, 1, 2, 2, 2, 0, 1, 2, 2] * 100)
    p, obs, exp = mx.test_utils.chi_square_check(lambda n: samples[:n], [0, 1, 2],
                                                 [0.2, 0.3, 0.5], nsamples=1000)
    return [round(float(p), 10), [int(v) for v in obs], [int(v) for v in exp]]


def chi_square_continuous(mx):
    samples = np.linspace(-0.999, 0.999, 1000)
    buckets = [(-1.0, -0.5), (-0.5, 0.0), (0.0, 0.5), (0.5, 1.0)]
    p, obs, exp = mx.test_utils.chi_square_check(lambda n: samples[:n], buckets, [0.25] * 4,
                                                 nsamples=1000)
    return [round(float(p), 10), [int(v) for v in obs], [int(v) for v in exp]]


def verify_generator_fails(mx):
    mx.test_utils.verify_generator(lambda n: np.zeros(n), [0, 1], [0.5, 0.5], nsamples=100,
                                   nrepeat=2)


def mean_var_checks(mx):
    gen = lambda n: np.linspace(-1, 1, n)  # noqa: E731
    return [bool(mx.test_utils.mean_check(gen, 0.0, 0.58, nsamples=1001)),
            bool(mx.test_utils.mean_check(gen, 0.5, 0.58, nsamples=1001)),
            bool(mx.test_utils.var_check(gen, 0.578, nsamples=1001)),
            bool(mx.test_utils.var_check(gen, 1.0, nsamples=1001))]


def same_symbol_structure(mx):
    a = mx.sym.relu(mx.sym.var("x"))
    b = mx.sym.relu(mx.sym.var("y"))
    c = mx.sym.sigmoid(mx.sym.var("x"))
    return [mx.test_utils.same_symbol_structure(a, b), mx.test_utils.same_symbol_structure(a, c)]


def check_consistency_dtypes(mx):
    np.random.seed(3)
    sym = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3, name="fc")
    ctx_list = [{"ctx": mx.cpu(0), "data": (2, 4), "type_dict": {"data": np.float64}},
                {"ctx": mx.cpu(0), "data": (2, 4), "type_dict": {"data": np.float32}}]
    gt = mx.test_utils.check_consistency(sym, ctx_list)
    return sorted(gt)


def check_consistency_detects(mx):
    np.random.seed(3)
    a = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3, name="fc")
    b = mx.sym.FullyConnected(mx.sym.var("data") * 2, num_hidden=3, name="fc")
    ctx_list = [{"ctx": mx.cpu(0), "data": (2, 4)}, {"ctx": mx.cpu(0), "data": (2, 4)}]
    mx.test_utils.check_consistency([a, b], ctx_list, grad_req="null")


def compare_optimizer_sgd(mx):
    mx.random.seed(0)
    o1 = mx.optimizer.SGD(learning_rate=0.1, momentum=0.9)
    o2 = mx.optimizer.SGD(learning_rate=0.1, momentum=0.9)
    mx.test_utils.compare_optimizer(o1, o2, (3, 4), np.float32)
    o3 = mx.optimizer.SGD(learning_rate=0.2, momentum=0.9)
    mx.test_utils.compare_optimizer(o1, o3, (3, 4), np.float32)


def thread_np_scope(mx):
    from mxnet.util import _NumpyArrayScope
    return _NumpyArrayScope(True)._is_np_array


def amp_tojson_removes_casts(mx):
    from mxnet.contrib import amp
    net = mx.sym.softmax(mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3, name="fc"),
                         name="sm")
    conv = amp.convert_symbol(net, target_dtype="float16")
    ops = lambda s: [n["op"] for n in json.loads(s)["nodes"]]  # noqa: E731
    return [ops(conv.tojson()), ops(conv.tojson(remove_amp_cast=False)),
            conv.tojson() == net.tojson()]


def creation_ops_take_ctx(mx):
    mx.random.seed(1)
    a = mx.nd.random_uniform(shape=(2, 3), ctx=mx.cpu(0))
    b = mx.nd.normal(shape=(4,), ctx=mx.cpu(0), dtype="float64")
    z = mx.nd.zeros((2,), stype="default")
    s = mx.sym.random.uniform(shape=(2,), ctx=mx.cpu())
    return [a.shape, str(a.context), b.dtype.__name__, z.asnumpy().tolist(),
            s.infer_shape()[1]]


CASES = {name: fn for name, fn in list(globals().items())
         if callable(fn) and not name.startswith("_") and name not in ("run_case",)
         and getattr(fn, "__module__", None) == __name__}
