"""Replay tests/sym_cases.py on xnd and compare with the MXNet 1.9.1 goldens.

The goldens (tests/goldens/sym/sym_cases.json + .npz) are produced by
``/work/mxref/bin/python tests/make_sym_goldens.py`` on real MXNet; this file
needs only xnd.  Every case runs inside a fresh ``mx.name.NameManager()``, as
in the generator.  Rules:

* names, lists, shapes, type names, JSON structure, attribute dicts: exact
  (lists/tuples: same container type and length, element-wise; dicts: same
  keys and values);
* arrays: same class, dtype name and shape; values bit-exact for integer/bool
  dtypes, otherwise ``assert_allclose(rtol=1e-5, atol=1e-6)``;
* str: identical text; scalars: same type name and value;
* errors: xnd must raise too.  MXNet's ``MXNetError`` must be matched by
  ``xnd.base.MXNetError`` (or a subclass); a built-in exception by an
  instance of that built-in class.

Cases on which MXNet 1.9.1 fails because of an MXNet bug, and that xnd is
meant to support, are compared with ``EXTENSIONS`` instead: either the golden
of an equivalent case (``SameAs``) or a hand-written value.
"""

import builtins
import importlib.util
import json
import os
import warnings

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN_JSON = os.path.join(HERE, "goldens", "sym", "sym_cases.json")
GOLDEN_NPZ = os.path.join(HERE, "goldens", "sym", "sym_cases.npz")

try:
    import xnd as mx
    _IMPORT_ERROR = None
except Exception as _e:  # noqa: BLE001 - report on every test instead of a collection error
    mx = None
    _IMPORT_ERROR = _e


