"""Replay tests/nd_cases.py on xnd and compare with the MXNet 1.9.1 goldens.

The goldens (tests/goldens/nd_cases.json + .npz) are produced by
``/work/mxref/bin/python tests/make_goldens.py`` on real MXNet; this file
needs only xnd.  Rules:

* arrays: same class (NDArray vs numpy.ndarray), dtype name, shape; values
  bit-exact for integer/bool dtypes and for cases whose name starts with one
  of ``nd_cases.EXACT_PREFIXES``, otherwise ``assert_allclose(rtol=1e-6,
  atol=1e-7)`` (float16: 1e-3; a few documented ``TOLERANCES``) with NaN
  positions equal;
* str: identical text;  scalars: same type name and value;
  lists/tuples: same container type, length, and element-wise;
* errors: xnd must raise too.  MXNet's ``MXNetError`` must be matched by
  ``xnd.base.MXNetError`` or a subclass; a built-in exception (TypeError,
  ValueError, IndexError, AttributeError, ...) by an instance of that
  built-in class.  For AttributeError the missing name must also agree.

Cases on which MXNet fails but that xnd deliberately extends are compared with
the hand-written values in ``EXTENSIONS`` instead of the golden.
"""

import builtins
import importlib.util
import json
import os
import re
import warnings

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN_JSON = os.path.join(HERE, "goldens", "nd_cases.json")
GOLDEN_NPZ = os.path.join(HERE, "goldens", "nd_cases.npz")

try:
    import xnd as mx
    _IMPORT_ERROR = None
except Exception as _e:  # noqa: BLE001 - report on every test instead of a collection error
    mx = None
    _IMPORT_ERROR = _e