def _load_cases():
    spec = importlib.util.spec_from_file_location(
        "_xnd_sym_cases", os.path.join(HERE, "sym_cases.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


sym_cases = _load_cases()
CASES = sym_cases.CASES

with open(GOLDEN_JSON) as _f:
    GOLDEN = json.load(_f)["cases"]
_NPZ = np.load(GOLDEN_NPZ, allow_pickle=False)

RTOL, ATOL = 1e-5, 1e-6


class SameAs:
    """Expect what MXNet gives for another (equivalent) case."""

    def __init__(self, name):
        self.name = name


EXTENSIONS = {
    # MXNet 1.9.1's positional infer_shape/infer_type pass NULL keys to the C
    # API and always fail ("basic_string::_S_construct null not valid").  xnd
    # maps positional shapes/types to list_arguments() order, as documented.
    "case_shape_positional": SameAs("case_shape_mlp"),
    "case_type_positional": SameAs("case_type_mlp_float16"),
    # sym[-1]: MXNet 1.9.1 passes the index to C as unsigned and fails
    # ("Symbol only accept nonnegative index").  xnd: Python negative indexing.
    "case_list_index_negative_raises": {
        "kind": "list", "container": "list",
        "items": [{"kind": "str", "text": "sp_output2"}]},
}


# ---------------------------------------------------------------------------
# encoding of xnd results (mirrors tests/make_sym_goldens.py, values inline)
# ---------------------------------------------------------------------------

def _scalar_type_name(x):
    if x is None:
        return "NoneType"
    if isinstance(x, np.generic):
        return "numpy." + np.dtype(type(x)).name
    return type(x).__name__


def _encode(obj):
    if isinstance(obj, mx.nd.NDArray):
        v = obj.asnumpy()
        return {"kind": "array", "cls": "NDArray", "dtype": v.dtype.name,
                "shape": list(v.shape), "value": v}
    if isinstance(obj, np.ndarray):
        return {"kind": "array", "cls": "ndarray", "dtype": obj.dtype.name,
                "shape": list(obj.shape), "value": obj}
    if isinstance(obj, str):
        return {"kind": "str", "text": obj}
    if obj is None or isinstance(obj, (bool, int, float, np.generic)):
        value = obj.item() if isinstance(obj, np.generic) else obj
        return {"kind": "scalar", "type": _scalar_type_name(obj), "value": value}
    if isinstance(obj, dict):
        if not all(isinstance(k, str) for k in obj):
            raise AssertionError("case returned a dict with non-str keys: %r" % list(obj))
        return {"kind": "dict", "items": [[k, _encode(obj[k])] for k in sorted(obj)]}
    if isinstance(obj, (list, tuple)):
        return {"kind": "list", "container": type(obj).__name__,
                "items": [_encode(e) for e in obj]}
    raise AssertionError("case returned unsupported type %r" % type(obj))


def _resolve(entry):
    """Golden entry -> spec with array values loaded from the npz."""
    k = entry["kind"]
    if k == "array":
        out = dict(entry)
        out["value"] = _NPZ[entry["npz"]] if entry.get("npz") else None
        return out
    if k == "list":
        out = dict(entry)
        out["items"] = [_resolve(e) for e in entry["items"]]
        return out
    if k == "dict":
        return {"kind": "dict", "items": [[key, _resolve(e)] for key, e in entry["items"]]}
    return entry


def _plain(spec):
    """Spec -> compact Python value for failure messages."""
    k = spec["kind"]
    if k == "list":
        v = [_plain(e) for e in spec["items"]]
        return tuple(v) if spec["container"] == "tuple" else v
    if k == "dict":
        return {key: _plain(e) for key, e in spec["items"]}
    if k == "scalar":
        return spec["value"]
    if k == "str":
        return spec["text"]
    if k == "array":
        return "<%s %s%s>" % (spec["cls"], spec["dtype"], tuple(spec["shape"]))
    return "<error %s: %s>" % (spec["cls"], spec["message"][:120])


def _describe(spec):
    s = repr(_plain(spec))
    return s if len(s) < 600 else s[:600] + "..."


# ---------------------------------------------------------------------------
# comparison
# ---------------------------------------------------------------------------

def _compare(exp, got, where):
    assert got["kind"] == exp["kind"], "%s: got %s, expected %s" % (
        where, _describe(got), _describe(exp))
    k = exp["kind"]
    if k == "array":
        assert got["cls"] == exp["cls"], "%s: class %s, expected %s" % (
            where, got["cls"], exp["cls"])
        assert got["dtype"] == exp["dtype"], "%s: dtype %s, expected %s" % (
            where, got["dtype"], exp["dtype"])
        assert list(got["shape"]) == list(exp["shape"]), "%s: shape %s, expected %s" % (
            where, tuple(got["shape"]), tuple(exp["shape"]))
        ev, gv = exp["value"], np.asarray(got["value"])
        if ev is None:
            return
        if ev.dtype.kind not in "fc":
            np.testing.assert_array_equal(gv, ev, err_msg="%s: values differ" % where)
        else:
            np.testing.assert_allclose(gv.astype(np.float64), ev.astype(np.float64),
                                       rtol=RTOL, atol=ATOL, equal_nan=True,
                                       err_msg="%s: values differ" % where)
    elif k == "str":
        assert got["text"] == exp["text"], "%s: text differs\n got: %r\nwant: %r" % (
            where, got["text"], exp["text"])
    elif k == "scalar":
        assert got["type"] == exp["type"], "%s: scalar type %s (%r), expected %s (%r)" % (
            where, got["type"], got["value"], exp["type"], exp["value"])
        if isinstance(exp["value"], float):
            np.testing.assert_allclose(got["value"], exp["value"], rtol=RTOL, atol=ATOL,
                                       err_msg=where)
        else:
            assert got["value"] == exp["value"], "%s: %r, expected %r" % (
                where, got["value"], exp["value"])
    elif k == "dict":
        gk = [key for key, _ in got["items"]]
        ek = [key for key, _ in exp["items"]]
        assert gk == ek, "%s: dict keys %s, expected %s\n got: %s\nwant: %s" % (
            where, gk, ek, _describe(got), _describe(exp))
        for (key, e), (_, g) in zip(exp["items"], got["items"]):
            _compare(e, g, "%s[%r]" % (where, key))
    elif k == "list":
        assert got["container"] == exp["container"], "%s: %s, expected %s" % (
            where, got["container"], exp["container"])
        assert len(got["items"]) == len(exp["items"]), (
            "%s: %d items, expected %d\n got: %s\nwant: %s" % (
                where, len(got["items"]), len(exp["items"]), _describe(got), _describe(exp)))
        try:
            for i, (e, g) in enumerate(zip(exp["items"], got["items"])):
                _compare(e, g, "%s[%d]" % (where, i))
        except AssertionError as err:
            if len(where) > 60 or "\n got:" in str(err):
                raise
            raise AssertionError("%s\n got: %s\nwant: %s" % (
                err, _describe(got), _describe(exp))) from None
    else:  # pragma: no cover
        raise AssertionError("unknown golden kind %r" % k)


def _check_error(exp, err, where):
    if exp["mxnet_error"]:
        assert isinstance(err, mx.base.MXNetError), (
            "%s: MXNet raised MXNetError (%s) but xnd raised %s: %s"
            % (where, exp["message"][:100], type(err).__name__, err))
        return
    cls = getattr(builtins, exp["builtin"])
    assert isinstance(err, cls), (
        "%s: MXNet raised %s (%s) but xnd raised %s: %s"
        % (where, exp["cls"], exp["message"][:100], type(err).__name__, err))


def _expected(name):
    ext = EXTENSIONS.get(name)
    if ext is None:
        return _resolve(GOLDEN[name])
    if isinstance(ext, SameAs):
        return _resolve(GOLDEN[ext.name])
    return ext


# ---------------------------------------------------------------------------
# tests
# ---------------------------------------------------------------------------

def test_goldens_match_case_table():
    """tests/goldens/sym is regenerated whenever sym_cases.py changes."""
    missing = sorted(set(CASES) - set(GOLDEN))
    stale = sorted(set(GOLDEN) - set(CASES))
    assert not missing and not stale, (
        "goldens out of date; run /work/mxref/bin/python tests/make_sym_goldens.py\n"
        "cases without golden: %s\ngoldens without case: %s" % (missing, stale))


def test_extensions_only_override_mxnet_failures():
    for name, ext in EXTENSIONS.items():
        assert GOLDEN[name]["kind"] == "error", name
        if isinstance(ext, SameAs):
            assert GOLDEN[ext.name]["kind"] != "error", name


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_sym_case(name):
    if _IMPORT_ERROR is not None:
        pytest.fail("import xnd failed: %r" % (_IMPORT_ERROR,))
    if name not in CASES:
        pytest.fail("golden %s has no case in sym_cases.py (regenerate goldens)" % name)
    exp = _expected(name)
    fn = CASES[name]
    err = None
    got = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            with mx.name.NameManager():
                got = _encode(fn(mx, np))
        except AssertionError:
            raise
        except Exception as e:  # noqa: BLE001 - compared with MXNet's error below
            err = e
    if exp["kind"] == "error":
        if err is None:
            pytest.fail("%s: MXNet raised %s (%s) but xnd returned %s"
                        % (name, exp["cls"], exp["message"][:150], _describe(got)))
        _check_error(exp, err, name)
        return
    if err is not None:
        raise AssertionError("%s: expected %s but xnd raised %s: %s"
                             % (name, _describe(exp), type(err).__name__, err)) from err
    _compare(exp, got, name)


def test_variable_int_shape_is_one_dimensional():
    # MXNet 1.9.1 keeps the attribute as written ('3') and infers (3,)
    import xnd as mx
    v = mx.sym.var("w", shape=3)
    assert v.attr("__shape__") == "3"
    assert (v + 1).infer_shape() == ([(3,)], [(3,)], [])


def test_tojson_marks_numpy_shape_semantics():
    # MXNet 1.9.1 adds "is_np_shape": ["int", 1] only under mx.np_shape(True)
    import xnd as mx
    s = mx.sym.Variable("a") + 1
    assert json.loads(s.tojson())["attrs"] == {"mxnet_version": ["int", 10901]}
    with mx.np_shape(True):
        assert json.loads(s.tojson())["attrs"] == {"is_np_shape": ["int", 1],
                                                   "mxnet_version": ["int", 10901]}


def test_gen_atomic_symbol_and_partial_types_through_a_cast():
    # MXNet 1.9.1: the operator alone, unnamed, no arguments, its visible outputs
    import xnd as mx
    v = [mx.sym.Variable(n) for n in ("data", "param", "h0", "h1")]
    s = mx.sym.RNN(*v, state_size=10, num_layers=2, bidirectional=True, state_outputs=True,
                   mode="lstm", name="r")
    a = s._gen_atomic_symbol()
    assert a.name == "" and a.list_arguments() == []
    assert a.list_outputs() == ["output", "state_output", "statecell_output"]
    # a Cast's dtype is its output's, so partial inference leaves its input unknown
    fc = mx.sym.FullyConnected(mx.sym.Cast(mx.sym.Variable("data"), dtype="float32"),
                               num_hidden=4, name="fc1")
    mlp = mx.sym.SoftmaxOutput(fc, name="softmax")
    assert mlp.infer_type_partial() == ([None, np.float32, np.float32, np.float32],
                                        [np.float32], [])
    assert mlp.infer_type(data=np.float16)[0] == [np.float16] + [np.float32] * 3


def test_shape_inference_runs_backwards_through_ops():
    # MXNet 1.9.1 completes unknown (0) input dims from known output dims (values from it)
    import xnd as mx
    V = mx.sym.Variable
    fc = mx.sym.FullyConnected(V("a", shape=(0, 10)), num_hidden=21)
    assert (fc + V("c", shape=(5, 0))).infer_shape()[0] == [(5, 10), (21, 10), (21,), (5, 21)]
    cat = mx.sym.Concat(V("a", shape=(0, 10)), V("b", shape=(0, 5)), num_args=2, dim=1)
    assert (V("d", shape=(2, 0)) + cat).infer_shape()[0] == [(2, 15), (2, 10), (2, 5)]
    parts = mx.sym.SliceChannel(V("a", shape=(0, 15, 0)), num_outputs=3, squeeze_axis=False)
    assert (parts[1] + V("c", shape=(3, 5, 2))).infer_shape()[0] == [(3, 15, 2), (3, 5, 2)]
    conv = mx.sym.Convolution(V("a", shape=(0, 10, 0, 0)), num_filter=21, kernel=(3, 3),
                              pad=(1, 1))
    assert (conv + V("c", shape=(5, 21, 32, 32))).infer_shape()[0][0] == (5, 10, 32, 32)
    # stride 2: 31 and 32 both give 16, so the input stays unknown (MXNet: not inferred)
    conv2 = mx.sym.Convolution(V("a", shape=(0, 10, 0, 0)), num_filter=21, kernel=(3, 3),
                               pad=(1, 1), stride=(2, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert (conv2 + V("c", shape=(5, 21, 16, 16))).infer_shape() == (None, None, None)
    # an elementwise op's output is known from one known input (partial inference)
    x2h = mx.sym.FullyConnected(V("data"), num_hidden=8, name="x2h")
    h2h = mx.sym.FullyConnected(V("prev"), num_hidden=8, name="h2h")
    args, outs, _ = mx.sym.relu(mx.sym.elemwise_add(x2h, h2h)).infer_shape_partial(data=(3, 4))
    assert outs == [(3, 8)] and args[3:] == [(), (), ()]


def test_outputs_exist_from_bind_and_simple_bind_keeps_declared_dtypes():
    # MXNet 1.9.1: Cast of an int32 Variable bound with simple_bind has an int32 argument and
    # a float16 output before any forward; non-shape keywords are ignored
    x = mx.sym.Variable("x", dtype="int32")
    y = mx.sym.Cast(x, dtype="float16")
    exe = y.simple_bind(mx.cpu(), x=(2, 2), mode="ignored")
    assert exe.arg_arrays[0].dtype == np.int32
    assert exe.outputs[0].dtype == np.float16 and exe.outputs[0].shape == (2, 2)
    exe2 = y.bind(mx.cpu(), {"x": mx.nd.ones((2, 2), dtype="int32")})
    assert [o.dtype for o in exe2.outputs] == [np.float16]
    exe2.forward()
    np.testing.assert_array_equal(exe2.outputs[0].asnumpy(), np.ones((2, 2), np.float16))


def test_backward_needs_no_head_for_zero_gradient_outputs():
    # MXNet 1.9.1: a comparison's gradient is zero, so backward() needs no head gradient; an
    # integer output (shape_array) ignores the head it is given, whatever its shape
    x, y = mx.sym.var("x"), mx.sym.var("y")
    exe = (x == y).simple_bind(mx.cpu(), x=(2, 3), y=(2, 3))
    exe.forward(is_train=True, x=np.ones((2, 3)), y=np.zeros((2, 3)))
    exe.backward()
    np.testing.assert_array_equal(exe.grad_dict["x"].asnumpy(), np.zeros((2, 3)))
    xa, xg = mx.nd.ones((2, 3)), mx.nd.ones((2, 3))
    exe = mx.sym.shape_array(x).bind(mx.cpu(), args={"x": xa}, args_grad={"x": xg})
    exe.forward(is_train=True)
    exe.backward([mx.nd.ones((2, 3))])
    np.testing.assert_array_equal(exe.outputs[0].asnumpy(), [2, 3])
    np.testing.assert_array_equal(xg.asnumpy(), np.zeros((2, 3)))


@pytest.mark.parametrize("name, needs_head", [
    ("floor", False), ("round", False), ("argsort", False), ("logical_not", False),
    ("zeros_like", False), ("size_array", False), ("sign", True), ("relu", True)])
def test_which_outputs_need_a_head_gradient(name, needs_head):
    # checked on MXNet 1.9.1: backward() without a head passes for zero-gradient operators
    exe = getattr(mx.sym, name)(mx.sym.var("x")).simple_bind(mx.cpu(), x=(2, 3))
    exe.forward(is_train=True)
    if needs_head:
        with pytest.raises(mx.base.MXNetError, match="head_gradient is required"):
            exe.backward()
    else:
        exe.backward()
        np.testing.assert_array_equal(exe.grad_dict["x"].asnumpy(), np.zeros((2, 3)))


@pytest.mark.parametrize("target, keep_highest, match", [
    ((7, 0), False, r"cannot reshape array of shape \(2, 3, 5, 5\) to target_shape \(7, 0\)"),
    ((0, 0), False, "may have one 0 only"),
    ((10, 16), False, "cannot reshape")])
def test_reshape_target_shape_that_does_not_fit_raises(target, keep_highest, match):
    # MXNet 1.9.1 truncates ((7, 0) of 150 elements is (7, 21)); xnd raises (docs/porting.md)
    with pytest.raises(mx.base.MXNetError, match=match):
        mx.nd.Reshape(mx.nd.zeros((2, 3, 5, 5)), target_shape=target, keep_highest=keep_highest)