def _load_cases():
    spec = importlib.util.spec_from_file_location(
        "_xnd_nd_cases", os.path.join(HERE, "nd_cases.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


nd_cases = _load_cases()
CASES = nd_cases.CASES

with open(GOLDEN_JSON) as _f:
    GOLDEN = json.load(_f)["cases"]
_NPZ = np.load(GOLDEN_NPZ, allow_pickle=False)


# ---------------------------------------------------------------------------
# hand-written expectations for deliberate extensions over MXNet 1.9.1
# ---------------------------------------------------------------------------

def A(values, dtype, cls="NDArray"):
    v = np.array(values, dtype=dtype)
    return {"kind": "array", "cls": cls, "dtype": v.dtype.name,
            "shape": list(v.shape), "value": v}


def S(type_name, value):
    return {"kind": "scalar", "type": type_name, "value": value}


def L(*items, container="list"):
    return {"kind": "list", "container": container, "items": list(items)}


def T(text):
    return {"kind": "str", "text": text}


EXTENSIONS = {
    # `x // y`: MXNet has no __floordiv__ (TypeError).  xnd: floor division,
    # result keeps the array dtype like MXNet's `%` family.
    # [7, -7, 5.5] // [2, 2, -2]
    "case_op_floordiv_ext": A([3, -4, -3], "float32"),
    # int32 [7, -7, 5] // 2 (floor, not truncation)
    "case_op_floordiv_int32_scalar_ext": A([3, -4, 2], "int32"),
    # `x @ y`: MXNet has no __matmul__ (TypeError).  xnd: nd.dot for 2-D.
    "case_dot_matmul_operator_ext": A([[10, 13], [28, 40]], "float32"),
    # float(x) / int(x) on a size-1 array: MXNet TypeError.  xnd: Python
    # float / int (int truncates like int(3.7)).
    "case_op_float_builtin_ext": S("float", 2.5),
    "case_op_int_builtin_ext": S("int", 3),
    # np.array(x) / np.asarray(x): MXNet builds a 32-deep object array of
    # NDArrays.  xnd: numeric numpy array with x's dtype (__array__).
    "case_op_np_array_of_nd_ext": A([[1, 2], [3, 4]], "float32", cls="ndarray"),
    "case_op_np_asarray_of_nd_int32_ext": A([1, 2], "int32", cls="ndarray"),
    # nd.add(x, y, out=z): MXNet TypeError (no `out`).  xnd: writes into z
    # and returns z itself.
    "case_fn_add_out_ext": L(A([4, 6], "float32"), A([4, 6], "float32"),
                             S("bool", True)),
    # mx.default_context(): missing in MXNet 1.9.1 (AttributeError).  xnd:
    # alias of mx.current_context() -> cpu(0).
    "case_prop_default_context_ext": T("cpu(0)"),
}


# Per-case (rtol, atol) overrides: where MXNet's own kernel is less accurate than float32
# rounding, so a correct result cannot meet 1e-6, or where the case wants MXNet's digits.
TOLERANCES = {
    # MXNet CPU log_softmax gives log(1/3) = -1.09861 (float32 exact:
    # -1.0986123), a 2e-6 relative error.
    "case_log_softmax_default": (1e-5, 1e-6),
    # tighter than the default: within 1-2 ulps of MXNet's libm (glibc's expm1f is itself 1 ulp
    # off the correctly rounded value on 12% of these points); XLA's own float32 expm1 was
    # up to 5 ulps off
    "case_unary_libm_rounding": (2.5e-7, 0.0),
}


# ---------------------------------------------------------------------------
# encoding of xnd results (mirrors tests/make_goldens.py, values inline)
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
        if not isinstance(v, np.ndarray):
            raise AssertionError("asnumpy() returned %r, not numpy.ndarray"
                                 % type(v))
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
    if isinstance(obj, (list, tuple)):
        return {"kind": "list", "container": type(obj).__name__,
                "items": [_encode(e) for e in obj]}
    raise AssertionError("case returned unsupported type %r" % type(obj))


def _resolve(entry):
    """Golden entry -> spec with array values loaded from the npz."""
    if entry["kind"] == "array":
        out = dict(entry)
        out["value"] = _NPZ[entry["npz"]] if entry.get("npz") else None
        return out
    if entry["kind"] == "list":
        out = dict(entry)
        out["items"] = [_resolve(e) for e in entry["items"]]
        return out
    return entry


def _describe(spec):
    k = spec["kind"]
    if k == "array":
        return "%s %s%s" % (spec["cls"], spec["dtype"], tuple(spec["shape"]))
    if k == "list":
        return "%s of %d" % (spec["container"], len(spec["items"]))
    if k == "scalar":
        return "%s %r" % (spec["type"], spec["value"])
    if k == "str":
        return "str %r" % spec["text"][:80]
    return "error %s: %s" % (spec["cls"], spec["message"][:120])


# ---------------------------------------------------------------------------
# comparison
# ---------------------------------------------------------------------------

def _compare_arrays(exp, got, where, exact, tol=None):
    assert got["cls"] == exp["cls"], "%s: class %s, expected %s" % (
        where, got["cls"], exp["cls"])
    assert got["dtype"] == exp["dtype"], "%s: dtype %s, expected %s" % (
        where, got["dtype"], exp["dtype"])
    assert list(got["shape"]) == list(exp["shape"]), "%s: shape %s, expected %s" % (
        where, tuple(got["shape"]), tuple(exp["shape"]))
    ev, gv = exp["value"], np.asarray(got["value"])
    if ev is None:  # object array in the golden (only reached via extensions)
        return
    msg = "%s: values differ" % where
    if exact or ev.dtype.kind not in "fc":
        np.testing.assert_array_equal(gv, ev, err_msg=msg)
    else:
        if tol is not None:
            tol, atol = tol
        elif ev.dtype == np.float16:
            tol, atol = 1e-3, 1e-3
        else:
            tol, atol = 1e-6, 1e-7
        np.testing.assert_allclose(gv.astype(np.float64), ev.astype(np.float64),
                                   rtol=tol, atol=atol, equal_nan=True,
                                   err_msg=msg)


def _compare_scalars(exp, got, where):
    assert got["type"] == exp["type"], "%s: scalar type %s, expected %s (value %r)" % (
        where, got["type"], exp["type"], got["value"])
    ev, gv = exp["value"], got["value"]
    if isinstance(ev, float) and isinstance(gv, (int, float)):
        if np.isnan(ev):
            assert np.isnan(gv), "%s: %r, expected nan" % (where, gv)
        else:
            np.testing.assert_allclose(gv, ev, rtol=1e-6, atol=1e-7,
                                       err_msg=where)
    else:
        assert gv == ev, "%s: value %r, expected %r" % (where, gv, ev)


def _compare(exp, got, where, exact, tol=None):
    assert got["kind"] == exp["kind"], "%s: got %s, expected %s" % (
        where, _describe(got), _describe(exp))
    k = exp["kind"]
    if k == "array":
        _compare_arrays(exp, got, where, exact, tol)
    elif k == "str":
        assert got["text"] == exp["text"], "%s: text differs\n got: %r\nwant: %r" % (
            where, got["text"], exp["text"])
    elif k == "scalar":
        _compare_scalars(exp, got, where)
    elif k == "list":
        assert got["container"] == exp["container"], "%s: %s, expected %s" % (
            where, got["container"], exp["container"])
        assert len(got["items"]) == len(exp["items"]), "%s: %d items, expected %d" % (
            where, len(got["items"]), len(exp["items"]))
        for i, (e, g) in enumerate(zip(exp["items"], got["items"])):
            _compare(e, g, "%s[%d]" % (where, i), exact, tol)
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
    if exp["builtin"] == "AttributeError":
        names = re.findall(r"'([^']+)'", exp["message"])
        if names:
            assert "'%s'" % names[-1] in str(err), (
                "%s: AttributeError should be about %r, got: %s"
                % (where, names[-1], err))


# ---------------------------------------------------------------------------
# tests
# ---------------------------------------------------------------------------

def test_goldens_match_case_table():
    """tests/goldens is regenerated whenever nd_cases.py changes."""
    missing = sorted(set(CASES) - set(GOLDEN))
    stale = sorted(set(GOLDEN) - set(CASES))
    assert not missing and not stale, (
        "goldens out of date; run /work/mxref/bin/python tests/make_goldens.py\n"
        "cases without golden: %s\ngoldens without case: %s" % (missing, stale))


def test_extensions_only_override_mxnet_failures():
    for name in EXTENSIONS:
        assert name in GOLDEN, name
        g = GOLDEN[name]
        # MXNet either raised, or (np.array(x)) produced an object array.
        assert g["kind"] == "error" or (g["kind"] == "array"
                                        and g["dtype"] == "object"), name


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_nd_case(name):
    if _IMPORT_ERROR is not None:
        pytest.fail("import xnd failed: %r" % (_IMPORT_ERROR,))
    if name not in CASES:
        pytest.fail("golden %s has no case in nd_cases.py (regenerate goldens)" % name)
    exp = EXTENSIONS[name] if name in EXTENSIONS else _resolve(GOLDEN[name])
    exact = name.startswith(nd_cases.EXACT_PREFIXES)
    fn = CASES[name]
    nd = mx.nd
    err = None
    got = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            got = _encode(fn(mx, nd, np))
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
    _compare(exp, got, name, exact, TOLERANCES.get(name))
