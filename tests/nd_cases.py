"""Golden cases for the legacy NDArray API (``mx.nd``).

Every ``case_*`` function takes ``(mx, nd, np)`` -- the mxnet-like module,
its ``nd`` namespace and NumPy -- uses only the public MXNet 1.9.1 API and
returns one of:

* an NDArray (or a NumPy array),
* a list/tuple of NDArrays, Python scalars, strings, nested lists/tuples,
* a Python or NumPy scalar (or None),
* a str (``repr``/``str``/printed text),

or raises.  ``tests/make_goldens.py`` runs every case on real MXNet 1.9.1 and
records the outcome in ``tests/goldens/``; ``tests/test_nd_cases.py`` replays
the cases on xnd and compares.

Inputs are deterministic: literals, ``nd.arange``/``nd.array`` and
``np.random.RandomState(seed)`` data converted with ``nd.array`` (never
``nd.random``).  ``CASES`` is built at the bottom by scanning the module for
``case_`` names, in definition order.
"""

import contextlib
import io
import pickle

# Float results of cases whose names start with one of these prefixes are
# exact by construction (creation, indexing, views, shape ops ...): the test
# compares them bit-exactly instead of with a tolerance.
EXACT_PREFIXES = (
    "case_array_", "case_create_", "case_zeros", "case_ones", "case_full",
    "case_empty", "case_eye", "case_concat", "case_stack", "case_reshape",
    "case_expand", "case_squeeze", "case_flatten", "case_transpose",
    "case_swapaxes", "case_broadcast_to", "case_broadcast_like",
    "case_broadcast_axis", "case_tile", "case_repeat", "case_flip",
    "case_split", "case_slice", "case_take", "case_pick", "case_one_hot",
    "case_index_", "case_setitem_", "case_view_", "case_copy", "case_astype",
    "case_cast", "case_diag", "case_where", "case_gather", "case_scatter",
    "case_prop_", "case_inplace_", "case_sort", "case_argsort",
    "case_topk", "case_argmax", "case_argmin",
)


def _r(seed, *shape):
    """Deterministic small float data (rounded to 2 decimals) as a NumPy array."""
    import numpy
    return numpy.round(numpy.random.RandomState(seed).uniform(-2, 2, shape), 2)


def _a24(nd):
    return nd.arange(24).reshape((2, 3, 4))


def _a46(nd):
    return nd.arange(24).reshape((4, 6))


def _d32(nd):
    return nd.array([[1, 2], [3, 4], [5, 6]])


def _i32(nd, vals):
    return nd.array(vals, dtype="int32")


def _captured_print(*objs):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        print(*objs)
    return buf.getvalue()


# ---------------------------------------------------------------------------
# 1. creation: nd.array
# ---------------------------------------------------------------------------

def case_array_list_f32(mx, nd, np):
    return nd.array([1, 2, 3])


def case_array_nested_list(mx, nd, np):
    return nd.array([[1, 2], [3, 4]])


def case_array_3d_nested(mx, nd, np):
    return nd.array([[[1, 2]], [[3, 4]], [[5, 6]]])


def case_array_tuple(mx, nd, np):
    return nd.array((1.5, 2.5))


def case_array_bool_list(mx, nd, np):
    return nd.array([True, False, True])


def case_array_python_int_scalar_0d(mx, nd, np):
    return nd.array(5)


def case_array_python_float_scalar_0d_shape(mx, nd, np):
    x = nd.array(2.5)
    return [x.shape, x.size, x.ndim, str(x.dtype)]


def case_array_np_scalar_float64(mx, nd, np):
    return nd.array(np.float64(3.25))


def case_array_empty_list(mx, nd, np):
    return nd.array([])


def case_array_float_values_precision(mx, nd, np):
    return nd.array([0.1, 1e-8, 123456.789, -3.3])


def _make_np_dtype_case(dt):
    def case(mx, nd, np):
        src = np.array([[1, 0, 3], [4, 5, 6]]).astype(dt)
        return nd.array(src)
    return case


for _dt in ("float64", "float32", "float16", "int64", "int32", "int16",
            "int8", "uint8", "bool"):
    globals()["case_array_from_np_" + _dt] = _make_np_dtype_case(_dt)


def _make_np_dtype_keep_case(dt):
    def case(mx, nd, np):
        src = np.array([[1, 0, 3], [4, 5, 6]]).astype(dt)
        return nd.array(src, dtype=src.dtype)
    return case


for _dt in ("float64", "float16", "int64", "int32", "int8", "uint8"):
    globals()["case_array_from_np_keep_" + _dt] = _make_np_dtype_keep_case(_dt)


def _make_dtype_kw_case(dt):
    def case(mx, nd, np):
        return nd.array([0, 1.7, -2.7, 3], dtype=dt)
    return case


for _dt in ("int32", "int64", "int8", "float64", "float16", "float32"):
    globals()["case_array_dtype_kw_" + _dt] = _make_dtype_kw_case(_dt)


def case_array_dtype_uint8_from_list(mx, nd, np):
    return nd.array([0, 1, 255], dtype="uint8")


def case_array_dtype_python_int(mx, nd, np):
    return nd.array([1.7, 2.2], dtype=int)


def case_array_dtype_python_float(mx, nd, np):
    return nd.array([1, 2], dtype=float)


def case_array_dtype_np_class(mx, nd, np):
    return nd.array([1.7, -2.2], dtype=np.int32)


def case_array_dtype_bool(mx, nd, np):
    return nd.array([1, 0, 2], dtype="bool")


def case_array_from_nd_int32_keeps_dtype(mx, nd, np):
    return nd.array(_i32(nd, [1, 2, 3]))


def case_array_from_nd_f16_keeps_dtype(mx, nd, np):
    return nd.array(nd.array([1, 2], dtype="float16"))


def case_array_from_nd_with_dtype(mx, nd, np):
    return nd.array(_i32(nd, [1, 2, 3]), dtype="float64")


def case_array_from_nd_is_copy(mx, nd, np):
    a = nd.array([1, 2, 3])
    b = nd.array(a)
    b[:] = 9
    return [a, b]


def case_array_from_np_is_copy(mx, nd, np):
    src = np.array([1.0, 2.0], dtype="float32")
    a = nd.array(src)
    src[0] = 100
    return a


def case_array_ctx_kw(mx, nd, np):
    x = nd.array([1, 2], ctx=mx.cpu())
    return [x, str(x.context)]


def case_array_ctx_positional(mx, nd, np):
    x = nd.array([1, 2], mx.cpu(0))
    return [x, str(x.context)]


def case_array_ragged_error(mx, nd, np):
    return nd.array([[1, 2], [3]])


def case_array_list_of_nd_error(mx, nd, np):
    return nd.array([nd.ones(2), nd.ones(2)])


def case_array_isinstance(mx, nd, np):
    return isinstance(nd.array([1]), nd.NDArray)


# ---------------------------------------------------------------------------
# 1b. creation: empty/zeros/ones/full/arange/eye/linspace/*_like
# ---------------------------------------------------------------------------

def case_empty_shape_dtype(mx, nd, np):
    x = nd.empty((2, 3))
    return [x.shape, str(x.dtype), str(x.context)]


def case_empty_int_shape(mx, nd, np):
    x = nd.empty(3)
    return [x.shape, str(x.dtype)]


def case_empty_dtype_int32(mx, nd, np):
    x = nd.empty((2,), dtype="int32")
    return [x.shape, str(x.dtype)]


def case_empty_positional_ctx(mx, nd, np):
    x = nd.empty((1, 2), mx.cpu())
    return [x.shape, str(x.context)]


def case_zeros_tuple(mx, nd, np):
    return nd.zeros((2, 3))


def case_zeros_int_shape(mx, nd, np):
    return nd.zeros(4)


def case_zeros_dtype_int32(mx, nd, np):
    return nd.zeros((2,), dtype="int32")


def case_zeros_dtype_float16(mx, nd, np):
    return nd.zeros((2, 1), dtype=np.float16)


def case_zeros_positional_ctx(mx, nd, np):
    x = nd.zeros((2,), mx.cpu())
    return [x, str(x.context)]


def case_zeros_zero_size_error(mx, nd, np):
    return nd.zeros((0, 3))


def case_zeros_list_shape(mx, nd, np):
    return nd.zeros([2, 2])


def case_ones_basic(mx, nd, np):
    return nd.ones((2, 2))


def case_ones_uint8(mx, nd, np):
    return nd.ones(3, dtype="uint8")


def case_ones_positional_ctx(mx, nd, np):
    return nd.ones((1, 2), mx.cpu(0))


def case_ones_bad_dtype_error(mx, nd, np):
    return nd.zeros(2, dtype="flot32")


def case_full_float(mx, nd, np):
    return nd.full((2, 2), 5)


def case_full_fraction_int32(mx, nd, np):
    return nd.full((2,), 3.7, dtype="int32")


def case_full_positional_ctx(mx, nd, np):
    return nd.full((2,), 1.5, mx.cpu())


def case_full_negative_uint8(mx, nd, np):
    return nd.full((2,), -1, dtype="uint8")


def case_full_nan(mx, nd, np):
    return nd.full((3,), float("nan"))


def case_full_int_shape(mx, nd, np):
    return nd.full(3, 2.5)


def case_full_like_missing(mx, nd, np):
    return nd.full_like(nd.ones(2), 3)


def case_create_arange_stop(mx, nd, np):
    return nd.arange(5)


def case_create_arange_start_stop(mx, nd, np):
    return nd.arange(2, 8)


def case_create_arange_float_step(mx, nd, np):
    return nd.arange(0, 1, 0.3)


def case_create_arange_repeat(mx, nd, np):
    return nd.arange(0, 3, repeat=2)


def case_create_arange_int32(mx, nd, np):
    return nd.arange(5, dtype="int32")


def case_create_arange_negative_step(mx, nd, np):
    return nd.arange(10, 0, -3)


def case_create_arange_float_stop(mx, nd, np):
    return nd.arange(2.5)


def case_create_arange_kwargs_float64(mx, nd, np):
    return nd.arange(start=1, stop=4, step=0.5, dtype="float64")


def case_create_arange_empty_error(mx, nd, np):
    return nd.arange(3, 3)


def case_create_arange_int_fraction_step(mx, nd, np):
    return nd.arange(0, 5, 1.5, dtype="int32")


def case_create_eye_square(mx, nd, np):
    return nd.eye(3)


def case_create_eye_rect(mx, nd, np):
    return nd.eye(2, 3)


def case_create_eye_k1(mx, nd, np):
    return nd.eye(3, k=1)


def case_create_eye_k_neg_rect(mx, nd, np):
    return nd.eye(3, 4, -1)


def case_create_eye_int32(mx, nd, np):
    return nd.eye(2, dtype="int32")


def case_create_linspace(mx, nd, np):
    return nd.linspace(0, 1, 5)


def case_create_linspace_no_endpoint(mx, nd, np):
    return nd.linspace(0, 1, 4, endpoint=False)


def case_create_linspace_int32(mx, nd, np):
    return nd.linspace(0, 10, 4, dtype="int32")


def case_create_zeros_like_int32(mx, nd, np):
    return nd.zeros_like(_i32(nd, [[1, 2, 3]]))


def case_create_ones_like_f16(mx, nd, np):
    return nd.ones_like(nd.array([1, 2], dtype="float16"))


def case_create_zeros_like_method(mx, nd, np):
    return nd.array([[1, 2]]).zeros_like()


def case_create_ones_like_method(mx, nd, np):
    return _i32(nd, [5, 6]).ones_like()


def case_create_identity_op(mx, nd, np):
    a = nd.array([1, 2])
    b = nd.identity(a)
    b[:] = 0
    return [a, b]


def case_concat_default_dim1(mx, nd, np):
    return nd.concat(nd.ones((2, 1)), nd.zeros((2, 2)))


def case_concat_dim0(mx, nd, np):
    return nd.concat(nd.ones((1, 2)), nd.zeros((2, 2)), dim=0)


def case_concat_three_1d(mx, nd, np):
    return nd.concat(nd.array([1]), nd.array([2, 3]), nd.array([4]), dim=0)


def case_concat_Concat_alias(mx, nd, np):
    return nd.Concat(nd.ones((2, 1)), nd.zeros((2, 1)), dim=1)


def case_concat_int32(mx, nd, np):
    return nd.concat(_i32(nd, [[1]]), _i32(nd, [[2]]))


def case_concat_mismatch_error(mx, nd, np):
    return nd.concat(nd.ones((2, 1)), nd.zeros((3, 1)), dim=1)


def case_concat_mixed_dtype_error(mx, nd, np):
    return nd.concat(nd.ones((2, 1)), nd.zeros((2, 1), dtype="int32"))


def case_concat_concatenate_legacy(mx, nd, np):
    return nd.concatenate([nd.ones((1, 2)), nd.zeros((1, 2))])


def case_stack_default_axis0(mx, nd, np):
    return nd.stack(nd.array([1, 2]), nd.array([3, 4]))


def case_stack_axis1(mx, nd, np):
    return nd.stack(nd.array([1, 2]), nd.array([3, 4]), axis=1)


def case_stack_axis_neg(mx, nd, np):
    return nd.stack(nd.ones((2, 2)), nd.zeros((2, 2)), axis=-1)


def case_stack_mismatch_error(mx, nd, np):
    return nd.stack(nd.ones(2), nd.ones(3))


# ---------------------------------------------------------------------------
# 2. properties, contexts, conversions
# ---------------------------------------------------------------------------

def case_prop_shape_size_ndim(mx, nd, np):
    x = _a24(nd)
    return [x.shape, x.size, x.ndim]


def case_prop_shape_is_tuple(mx, nd, np):
    return type(nd.ones((2, 3)).shape).__name__


def case_prop_dtype_str(mx, nd, np):
    return str(nd.ones(2).dtype)


def case_prop_dtype_is_numpy_class(mx, nd, np):
    x = nd.ones(2, dtype="int32")
    return [x.dtype is np.int32, x.dtype == np.int32, x.dtype.__name__]


def case_prop_dtype_str_each(mx, nd, np):
    return [str(nd.zeros(1, dtype=d).dtype)
            for d in ("float16", "float64", "int8", "uint8", "int32", "int64")]


def case_prop_context_str(mx, nd, np):
    x = nd.ones(2)
    return [str(x.context), repr(x.context), str(x.ctx), x.ctx == x.context]


def case_prop_context_eq_cpu(mx, nd, np):
    return [nd.ones(1).context == mx.cpu(), mx.cpu() == mx.cpu(0),
            mx.cpu(1) == mx.cpu(0), str(mx.cpu(1))]


def case_prop_context_attrs(mx, nd, np):
    c = nd.ones(1).context
    return [c.device_type, c.device_id]


def case_prop_current_context(mx, nd, np):
    return [str(mx.current_context()), str(mx.context.current_context())]


def case_prop_with_context_changes_default(mx, nd, np):
    with mx.Context("cpu", 1):
        x = nd.zeros(1)
        inner = str(mx.current_context())
    return [str(x.context), inner, str(mx.current_context())]


def case_prop_default_context_ext(mx, nd, np):
    return str(mx.default_context())


def case_prop_stype(mx, nd, np):
    return nd.ones(2).stype


def case_prop_T_2d(mx, nd, np):
    return nd.arange(6).reshape((2, 3)).T


def case_prop_T_3d(mx, nd, np):
    return _a24(nd).T


def case_prop_T_1d(mx, nd, np):
    return nd.arange(3).T


def case_prop_writable(mx, nd, np):
    return nd.ones(2).writable


def case_prop_len(mx, nd, np):
    return [len(nd.ones((4, 2))), len(nd.ones(3))]


def case_prop_len_0d_error(mx, nd, np):
    return len(nd.array(5))


def case_prop_iter_rows(mx, nd, np):
    return list(iter(nd.arange(6).reshape((3, 2))))


def case_prop_iter_1d(mx, nd, np):
    return [r for r in nd.arange(3)]


def case_prop_bool_single_zero(mx, nd, np):
    return bool(nd.array([0]))


def case_prop_bool_single_nonzero(mx, nd, np):
    return bool(nd.array([2]))


def case_prop_bool_empty(mx, nd, np):
    return bool(nd.array([]))


def case_prop_bool_ambiguous_error(mx, nd, np):
    return bool(nd.ones(2))


def case_prop_bool_2d_single(mx, nd, np):
    return bool(nd.ones((1, 1)))


def case_prop_pickle_roundtrip(mx, nd, np):
    x = _i32(nd, [[1, 2], [3, 4]])
    y = pickle.loads(pickle.dumps(x))
    return [y, type(y).__name__]


def case_prop_wait_to_read_returns_none(mx, nd, np):
    return nd.ones(1).wait_to_read()


def case_prop_waitall_returns_none(mx, nd, np):
    return nd.waitall()


# ---------------------------------------------------------------------------
# 3. repr / str / print
# ---------------------------------------------------------------------------

def case_repr_1d_f32(mx, nd, np):
    return repr(nd.array([1, 2.5, -3]))


def case_repr_2d_f32(mx, nd, np):
    return repr(nd.arange(6).reshape((2, 3)))


def case_repr_3d_f32(mx, nd, np):
    return repr(_a24(nd))


def case_repr_int32(mx, nd, np):
    return repr(_i32(nd, [1, -2, 3]))


def case_repr_int64(mx, nd, np):
    return repr(nd.array([[1, 2]], dtype="int64"))


def case_repr_uint8(mx, nd, np):
    return repr(nd.array([0, 255], dtype="uint8"))


def case_repr_bool(mx, nd, np):
    return repr(nd.array([1, 0], dtype="bool"))


def case_repr_float16(mx, nd, np):
    return repr(nd.array([0.5, 1.25, -2], dtype="float16"))


def case_repr_float64(mx, nd, np):
    return repr(nd.array([0.1, 2.0], dtype="float64"))


def case_repr_0d(mx, nd, np):
    return repr(nd.array(5))


def case_repr_large_1d(mx, nd, np):
    return repr(nd.arange(2000))


def case_repr_large_2d(mx, nd, np):
    return repr(nd.arange(3000).reshape((3, 1000)))


def case_repr_list_of_arrays(mx, nd, np):
    return repr([nd.array([1]), nd.array([2, 3])])


def case_repr_nan_inf(mx, nd, np):
    return repr(nd.array([1, 0, -1]) / 0)


def case_repr_zero_size(mx, nd, np):
    return repr(nd.arange(6).reshape((2, 3))[5:])


def case_repr_empty_1d(mx, nd, np):
    return repr(nd.array([]))


def case_repr_small_floats(mx, nd, np):
    return repr(nd.array([1e-5, 1.0, 1000.5]))


def case_repr_negative_2d(mx, nd, np):
    return repr(nd.array([[-1.5, 2], [3, -4.25]]))


def case_str_equals_repr(mx, nd, np):
    x = nd.array([[1, 2]])
    return [str(x), str(x) == repr(x)]


def case_str_print_captured(mx, nd, np):
    return _captured_print(nd.array([1, 2]))


def case_str_print_int_2d(mx, nd, np):
    return _captured_print(_i32(nd, [[1, 2], [3, 4]]))


def case_str_format_in_fstring(mx, nd, np):
    return "x=%s" % (nd.array([7]),)


# ---------------------------------------------------------------------------
# 4. asnumpy / asscalar / astype / copy
# ---------------------------------------------------------------------------

def case_asnumpy_f32(mx, nd, np):
    return nd.array([[1, 2]]).asnumpy()


def case_asnumpy_int32(mx, nd, np):
    return _i32(nd, [1, 2]).asnumpy()


def case_asnumpy_type_name(mx, nd, np):
    return type(nd.ones(2).asnumpy()).__name__


def case_asnumpy_is_copy(mx, nd, np):
    x = nd.array([1, 2])
    a = x.asnumpy()
    a[0] = 9
    return x


def case_asnumpy_0d(mx, nd, np):
    return nd.array(3.5).asnumpy()


def case_asscalar_f32(mx, nd, np):
    return nd.array([3.5]).asscalar()


def case_asscalar_int32(mx, nd, np):
    return _i32(nd, [7]).asscalar()


def case_asscalar_uint8(mx, nd, np):
    return nd.array([200], dtype="uint8").asscalar()


def case_asscalar_float64(mx, nd, np):
    return nd.array([0.1], dtype="float64").asscalar()


def case_asscalar_size2_error(mx, nd, np):
    return nd.array([1, 2]).asscalar()


def case_asscalar_empty_error(mx, nd, np):
    return nd.array([]).asscalar()


def case_asscalar_2d_size1(mx, nd, np):
    return nd.ones((1, 1)).asscalar()


def case_asscalar_0d(mx, nd, np):
    return nd.array(4).asscalar()


def case_asscalar_of_sum(mx, nd, np):
    return nd.arange(4).sum().asscalar()


def case_astype_truncate_int32(mx, nd, np):
    return nd.array([1.7, -2.7, 0.5, -0.5]).astype("int32")


def case_astype_uint8_wrap(mx, nd, np):
    return nd.array([-1, 256, 300.7, 3]).astype("uint8")


def case_astype_float16(mx, nd, np):
    return nd.array([1.0001, 65504, 0.1]).astype("float16")


def case_astype_float64(mx, nd, np):
    return nd.array([0.1, 2]).astype("float64")


def case_astype_np_class(mx, nd, np):
    return nd.array([1.5, 2.5]).astype(np.int64)


def case_astype_int_to_float(mx, nd, np):
    return _i32(nd, [1, -2]).astype("float32")


def case_astype_bool(mx, nd, np):
    return nd.array([0, 0.5, -2]).astype("bool")


def case_astype_int8_wrap(mx, nd, np):
    return nd.array([127, 128, -129]).astype("int8")


def case_astype_same_copy_false_is_self(mx, nd, np):
    x = nd.ones(2)
    return [x.astype("float32", copy=False) is x, x.astype("float32") is x]


def case_astype_copy_independent(mx, nd, np):
    x = nd.ones(2)
    y = x.astype("float32")
    y[:] = 5
    return [x, y]


def case_cast_op(mx, nd, np):
    return nd.cast(nd.array([1.9, -1.9]), dtype="int32")


def case_cast_Cast_alias(mx, nd, np):
    return nd.Cast(nd.array([1.9, -1.9]), dtype="float16")


def case_cast_uint8_wrap(mx, nd, np):
    return nd.cast(nd.array([-3, 260]), dtype="uint8")


def case_copy_independent(mx, nd, np):
    x = nd.array([1, 2, 3])
    y = x.copy()
    y[:] = 5
    return [x, y, y is x]


def case_copy_keeps_dtype(mx, nd, np):
    return _i32(nd, [1, 2]).copy()


def case_copyto_ctx_new_object(mx, nd, np):
    x = nd.array([1, 2])
    z = x.copyto(mx.cpu())
    z[:] = 0
    return [x, z, z is x]


def case_copyto_array_returns_target(mx, nd, np):
    x = nd.array([1, 2])
    t = nd.zeros(2)
    r = x.copyto(t)
    return [t, r is t]


def case_copyto_shape_mismatch_error(mx, nd, np):
    return nd.array([1, 2]).copyto(nd.zeros(3))


def case_copyto_dtype_converts(mx, nd, np):
    t = nd.zeros(2, dtype="int32")
    nd.array([1.7, -2.7]).copyto(t)
    return t


def case_copyto_self_returns_false(mx, nd, np):
    x = nd.array([1, 2])
    return x.copyto(x)


def case_copy_as_in_context_same_is_self(mx, nd, np):
    x = nd.ones(2)
    return x.as_in_context(mx.cpu()) is x


def case_copy_as_in_context_cpu1(mx, nd, np):
    y = nd.ones(2).as_in_context(mx.cpu(1))
    return [y, str(y.context)]


def case_copy_cross_cpu_ids_result_ctx(mx, nd, np):
    a = nd.ones(2, ctx=mx.cpu(1))
    b = nd.ones(2, ctx=mx.cpu(0))
    return str((a + b).context)


# ---------------------------------------------------------------------------
# 5. reshape family
# ---------------------------------------------------------------------------

def _reshape_case(shape, reverse=None, src=(2, 3, 4)):
    def case(mx, nd, np):
        x = nd.arange(int(np.prod(src))).reshape(src)
        if reverse is None:
            return x.reshape(shape)
        return x.reshape(shape, reverse=reverse)
    return case


_RESHAPES = {
    "0_m1": (0, -1),
    "0_0_2_2": (0, 0, 2, 2),
    "m1": (-1,),
    "6_m1_0": (6, -1, 0),
    "m2": (-2,),
    "2_m2": (2, -2),
    "m3_4": (-3, 4),
    "2_m3": (2, -3),
    "m4_1_2_m2": (-4, 1, 2, -2),
    "m4_2_m1_m2": (-4, 2, -1, -2),
    "2_m4_m1_3_4": (2, -4, -1, 3, 4),
    "m1_0": (-1, 0),
    "m3_m2": (-3, -2),
    "0_m3": (0, -3),
    "m2_1": (-2, 1),
    "plain_4_6": (4, 6),
    "m1_2_2": (-1, 2, 2),
}
for _n, _s in _RESHAPES.items():
    globals()["case_reshape_code_" + _n] = _reshape_case(_s)

globals()["case_reshape_reverse_m1_0"] = _reshape_case((-1, 0), True, (10, 5, 4))
globals()["case_reshape_noreverse_m1_0_10_5_4"] = _reshape_case((-1, 0), None, (10, 5, 4))
globals()["case_reshape_reverse_0_0_m1"] = _reshape_case((0, 0, -1), True, (2, 3, 4))
globals()["case_reshape_reverse_m1_0_0"] = _reshape_case((-1, 0, 0), True, (2, 3, 4))


def case_reshape_varargs(mx, nd, np):
    return _a24(nd).reshape(4, -1)


def case_reshape_shape_kw(mx, nd, np):
    return _a24(nd).reshape(shape=(4, -1))


def case_reshape_int_arg(mx, nd, np):
    return _a24(nd).reshape(24)


def case_reshape_list_arg(mx, nd, np):
    return _a24(nd).reshape([3, 8])


def case_reshape_op_kw(mx, nd, np):
    return nd.reshape(_a24(nd), shape=(6, 4))


def case_reshape_op_Reshape_alias(mx, nd, np):
    return nd.Reshape(_a24(nd), shape=(0, -1))


def case_reshape_op_reverse(mx, nd, np):
    return nd.reshape(nd.zeros((10, 5, 4)), shape=(-1, 0), reverse=True).shape


def case_reshape_size_mismatch_error(mx, nd, np):
    return _a24(nd).reshape((5,))


def case_reshape_two_m1_error(mx, nd, np):
    return _a24(nd).reshape((-1, -1))


def case_reshape_int32_keeps_dtype(mx, nd, np):
    return _i32(nd, [1, 2, 3, 4]).reshape((2, 2))


def case_reshape_like_method(mx, nd, np):
    return nd.arange(6).reshape_like(nd.zeros((3, 2)))


def case_reshape_like_op(mx, nd, np):
    return nd.reshape_like(nd.arange(6), nd.zeros((2, 3)))


def case_reshape_like_mismatch_error(mx, nd, np):
    return nd.reshape_like(nd.arange(6), nd.zeros((2, 2)))


def case_expand_dims_axis0(mx, nd, np):
    return nd.expand_dims(nd.arange(3), axis=0)


def case_expand_dims_axis_neg(mx, nd, np):
    return nd.expand_dims(nd.arange(6).reshape((2, 3)), axis=-1)


def case_expand_dims_method(mx, nd, np):
    return nd.arange(6).reshape((2, 3)).expand_dims(1)


def case_expand_dims_out_of_range_error(mx, nd, np):
    return nd.expand_dims(nd.arange(3), axis=3)


def case_squeeze_all(mx, nd, np):
    return nd.squeeze(nd.arange(3).reshape((1, 3, 1)))


def case_squeeze_axis(mx, nd, np):
    return nd.squeeze(nd.arange(3).reshape((1, 3, 1)), axis=2)


def case_squeeze_all_ones_1d(mx, nd, np):
    return nd.squeeze(nd.ones((1, 1)))


def case_squeeze_method(mx, nd, np):
    return nd.ones((2, 1)).squeeze()


def case_squeeze_non1_axis_error(mx, nd, np):
    return nd.squeeze(nd.ones((2, 1)), axis=0)


def case_flatten_3d(mx, nd, np):
    return nd.flatten(_a24(nd))


def case_flatten_1d(mx, nd, np):
    return nd.flatten(nd.arange(3))


def case_flatten_Flatten_alias(mx, nd, np):
    return nd.Flatten(nd.ones((2, 2, 2)))


def case_flatten_method(mx, nd, np):
    return _a24(nd).flatten()


def case_transpose_default(mx, nd, np):
    return nd.transpose(_a24(nd))


def case_transpose_axes(mx, nd, np):
    return nd.transpose(_a24(nd), axes=(1, 0, 2))


def case_transpose_method_tuple(mx, nd, np):
    return _a24(nd).transpose((2, 0, 1))


def case_transpose_method_varargs_error(mx, nd, np):
    return _a24(nd).transpose(2, 0, 1)


def case_transpose_1d(mx, nd, np):
    return nd.transpose(nd.arange(3))


def case_transpose_bad_axes_error(mx, nd, np):
    return nd.transpose(_a24(nd), axes=(0, 1))


def case_swapaxes_op(mx, nd, np):
    return nd.swapaxes(_a24(nd), 0, 2)


def case_swapaxes_method(mx, nd, np):
    return _a24(nd).swapaxes(1, 2)


def case_swapaxes_SwapAxis_kw(mx, nd, np):
    return nd.SwapAxis(_a24(nd), dim1=0, dim2=1)


def case_broadcast_to_basic(mx, nd, np):
    return nd.broadcast_to(nd.array([[1], [2], [3]]), shape=(3, 4))


def case_broadcast_to_zero_keeps(mx, nd, np):
    return nd.broadcast_to(nd.array([[1], [2], [3]]), shape=(0, 4))


def case_broadcast_to_method(mx, nd, np):
    return nd.array([1, 2, 3]).broadcast_to((2, 3))


def case_broadcast_to_add_leading_error(mx, nd, np):
    return nd.broadcast_to(nd.array([1, 2, 3]), shape=(2, 2, 3))


def case_broadcast_to_incompatible_error(mx, nd, np):
    return nd.broadcast_to(nd.array([[1, 2]]), shape=(2, 3))


def case_broadcast_like_basic(mx, nd, np):
    return nd.broadcast_like(nd.array([[1], [2]]), nd.zeros((2, 3)))


def case_broadcast_like_method(mx, nd, np):
    return nd.array([[1, 2]]).broadcast_like(nd.zeros((3, 2)))


def case_broadcast_like_axes(mx, nd, np):
    return nd.broadcast_like(nd.array([[1], [2]]), nd.zeros((5, 4)),
                             lhs_axes=(1,), rhs_axes=(0,))


def case_broadcast_like_empty_axes_raises(mx, nd, np):
    return nd.broadcast_like(nd.ones((1, 3)), nd.ones((5, 3)), lhs_axes=(), rhs_axes=())


def case_broadcast_like_axis_not_one_raises(mx, nd, np):
    return nd.broadcast_like(nd.ones((2, 3)), nd.ones((5, 3)), lhs_axes=(0,), rhs_axes=(0,))


def case_broadcast_like_axes_sizes_differ_raises(mx, nd, np):
    return nd.broadcast_like(nd.ones((1, 3)), nd.ones((5, 3)), lhs_axes=(0, 1), rhs_axes=(0,))


def case_broadcast_like_bad_axis_raises(mx, nd, np):
    return nd.broadcast_like(nd.ones((1, 3)), nd.ones((5, 3)), lhs_axes=(-5,), rhs_axes=(0,))


def case_broadcast_like_negative_axes(mx, nd, np):
    return nd.broadcast_like(nd.array([[[1, 2]]]), nd.zeros((3, 4, 2)), lhs_axes=(-2, 0),
                             rhs_axes=(1, -3))


def case_broadcast_axis_single(mx, nd, np):
    return nd.broadcast_axis(nd.array([[1], [2], [3]]), axis=1, size=5)


def case_broadcast_axis_multi(mx, nd, np):
    return nd.broadcast_axis(nd.ones((1, 2, 1)), axis=(0, 2), size=(2, 3))


def case_broadcast_axis_axes_alias(mx, nd, np):
    return nd.broadcast_axes(nd.array([[1, 2]]), axis=0, size=3)


def case_broadcast_axis_non1_error(mx, nd, np):
    return nd.broadcast_axis(nd.ones((2, 2)), axis=0, size=3)


def case_tile_reps_short(mx, nd, np):
    return nd.tile(nd.arange(6).reshape((2, 3)), reps=(2,))


def case_tile_reps_2d(mx, nd, np):
    return nd.tile(nd.arange(6).reshape((2, 3)), reps=(2, 1))


def case_tile_reps_longer(mx, nd, np):
    return nd.tile(nd.arange(2).reshape((1, 2)), reps=(2, 2, 2))


def case_tile_method(mx, nd, np):
    return nd.array([1, 2]).tile((3,))


def case_repeat_flat(mx, nd, np):
    return nd.repeat(nd.arange(4).reshape((2, 2)), 2)


def case_repeat_axis0(mx, nd, np):
    return nd.repeat(nd.arange(4).reshape((2, 2)), repeats=2, axis=0)


def case_repeat_axis_neg(mx, nd, np):
    return nd.repeat(nd.arange(4).reshape((2, 2)), repeats=3, axis=-1)


def case_repeat_method(mx, nd, np):
    return nd.array([1, 2]).repeat(2)


def case_flip_axis0(mx, nd, np):
    return nd.flip(nd.arange(6).reshape((2, 3)), axis=0)


def case_flip_axis1(mx, nd, np):
    return nd.flip(nd.arange(6).reshape((2, 3)), axis=1)


def case_flip_reverse_alias(mx, nd, np):
    return nd.reverse(nd.arange(4), axis=0)


def case_flip_axis_tuple(mx, nd, np):
    return nd.flip(nd.arange(6).reshape((2, 3)), axis=(0, 1))


def case_flip_method(mx, nd, np):
    return nd.arange(3).flip(axis=0)


def case_clip_scalars(mx, nd, np):
    return nd.clip(nd.array([-3, -1, 0, 2, 5]), -1, 2)


def case_clip_method(mx, nd, np):
    return nd.array([-3, 0.5, 5]).clip(0, 1)


def case_clip_kw(mx, nd, np):
    return nd.clip(nd.array([-3, 0.5, 5]), a_min=0, a_max=1)


def case_clip_int32_float_bounds(mx, nd, np):
    return nd.clip(_i32(nd, [-3, 0, 5]), -1.5, 2.5)


def case_clip_min_gt_max(mx, nd, np):
    return nd.clip(nd.array([-3, 0.5, 5]), 2, 1)


# ---------------------------------------------------------------------------
# 6. split / slice / slice_axis
# ---------------------------------------------------------------------------

def case_split_default_axis1(mx, nd, np):
    return nd.split(nd.arange(12).reshape((2, 6)), 3)


def case_split_num_outputs_1(mx, nd, np):
    return nd.split(nd.arange(6).reshape((2, 3)), num_outputs=1)


def case_split_num_outputs_1_type(mx, nd, np):
    r = nd.split(nd.arange(6).reshape((2, 3)), num_outputs=1)
    return type(r).__name__


def case_split_squeeze_axis(mx, nd, np):
    return nd.split(nd.arange(6).reshape((2, 3)), num_outputs=2, axis=0,
                    squeeze_axis=True)


def case_split_axis0(mx, nd, np):
    return nd.split(nd.arange(8).reshape((4, 2)), num_outputs=2, axis=0)


def case_split_type_is_list(mx, nd, np):
    return type(nd.split(nd.arange(4).reshape((2, 2)), 2)).__name__


def case_split_uneven_error(mx, nd, np):
    return nd.split(nd.arange(6).reshape((2, 3)), num_outputs=2)


def case_split_SliceChannel_alias(mx, nd, np):
    return nd.SliceChannel(nd.arange(4).reshape((1, 4)), num_outputs=2)


def case_split_method(mx, nd, np):
    return nd.arange(8).reshape((4, 2)).split(num_outputs=2, axis=0)


def case_split_v2_sections(mx, nd, np):
    return nd.split_v2(nd.arange(6), 3)


def case_split_v2_indices(mx, nd, np):
    return nd.split_v2(nd.arange(6), (1, 4))


def case_slice_basic(mx, nd, np):
    return nd.slice(_a46(nd), begin=(1, 2), end=(3, 5))


def case_slice_short_begin(mx, nd, np):
    return nd.slice(_a46(nd), begin=(1,), end=(3,))


def case_slice_none_bounds(mx, nd, np):
    return nd.slice(_a46(nd), begin=(None, 2), end=(None, None))


def case_slice_negative_steps(mx, nd, np):
    return nd.slice(_a46(nd), (None, None), (None, None), step=(-1, -2))


def case_slice_step(mx, nd, np):
    return nd.slice(_a46(nd), begin=(0, 1), end=(4, 6), step=(2, 2))


def case_slice_negative_begin(mx, nd, np):
    return nd.slice(_a46(nd), begin=(-2, -3), end=(None, -1))


def case_slice_method(mx, nd, np):
    return _a46(nd).slice(begin=(1, 0), end=(2, 3))


def case_slice_axis_basic(mx, nd, np):
    return nd.slice_axis(_a46(nd), axis=1, begin=1, end=3)


def case_slice_axis_negative(mx, nd, np):
    return nd.slice_axis(_a46(nd), axis=-1, begin=-3, end=-1)


def case_slice_axis_end_none(mx, nd, np):
    return nd.slice_axis(_a46(nd), axis=0, begin=2, end=None)


def case_slice_axis_method(mx, nd, np):
    return _a46(nd).slice_axis(axis=0, begin=0, end=1)


def case_slice_like(mx, nd, np):
    return nd.slice_like(_a46(nd), nd.zeros((2, 3)))


# ---------------------------------------------------------------------------
# 7. take / pick / one_hot / topk / sort / argmax
# ---------------------------------------------------------------------------

def case_take_basic(mx, nd, np):
    return nd.take(_d32(nd), nd.array([2, 0]))


def case_take_clip(mx, nd, np):
    return nd.take(_d32(nd), nd.array([0, 5, -1]))


def case_take_wrap(mx, nd, np):
    return nd.take(_d32(nd), nd.array([0, 5, -1]), mode="wrap")


def case_take_axis1(mx, nd, np):
    return nd.take(_d32(nd), nd.array([[1, 0]]), axis=1)


def case_take_2d_indices(mx, nd, np):
    return nd.take(_d32(nd), nd.array([[0, 1], [2, 0]]))


def case_take_float_indices(mx, nd, np):
    return nd.take(_d32(nd), nd.array([0.9, 2.1]))


def case_take_1d(mx, nd, np):
    return nd.take(nd.array([10, 20, 30]), nd.array([2, 2, 0]))


def case_take_raise_out_of_range_error(mx, nd, np):
    return nd.take(_d32(nd), nd.array([0, 5]), mode="raise")


def case_take_method(mx, nd, np):
    return _d32(nd).take(nd.array([1]))


def case_take_int32_indices(mx, nd, np):
    return nd.take(_d32(nd), _i32(nd, [1, 1]))


def case_pick_clip(mx, nd, np):
    return nd.pick(_d32(nd), nd.array([0, 1, 5]))


def case_pick_negative_clip(mx, nd, np):
    return nd.pick(_d32(nd), nd.array([0, -1, 3]))


def case_pick_wrap(mx, nd, np):
    return nd.pick(_d32(nd), nd.array([0, -1, 3]), mode="wrap")


def case_pick_axis0(mx, nd, np):
    return nd.pick(_d32(nd), nd.array([0, 2]), axis=0)


def case_pick_keepdims(mx, nd, np):
    return nd.pick(_d32(nd), nd.array([0, 1, 0]), keepdims=True)


def case_pick_float_indices(mx, nd, np):
    return nd.pick(_d32(nd), nd.array([0.9, 1.2, 0.5]))


def case_pick_method(mx, nd, np):
    return _d32(nd).pick(nd.array([1, 0, 1]), axis=1)


def case_one_hot_basic(mx, nd, np):
    return nd.one_hot(nd.array([1, 0, 2]), 3)


def case_one_hot_out_of_range(mx, nd, np):
    return nd.one_hot(nd.array([1, 0, 5, -1]), 3)


def case_one_hot_values_dtype(mx, nd, np):
    return nd.one_hot(nd.array([1, 0]), 3, on_value=5, off_value=-1,
                      dtype="int32")


def case_one_hot_2d_indices(mx, nd, np):
    return nd.one_hot(nd.array([[0, 1], [2, 0]]), depth=3)


def case_one_hot_float_index(mx, nd, np):
    return nd.one_hot(nd.array([1.7, 0.2]), 3)


def case_one_hot_method(mx, nd, np):
    return nd.array([2, 1]).one_hot(3)


def case_topk_default(mx, nd, np):
    return nd.topk(nd.array([[3, 1, 2], [4, 6, 5]]))


def case_topk_k2_indices(mx, nd, np):
    return nd.topk(nd.array([[3, 1, 2], [4, 6, 5]]), k=2)


def case_topk_value(mx, nd, np):
    return nd.topk(nd.array([[3, 1, 2], [4, 6, 5]]), k=2, ret_typ="value")


def case_topk_both(mx, nd, np):
    return nd.topk(nd.array([[3, 1, 2], [4, 6, 5]]), k=2, ret_typ="both")


def case_topk_mask(mx, nd, np):
    return nd.topk(nd.array([[3, 1, 2], [4, 6, 5]]), k=2, ret_typ="mask")


def case_topk_ascend(mx, nd, np):
    return nd.topk(nd.array([3, 1, 2]), k=2, ret_typ="value", is_ascend=True)


def case_topk_axis0(mx, nd, np):
    return nd.topk(nd.array([[3, 1], [4, 0], [2, 9]]), axis=0, k=2)


def case_topk_axis_none(mx, nd, np):
    return nd.topk(nd.array([[3, 1], [4, 0]]), axis=None, k=3)


def case_topk_dtype_int32(mx, nd, np):
    return nd.topk(nd.array([3, 1, 2]), k=2, dtype="int32")


def case_topk_int32_input(mx, nd, np):
    return nd.topk(_i32(nd, [3, 1, 2]), k=1, ret_typ="both")


def case_topk_method(mx, nd, np):
    return nd.array([5, 7, 6]).topk(k=2)


def case_sort_default(mx, nd, np):
    return nd.sort(nd.array([[3, 1, 2], [0, -1, 5]]))


def case_sort_descending(mx, nd, np):
    return nd.sort(nd.array([3, 1, 2]), is_ascend=False)


def case_sort_axis0(mx, nd, np):
    return nd.sort(nd.array([[3, 1], [0, 5]]), axis=0)


def case_sort_axis_none(mx, nd, np):
    return nd.sort(nd.array([[3, 1], [0, 5]]), axis=None)


def case_sort_method_int32(mx, nd, np):
    return _i32(nd, [3, -1, 2]).sort()


def case_argsort_default(mx, nd, np):
    return nd.argsort(nd.array([[3, 1, 2], [0, -1, 5]]))


def case_argsort_descending(mx, nd, np):
    return nd.argsort(nd.array([3, 1, 2]), is_ascend=False)


def case_argsort_dtype_int32(mx, nd, np):
    return nd.argsort(nd.array([3, 1, 2]), dtype="int32")


def case_argsort_method(mx, nd, np):
    return nd.array([2, 0, 1]).argsort()


def case_argmax_axis1(mx, nd, np):
    return nd.argmax(_a24(nd), axis=1)


def case_argmax_no_axis(mx, nd, np):
    return nd.argmax(nd.array([[1, 5], [7, 2]]))


def case_argmax_ties_first(mx, nd, np):
    return nd.argmax(nd.array([[1, 3, 3], [2, 2, 0]]), axis=1)


def case_argmax_keepdims(mx, nd, np):
    return nd.argmax(nd.array([[1, 3], [4, 0]]), axis=0, keepdims=True)


def case_argmax_int32(mx, nd, np):
    return nd.argmax(_i32(nd, [[1, 3], [4, 0]]), axis=1)


def case_argmax_method(mx, nd, np):
    return nd.array([[1, 3], [4, 0]]).argmax(axis=1)


def case_argmin_axis0(mx, nd, np):
    return nd.argmin(nd.array([[1, 3], [0, 4]]), axis=0)


def case_argmin_method(mx, nd, np):
    return nd.array([[1, 3], [0, 4]]).argmin(axis=1)


# ---------------------------------------------------------------------------
# 8. reductions
# ---------------------------------------------------------------------------

def case_sum_all(mx, nd, np):
    return nd.sum(_a24(nd))


def case_sum_method_all(mx, nd, np):
    return _a24(nd).sum()


def case_sum_axis1(mx, nd, np):
    return nd.sum(_a24(nd), axis=1)


def case_sum_axis_neg(mx, nd, np):
    return nd.sum(_a24(nd), axis=-1)


def case_sum_axis_tuple_keepdims(mx, nd, np):
    return nd.sum(_a24(nd), axis=(0, 2), keepdims=True)


def case_sum_exclude(mx, nd, np):
    return nd.sum(_a24(nd), axis=1, exclude=True)


def case_sum_axis_empty_tuple(mx, nd, np):
    return nd.sum(_a24(nd), axis=())


def case_sum_int32(mx, nd, np):
    return nd.sum(_i32(nd, [1, 2, 3]))


def case_sum_float16(mx, nd, np):
    return nd.sum(nd.array([0.5, 1.5, 2], dtype="float16"))


def case_sum_method_axis(mx, nd, np):
    return nd.arange(6).reshape((2, 3)).sum(axis=1)


def case_sum_bad_axis_error(mx, nd, np):
    return nd.sum(nd.ones((2, 2)), axis=3)


def case_sum_unknown_kwarg_error(mx, nd, np):
    return nd.sum(nd.ones((2, 2)), axs=1)


def case_sum_axis_alias(mx, nd, np):
    return nd.sum_axis(nd.arange(6).reshape((2, 3)), axis=0)


def case_mean_exclude_keepdims(mx, nd, np):
    return nd.mean(_a24(nd), axis=0, exclude=True, keepdims=True)


def case_mean_all(mx, nd, np):
    return nd.mean(nd.array([1, 2, 4]))


def case_mean_int32_truncates(mx, nd, np):
    return nd.mean(_i32(nd, [7, -7, 5]))


def case_mean_method_keepdims(mx, nd, np):
    return nd.arange(6).reshape((2, 3)).mean(axis=0, keepdims=True)


def case_max_axis(mx, nd, np):
    return nd.max(nd.array([[1, 5], [7, 2]]), axis=1)


def case_max_all(mx, nd, np):
    return nd.max(nd.array([[1, 5], [7, 2]]))


def case_max_int32(mx, nd, np):
    return nd.max(_i32(nd, [[1, -5], [-7, 2]]), axis=0)


def case_min_exclude(mx, nd, np):
    return nd.min(_a24(nd), axis=(0, 1), exclude=True)


def case_min_method(mx, nd, np):
    return nd.array([[1, 5], [7, 2]]).min(axis=0)


def case_max_method_all(mx, nd, np):
    return nd.array([[1, 5], [7, 2]]).max()


def case_prod_axis(mx, nd, np):
    return nd.prod(nd.array([[1, 2, 3], [4, 5, 6]]), axis=1)


def case_prod_all(mx, nd, np):
    return nd.prod(nd.array([1, 2, 3, 4]))


def case_norm_default(mx, nd, np):
    return nd.norm(nd.array([[3, 4], [0, 0]]))


def case_norm_ord1_axis1(mx, nd, np):
    return nd.norm(nd.array([[3, -4], [1, -1]]), ord=1, axis=1)


def case_norm_axis_keepdims(mx, nd, np):
    return nd.norm(nd.array([[3, 4], [6, 8]]), axis=1, keepdims=True)


def case_norm_method(mx, nd, np):
    return nd.array([3, 4]).norm()


def case_nansum(mx, nd, np):
    return nd.nansum(nd.array([[1, float("nan")], [2, 3]]), axis=1)


def case_nanprod(mx, nd, np):
    return nd.nanprod(nd.array([2, float("nan"), 3]))


def case_sum_with_nan(mx, nd, np):
    return nd.sum(nd.array([1, float("nan")]))


# ---------------------------------------------------------------------------
# 9. elementwise unary math
# ---------------------------------------------------------------------------

_U_VALS = [-2.5, -1.5, -0.5, 0.0, 0.5, 1.5, 2.5, 3.7]
_P_VALS = [0.25, 0.5, 1.0, 2.0, 3.0, 10.0]
_UNIT_VALS = [-0.9, -0.5, 0.0, 0.3, 0.75]


def _unary_case(name, vals):
    def case(mx, nd, np):
        return getattr(nd, name)(nd.array(vals))
    return case


for _n in ("abs", "sign", "round", "rint", "floor", "ceil", "trunc", "fix",
           "relu", "sigmoid", "square", "exp", "expm1", "negative", "sin",
           "cos", "tanh", "arctan", "sinh", "cosh", "arcsinh", "erf",
           "degrees", "radians", "cbrt", "softsign", "tan", "sqrt", "log",
           "reciprocal"):
    globals()["case_unary_" + _n] = _unary_case(_n, _U_VALS)

for _n in ("sqrt", "rsqrt", "log", "log1p", "log2", "log10", "reciprocal",
           "rcbrt", "gamma", "gammaln", "arccosh"):
    globals()["case_unary_pos_" + _n] = _unary_case(_n, _P_VALS)

for _n in ("arcsin", "arccos", "arctanh", "erfinv"):
    globals()["case_unary_unit_" + _n] = _unary_case(_n, _UNIT_VALS)


def _unary_int_case(name):
    def case(mx, nd, np):
        return getattr(nd, name)(_i32(nd, [1, 2, 4, 9]))
    return case


for _n in ("exp", "sqrt", "log", "square", "abs", "negative", "sign", "sigmoid",
           "relu"):
    globals()["case_unary_int32_" + _n] = _unary_int_case(_n)


def case_unary_libm_rounding(mx, nd, np):
    # MXNet's expm1/log1p (and the ELU/SELU built on expm1) are libm's, within 1 ulp
    x = np.linspace(-3, 3, 2001).astype(np.float32)
    a = nd.array(x)
    # (not ELU: MXNet runs it through oneDNN's eltwise kernel, whose digits are its own)
    return [nd.expm1(a), nd.log1p(nd.abs(a)), nd.LeakyReLU(a, act_type="selu")]


def case_unary_abs_uint8(mx, nd, np):
    return nd.abs(nd.array([0, 200], dtype="uint8"))


def case_unary_exp_float64(mx, nd, np):
    return nd.exp(nd.array([0.5, 1.0], dtype="float64"))


def case_unary_method_forms(mx, nd, np):
    x = nd.array([0.25, 1.0, 4.0])
    return [x.exp(), x.log(), x.sqrt(), x.square(), x.sigmoid(), x.relu(),
            x.abs(), x.sign(), x.floor(), x.ceil(), x.round(), x.tanh()]


def case_unary_log_zero_negative(mx, nd, np):
    return nd.log(nd.array([0, -1, 1]))


def case_unary_round_float16(mx, nd, np):
    return nd.round(nd.array([0.5, 1.5, -2.5], dtype="float16"))


def case_smooth_l1_default(mx, nd, np):
    return nd.smooth_l1(nd.array([-2, -0.5, 0, 0.5, 2]))


def case_smooth_l1_scalar2(mx, nd, np):
    return nd.smooth_l1(nd.array([-2, -0.2, 0, 0.2, 2]), scalar=2)


def case_softmax_default(mx, nd, np):
    return nd.softmax(nd.array([[1, 2, 3], [1, 1, 1]]))


def case_softmax_axis0(mx, nd, np):
    return nd.softmax(nd.array([[1, 2], [3, 5]]), axis=0)


def case_softmax_temperature(mx, nd, np):
    return nd.softmax(nd.array([[1, 2, 3]]), temperature=2.0)


def case_softmax_method(mx, nd, np):
    return nd.array([0, 1]).softmax()


def case_log_softmax_default(mx, nd, np):
    return nd.log_softmax(nd.array([[1, 2, 3], [0, 0, 0]]))


def case_log_softmax_axis0(mx, nd, np):
    return nd.log_softmax(nd.array([[1, 2], [3, 5]]), axis=0)


def case_softmin(mx, nd, np):
    return nd.softmin(nd.array([[1, 2, 3]]))


def case_activation_types(mx, nd, np):
    x = nd.array([-2, -0.5, 0, 0.5, 2])
    return [nd.Activation(x, act_type=t)
            for t in ("relu", "sigmoid", "tanh", "softrelu", "softsign")]


def case_leaky_relu_default(mx, nd, np):
    return nd.LeakyReLU(nd.array([-2, -0.5, 0, 0.5, 2]))


def case_leaky_relu_elu(mx, nd, np):
    return nd.LeakyReLU(nd.array([-2, 0, 2]), act_type="elu", slope=1.0)


def case_cumsum(mx, nd, np):
    return nd.cumsum(nd.array([[1, 2], [3, 4]]), axis=1)


def case_cumsum_no_axis(mx, nd, np):
    return nd.cumsum(nd.array([[1, 2], [3, 4]]))


def case_cumsum_int32(mx, nd, np):
    return nd.cumsum(_i32(nd, [1, 2, 3]))


def case_diag_1d_to_2d(mx, nd, np):
    return nd.diag(nd.array([1, 2, 3]))


def case_diag_2d_to_1d(mx, nd, np):
    return nd.diag(nd.arange(9).reshape((3, 3)))


def case_diag_k1(mx, nd, np):
    return nd.diag(nd.arange(9).reshape((3, 3)), k=1)


def case_diag_1d_k_neg(mx, nd, np):
    return nd.diag(nd.array([1, 2]), k=-1)


def case_shape_array(mx, nd, np):
    return nd.shape_array(_a24(nd))


def case_size_array(mx, nd, np):
    return nd.size_array(_a24(nd))


def case_arange_like_contrib(mx, nd, np):
    return nd.contrib.arange_like(nd.zeros((2, 3)))


def case_arange_like_contrib_axis(mx, nd, np):
    return nd.contrib.arange_like(nd.zeros((2, 3)), axis=1, start=1, step=2)


def case_arange_like_nd_missing(mx, nd, np):
    return nd.arange_like(nd.zeros((2, 3)))


def case_where_same_shape(mx, nd, np):
    return nd.where(nd.array([[1, 0], [0, 2]]), nd.ones((2, 2)),
                    nd.zeros((2, 2)))


def case_where_1d_cond_rows(mx, nd, np):
    return nd.where(nd.array([1, 0, 1]), nd.ones((3, 2)), nd.zeros((3, 2)))


def case_where_int32(mx, nd, np):
    return nd.where(_i32(nd, [1, 0]), _i32(nd, [5, 6]), _i32(nd, [7, 8]))


def case_where_float_cond(mx, nd, np):
    return nd.where(nd.array([0.5, -0.1, 0]), nd.array([1, 2, 3]),
                    nd.array([-1, -2, -3]))


def case_where_shape_mismatch_error(mx, nd, np):
    return nd.where(nd.array([1, 0]), nd.ones((3, 2)), nd.zeros((3, 2)))


# ---------------------------------------------------------------------------
# 10. dot / batch_dot / linalg / gather / scatter
# ---------------------------------------------------------------------------

def case_dot_2d(mx, nd, np):
    return nd.dot(nd.arange(6).reshape((2, 3)), nd.arange(6).reshape((3, 2)))


def case_dot_transpose_a(mx, nd, np):
    return nd.dot(nd.arange(6).reshape((3, 2)), nd.arange(6).reshape((3, 2)),
                  transpose_a=True)


def case_dot_transpose_b(mx, nd, np):
    return nd.dot(nd.arange(6).reshape((2, 3)), nd.arange(6).reshape((2, 3)),
                  transpose_b=True)


def case_dot_transpose_both(mx, nd, np):
    return nd.dot(nd.arange(6).reshape((3, 2)), nd.arange(6).reshape((2, 3)),
                  transpose_a=True, transpose_b=True)


def case_dot_1d_1d(mx, nd, np):
    return nd.dot(nd.array([1, 2, 3]), nd.array([4, 5, 6]))


def case_dot_2d_1d(mx, nd, np):
    return nd.dot(nd.arange(6).reshape((2, 3)), nd.array([1, 0, 2]))


def case_dot_nd_2d(mx, nd, np):
    return nd.dot(_a24(nd), nd.arange(8).reshape((4, 2)))


def case_dot_nd_nd(mx, nd, np):
    return nd.dot(nd.arange(12).reshape((2, 3, 2)),
                  nd.arange(12).reshape((2, 3, 2)))


def case_dot_int32_error(mx, nd, np):
    return nd.dot(_i32(nd, [[1, 2]]), _i32(nd, [[1], [2]]))


def case_dot_shape_mismatch_error(mx, nd, np):
    return nd.dot(nd.ones((2, 3)), nd.ones((2, 3)))


def case_dot_float64(mx, nd, np):
    return nd.dot(nd.array([[1, 2]], dtype="float64"),
                  nd.array([[3], [4]], dtype="float64"))


def case_dot_random_values(mx, nd, np):
    return nd.dot(nd.array(_r(1, 3, 4)), nd.array(_r(2, 4, 2)))


def case_dot_matmul_operator_ext(mx, nd, np):
    return nd.arange(6).reshape((2, 3)) @ nd.arange(6).reshape((3, 2))


def case_batch_dot(mx, nd, np):
    return nd.batch_dot(nd.arange(24).reshape((2, 3, 4)),
                        nd.arange(40).reshape((2, 4, 5)))


def case_batch_dot_transpose_b(mx, nd, np):
    return nd.batch_dot(nd.arange(12).reshape((2, 2, 3)),
                        nd.arange(12).reshape((2, 2, 3)), transpose_b=True)


def case_batch_dot_4d(mx, nd, np):
    return nd.batch_dot(nd.arange(36).reshape((3, 2, 3, 2)),
                        nd.arange(36).reshape((3, 2, 2, 3)))


def case_batch_dot_2d_error(mx, nd, np):
    return nd.batch_dot(nd.ones((3, 2)), nd.ones((2, 3)))


def case_batch_dot_mismatch_error(mx, nd, np):
    return nd.batch_dot(nd.ones((2, 2, 3)), nd.ones((3, 3, 2)))


def case_linalg_gemm2(mx, nd, np):
    return nd.linalg.gemm2(nd.array([[1, 2], [3, 4]]), nd.array([[1, 0], [1, 1]]))


def case_linalg_gemm2_alpha_transpose(mx, nd, np):
    return nd.linalg.gemm2(nd.array([[1, 2], [3, 4]]), nd.array([[1, 0], [1, 1]]),
                           transpose_a=True, alpha=2.0)


def case_linalg_gemm2_batched(mx, nd, np):
    return nd.linalg.gemm2(nd.arange(8).reshape((2, 2, 2)),
                           nd.arange(8).reshape((2, 2, 2)))


def case_linalg_gemm(mx, nd, np):
    return nd.linalg.gemm(nd.array([[1, 2]]), nd.array([[3], [4]]),
                          nd.array([[10]]), alpha=2.0, beta=0.5)


def case_linalg_potrf(mx, nd, np):
    return nd.linalg.potrf(nd.array([[4, 2], [2, 3]]))


def case_linalg_trsm(mx, nd, np):
    return nd.linalg.trsm(nd.array([[2, 0], [1, 1]]), nd.array([[2, 4], [3, 5]]))


def case_linalg_syrk(mx, nd, np):
    return nd.linalg.syrk(nd.array([[1, 2], [3, 4]]), alpha=1.0)


def case_linalg_sumlogdiag(mx, nd, np):
    return nd.linalg.sumlogdiag(nd.array([[1, 0], [5, 2]]))


def case_linalg_inverse(mx, nd, np):
    return nd.linalg.inverse(nd.array([[4, 7], [2, 6]]))


def case_linalg_det(mx, nd, np):
    return nd.linalg.det(nd.array([[4, 7], [2, 6]]))


def case_gather_nd_2d(mx, nd, np):
    return nd.gather_nd(_d32(nd), nd.array([[0, 2], [1, 0]]))


def case_gather_nd_rows(mx, nd, np):
    return nd.gather_nd(_d32(nd), nd.array([[2, 0]]))


def case_gather_nd_3d(mx, nd, np):
    return nd.gather_nd(_a24(nd), nd.array([[1, 0], [2, 0]]))


def case_scatter_nd(mx, nd, np):
    return nd.scatter_nd(nd.array([9, 8]), nd.array([[0, 2], [1, 0]]),
                         shape=(3, 2))


def case_scatter_nd_rows(mx, nd, np):
    return nd.scatter_nd(nd.array([[1, 2], [3, 4]]), nd.array([[2, 0]]),
                         shape=(3, 2))


# ---------------------------------------------------------------------------
# 11. arithmetic operators
# ---------------------------------------------------------------------------

def _f(nd):
    return nd.array([[1, -2, 3], [4.5, 0, -6]])


def case_op_add_scalar(mx, nd, np):
    return _f(nd) + 2


def case_op_radd_scalar(mx, nd, np):
    return 2 + _f(nd)


def case_op_sub_scalar(mx, nd, np):
    return _f(nd) - 1.5


def case_op_rsub_scalar(mx, nd, np):
    return 1.5 - _f(nd)


def case_op_mul_scalar(mx, nd, np):
    return _f(nd) * 3


def case_op_rmul_scalar(mx, nd, np):
    return -2 * _f(nd)


def case_op_div_scalar(mx, nd, np):
    return _f(nd) / 4


def case_op_rdiv_scalar(mx, nd, np):
    return 2 / nd.array([1, -4, 0.5])


def case_op_mod_scalar(mx, nd, np):
    return nd.array([7, -7, 5.5, -0.5]) % 3


def case_op_rmod_scalar(mx, nd, np):
    return 7 % nd.array([2, -3, 5])


def case_op_mod_float_negative_divisor(mx, nd, np):
    return nd.array([7, -7]) % -3


def case_op_pow_scalar(mx, nd, np):
    return nd.array([1, 2, 3]) ** 2


def case_op_rpow_scalar(mx, nd, np):
    return 2 ** nd.array([0, 1, 3])


def case_op_pow_arrays(mx, nd, np):
    return nd.array([2, 3]) ** nd.array([3, 0.5])


def case_op_neg(mx, nd, np):
    return -_f(nd)


def case_op_abs_builtin(mx, nd, np):
    return abs(_f(nd))


def case_op_pos_error(mx, nd, np):
    return +_f(nd)


def case_op_add_arrays(mx, nd, np):
    return nd.array([1, 2]) + nd.array([10, 20])


def case_op_sub_arrays(mx, nd, np):
    return nd.array([1, 2]) - nd.array([10, 20])


def case_op_mul_arrays(mx, nd, np):
    return nd.array([1, 2]) * nd.array([10, 20])


def case_op_div_arrays(mx, nd, np):
    return nd.array([1, 2]) / nd.array([10, 20])


def case_op_mod_arrays(mx, nd, np):
    return nd.array([7, -7, 7]) % nd.array([3, 3, -3])


def case_op_broadcast_31_12(mx, nd, np):
    return nd.array([[1], [2], [3]]) + nd.array([[10, 20]])


def case_op_broadcast_31_2(mx, nd, np):
    return nd.array([[1], [2], [3]]) * nd.array([10, 20])


def case_op_broadcast_23_3(mx, nd, np):
    return nd.arange(6).reshape((2, 3)) - nd.array([1, 2, 3])


def case_op_broadcast_mismatch_error(mx, nd, np):
    return nd.ones((2, 3)) + nd.ones((2,))


def case_op_broadcast_div_rows(mx, nd, np):
    return nd.arange(6).reshape((2, 3)) / nd.array([[1], [2]])


def case_op_int32_div_truncates(mx, nd, np):
    return _i32(nd, [7, -7, 5]) / _i32(nd, [2, 2, 2])


def case_op_int32_div_scalar(mx, nd, np):
    return _i32(nd, [7, -7, 5]) / 2


def case_op_int32_mod_scalar(mx, nd, np):
    return _i32(nd, [7, -7, 5]) % 2


def case_op_int32_mod_negative(mx, nd, np):
    return _i32(nd, [7, -7, 5]) % -3


def case_op_int32_mul_float_scalar(mx, nd, np):
    return _i32(nd, [1, 2, 3]) * 1.5


def case_op_int32_add_half(mx, nd, np):
    return _i32(nd, [1, 2, 3]) + 0.5


def case_op_float_times_int32(mx, nd, np):
    return 2.5 * _i32(nd, [1, 2, 3])


def case_op_int32_pow_half(mx, nd, np):
    return _i32(nd, [1, 4, 9]) ** 0.5


def case_op_one_over_int32(mx, nd, np):
    return 1 / _i32(nd, [1, 2, -3])


def case_op_int32_iadd_float(mx, nd, np):
    x = _i32(nd, [1, 2])
    x += 1.5
    return x


def case_op_int32_sub_int32(mx, nd, np):
    return _i32(nd, [1, 2]) - _i32(nd, [5, 5])


def case_op_uint8_wrap_add(mx, nd, np):
    return nd.array([250, 3], dtype="uint8") + 10


def case_op_uint8_neg_wrap(mx, nd, np):
    return -nd.array([3, 0], dtype="uint8")


def case_op_uint8_sub_wrap(mx, nd, np):
    return nd.array([3], dtype="uint8") - nd.array([5], dtype="uint8")


def case_op_int32_plus_f32_error(mx, nd, np):
    return _i32(nd, [1, 2]) + nd.array([1, 2])


def case_op_int32_plus_f32_broadcast_error(mx, nd, np):
    return _i32(nd, [[1, 2]]) + nd.array([[1], [2]])


def case_op_f16_plus_f32_error(mx, nd, np):
    return nd.array([1, 2], dtype="float16") + nd.array([1, 2])


def case_op_f32_div_zero(mx, nd, np):
    return nd.array([1, 0, -1]) / 0


def case_op_f16_arith(mx, nd, np):
    x = nd.array([1, 2.5], dtype="float16")
    return [x + 1, x * x, x / 3]


def case_op_f64_arith(mx, nd, np):
    x = nd.array([1, 2.5], dtype="float64")
    return [x + 0.1, x * x, x / 3]


def case_op_np_scalar_rhs(mx, nd, np):
    return [nd.array([1, 2]) + np.float32(2), nd.array([1, 2]) * np.int64(3)]


def case_op_bool_scalar_rhs(mx, nd, np):
    return nd.array([1, 2]) + True


def case_op_floordiv_ext(mx, nd, np):
    return nd.array([7, -7, 5.5]) // nd.array([2, 2, -2])


def case_op_floordiv_int32_scalar_ext(mx, nd, np):
    return _i32(nd, [7, -7, 5]) // 2


def case_op_float_builtin_ext(mx, nd, np):
    return float(nd.array([2.5]))


def case_op_int_builtin_ext(mx, nd, np):
    return int(nd.array([3.7]))


def case_op_np_array_of_nd_ext(mx, nd, np):
    return np.array(nd.array([[1, 2], [3, 4]]))


def case_op_np_asarray_of_nd_int32_ext(mx, nd, np):
    return np.asarray(_i32(nd, [1, 2]))


def case_op_nd_plus_numpy_error(mx, nd, np):
    return nd.array([1, 2]) + np.array([1, 2])


def case_op_nd_mul_numpy_error(mx, nd, np):
    return nd.array([1, 2]) * np.array([1.0, 2.0])


def case_op_numpy_plus_nd_error(mx, nd, np):
    return np.array([1.0, 2.0]) + nd.array([1, 2])


def case_op_nd_plus_numpy_0d_error(mx, nd, np):
    return nd.array([1, 2]) + np.array(2.0)


def case_op_np_scalar_lhs(mx, nd, np):
    # NumPy scalars on the left must defer to NDArray (result is an NDArray)
    return [np.float32(2) + nd.array([1, 2]), np.float64(2) * nd.array([1, 2])]


def case_op_add_none_error(mx, nd, np):
    return nd.array([1, 2]) + None


def case_op_eq_none_error(mx, nd, np):
    return nd.array([1, 2]) == None  # noqa: E711


def case_op_0d_add_error(mx, nd, np):
    return nd.array(5) + 1


def case_op_0d_exp_error(mx, nd, np):
    return nd.exp(nd.array(5))


def case_op_0d_sum_error(mx, nd, np):
    return nd.array(5).sum()


def case_op_0d_reshape(mx, nd, np):
    return nd.array(5).reshape((1,))


def case_op_zero_size_add_error(mx, nd, np):
    return nd.arange(6).reshape((2, 3))[5:] + 1


# ---------------------------------------------------------------------------
# 12. comparison operators
# ---------------------------------------------------------------------------

def _c(nd):
    return nd.array([1, 2, 3, 2])


def case_cmp_eq_scalar(mx, nd, np):
    return _c(nd) == 2


def case_cmp_ne_scalar(mx, nd, np):
    return _c(nd) != 2


def case_cmp_lt_scalar(mx, nd, np):
    return _c(nd) < 2


def case_cmp_le_scalar(mx, nd, np):
    return _c(nd) <= 2


def case_cmp_gt_scalar(mx, nd, np):
    return _c(nd) > 2


def case_cmp_ge_scalar(mx, nd, np):
    return _c(nd) >= 2


def case_cmp_reflected_scalar(mx, nd, np):
    return [2 < _c(nd), 2 >= _c(nd), 2 == _c(nd)]


def case_cmp_arrays(mx, nd, np):
    a = _c(nd)
    b = nd.array([3, 2, 1, 2])
    return [a == b, a != b, a < b, a <= b, a > b, a >= b]


def case_cmp_broadcast(mx, nd, np):
    return nd.array([[1], [2]]) > nd.array([0, 1, 2])


def case_cmp_int32_dtype(mx, nd, np):
    return _i32(nd, [1, 2, 3]) > 1


def case_cmp_int32_float_scalar(mx, nd, np):
    return _i32(nd, [1, 2, 3]) > 1.5


def case_cmp_uint8_dtype(mx, nd, np):
    return nd.array([1, 200], dtype="uint8") == 200


def case_cmp_nan(mx, nd, np):
    x = nd.array([float("nan"), 1])
    return [x == x, x != x]


def case_cmp_mixed_dtype_error(mx, nd, np):
    return _i32(nd, [1, 2]) == nd.array([1, 2])


# ---------------------------------------------------------------------------
# 13. nd.add-style functions, elemwise_*, broadcast_*
# ---------------------------------------------------------------------------

def _bin_case(name, lhs, rhs):
    def case(mx, nd, np):
        a = nd.array(lhs) if isinstance(lhs, list) else lhs
        b = nd.array(rhs) if isinstance(rhs, list) else rhs
        return getattr(nd, name)(a, b)
    return case


_L = [[1, -2, 3], [0, 5, -6]]
_R_ROW = [[2, 2, -4]]
_R_COL = [[3], [-2]]

for _n in ("add", "subtract", "multiply", "divide", "modulo", "power",
           "maximum", "minimum", "equal", "not_equal", "greater",
           "greater_equal", "lesser", "lesser_equal", "logical_and",
           "logical_or", "logical_xor"):
    globals()["case_fn_%s_broadcast" % _n] = _bin_case(_n, _L, _R_ROW)
    globals()["case_fn_%s_scalar" % _n] = _bin_case(_n, _L, 2)

for _n in ("add", "subtract", "divide", "power", "maximum", "greater"):
    globals()["case_fn_%s_scalar_lhs" % _n] = _bin_case(_n, 2, _L)

for _n in ("add", "sub", "minus", "mul", "div", "mod", "power", "maximum",
           "minimum", "equal", "not_equal", "greater", "greater_equal",
           "lesser", "lesser_equal", "logical_and", "logical_or",
           "logical_xor", "hypot"):
    globals()["case_bcast_%s" % _n] = _bin_case("broadcast_" + _n, _L, _R_COL)

for _n in ("add", "sub", "mul", "div"):
    globals()["case_elemwise_%s" % _n] = _bin_case("elemwise_" + _n, _L,
                                                  [[1, 2, 3], [4, 5, 6]])


def case_fn_add_two_scalars(mx, nd, np):
    return nd.add(1, 2)


def case_fn_logical_not(mx, nd, np):
    return nd.logical_not(nd.array([0, 1, -2]))


def case_fn_maximum_int32(mx, nd, np):
    return nd.maximum(_i32(nd, [1, 5]), 3)


def case_fn_add_out_ext(mx, nd, np):
    z = nd.zeros(2)
    r = nd.add(nd.array([1, 2]), nd.array([3, 4]), out=z)
    return [z, r, r is z]


def case_fn_hypot_missing(mx, nd, np):
    return nd.hypot(nd.array([3]), nd.array([4]))


def case_elemwise_shape_mismatch_error(mx, nd, np):
    return nd.elemwise_add(nd.ones((3, 1)), nd.ones((1, 2)))


def case_elemwise_mixed_dtype_error(mx, nd, np):
    return nd.elemwise_add(nd.ones(2), nd.ones(2, dtype="int32"))


def case_elemwise_add_out_kw(mx, nd, np):
    z = nd.zeros(2)
    r = nd.elemwise_add(nd.array([1, 2]), nd.array([3, 4]), out=z)
    return [z, r is z]


def case_bcast_add_int32(mx, nd, np):
    return nd.broadcast_add(_i32(nd, [[1], [2]]), _i32(nd, [10, 20]))


def case_bcast_mismatch_error(mx, nd, np):
    return nd.broadcast_add(nd.ones((2, 3)), nd.ones((3, 2)))


def case_bcast_div_int32_truncates(mx, nd, np):
    return nd.broadcast_div(_i32(nd, [7, -7]), _i32(nd, [2]))


def case_internal_plus_scalar(mx, nd, np):
    return nd._internal._plus_scalar(nd.array([1, 2]), scalar=2)


def case_internal_rminus_scalar(mx, nd, np):
    return nd._internal._rminus_scalar(nd.array([1, 2]), scalar=10)


def case_plus_scalar_not_in_nd(mx, nd, np):
    return nd._plus_scalar(nd.array([1, 2]), scalar=2)


# ---------------------------------------------------------------------------
# 14. in-place operators and out=
# ---------------------------------------------------------------------------

def case_inplace_iadd_keeps_id(mx, nd, np):
    x = nd.array([1, 2])
    i = id(x)
    x += 1
    return [x, id(x) == i]


def case_inplace_isub_array(mx, nd, np):
    x = nd.array([1, 2])
    i = id(x)
    x -= nd.array([5, 5])
    return [x, id(x) == i]


def case_inplace_imul_keeps_id(mx, nd, np):
    x = nd.array([1, 2])
    i = id(x)
    x *= 3
    return [x, id(x) == i]


def case_inplace_idiv_keeps_id(mx, nd, np):
    x = nd.array([1, 2])
    i = id(x)
    x /= 4
    return [x, id(x) == i]


def case_inplace_imod(mx, nd, np):
    x = nd.array([5, -5])
    x %= 3
    return x


def case_inplace_ipow(mx, nd, np):
    x = nd.array([2, 3])
    x **= 2
    return x


def case_inplace_iadd_broadcast_rhs(mx, nd, np):
    x = nd.zeros((2, 3))
    x += nd.array([1, 2, 3])
    return x


def case_inplace_iadd_grow_lhs_error(mx, nd, np):
    x = nd.zeros((1, 3))
    x += nd.ones((2, 3))
    return x


def case_inplace_alias_sees_update(mx, nd, np):
    x = nd.array([1, 2])
    y = x
    x += 10
    return y


def case_inplace_rebind_new_object(mx, nd, np):
    x = nd.array([1, 2])
    y = x
    x = x + 1
    return [x, y, x is y]


def case_inplace_out_unary_exp(mx, nd, np):
    z = nd.zeros(2)
    r = nd.exp(nd.array([0, 1]), out=z)
    return [z, r is z]


def case_inplace_out_relu_self(mx, nd, np):
    x = nd.array([-1, 2])
    r = nd.relu(x, out=x)
    return [x, r is x]


def case_inplace_out_dot(mx, nd, np):
    z = nd.zeros((1, 1))
    r = nd.dot(nd.array([[1, 2]]), nd.array([[3], [4]]), out=z)
    return [z, r is z]


def case_inplace_out_sum(mx, nd, np):
    z = nd.zeros((2,))
    r = nd.sum(nd.arange(6).reshape((2, 3)), axis=1, out=z)
    return [z, r is z]


def case_inplace_out_wrong_shape_error(mx, nd, np):
    z = nd.zeros(3)
    return nd.elemwise_add(nd.ones(2), nd.ones(2), out=z)


def case_inplace_out_view_writes_base(mx, nd, np):
    a = nd.zeros((3, 2))
    nd.elemwise_add(nd.ones(2), nd.ones(2), out=a[1])
    return a


# ---------------------------------------------------------------------------
# 15. indexing (__getitem__)
# ---------------------------------------------------------------------------

def case_index_tuple_inside_key_is_a_sequence(mx, nd, np):
    x = nd.array(np.arange(4 * 6 * 5 * 5).reshape(4, 6, 5, 5))
    return x[[1, 2], 3:5, (2, 3), [3, 4]]


def case_setitem_value_with_leading_ones(mx, nd, np):
    x = nd.zeros((3, 4, 5, 5), dtype="int32")
    x[:, :, 1, 2] = nd.array(np.arange(4).reshape(1, 1, 1, 4), dtype="int32")
    return x


def case_topk_mask_over_all_axes_keeps_the_shape(mx, nd, np):
    a = nd.array([[3, 1, 2], [6, 5, 4]])
    return [nd.topk(a, axis=None, ret_typ="mask", k=2), nd.topk(a, axis=None, k=2),
            nd.topk(a, axis=None, ret_typ="value", k=2)]


def case_index_int(mx, nd, np):
    return _a46(nd)[1]


def case_index_negative_int(mx, nd, np):
    return _a46(nd)[-1]


def case_index_1d_int(mx, nd, np):
    return nd.arange(5)[2]


def case_index_slice(mx, nd, np):
    return _a46(nd)[1:3]


def case_index_slice_step(mx, nd, np):
    return _a46(nd)[::2]


def case_index_slice_negative_step(mx, nd, np):
    return _a46(nd)[::-1]


def case_index_slice_negative_bounds(mx, nd, np):
    return _a46(nd)[-3:-1, -2:]


def case_index_two_ints(mx, nd, np):
    return _a46(nd)[1, 2]


def case_index_two_ints_shape(mx, nd, np):
    return _a46(nd)[1, 2].shape


def case_index_int_slice(mx, nd, np):
    return _a46(nd)[1, 2:4]


def case_index_slice_int(mx, nd, np):
    return _a46(nd)[:, 1]


def case_index_ellipsis(mx, nd, np):
    return _a24(nd)[..., 1]


def case_index_ellipsis_middle(mx, nd, np):
    return _a24(nd)[1, ..., 2]


def case_index_none(mx, nd, np):
    return nd.arange(3)[None]


def case_index_none_middle(mx, nd, np):
    return _a46(nd)[:, None, 1:3]


def case_index_3d_ints(mx, nd, np):
    return _a24(nd)[1, 2, 3]


def case_index_zero_size_slice(mx, nd, np):
    return _a46(nd)[10:20]


def case_index_out_of_bounds_error(mx, nd, np):
    return _a46(nd)[5]


def case_index_negative_out_of_bounds_error(mx, nd, np):
    return _a46(nd)[-5]


def case_index_too_many_error(mx, nd, np):
    return nd.arange(3)[1, 1]


def case_index_list(mx, nd, np):
    return _a46(nd)[[0, 2]]


def case_index_numpy(mx, nd, np):
    return _a46(nd)[np.array([3, 0])]


def case_index_nd(mx, nd, np):
    return _a46(nd)[nd.array([1, 3])]


def case_index_nd_int32(mx, nd, np):
    return _a46(nd)[_i32(nd, [1, 1])]


def case_index_list_pair(mx, nd, np):
    return _a46(nd)[[0, 1], [1, 2]]


def case_index_colon_list(mx, nd, np):
    return _a46(nd)[:, [0, 2]]


def case_index_list_slice(mx, nd, np):
    return _a46(nd)[[0, 3], 1:3]


def case_index_negative_list(mx, nd, np):
    return _a46(nd)[[-1, 0]]


def case_index_mask_quirk(mx, nd, np):
    a = nd.arange(6).reshape((3, 2))
    return a[a > 2]


def case_index_bool_numpy_mask(mx, nd, np):
    return nd.arange(4)[np.array([True, False, True, False])]


def case_index_step_slices_3d(mx, nd, np):
    return _a24(nd)[:, ::2, 1::2]


def case_index_empty_tuple(mx, nd, np):
    return _a46(nd)[()]


def case_index_slice_object(mx, nd, np):
    return _a46(nd)[slice(1, None, 2)]


def case_index_chained(mx, nd, np):
    return _a46(nd)[1][2:4]


def case_index_int32_array_keeps_dtype(mx, nd, np):
    return _i32(nd, [[1, 2], [3, 4]])[1]


# ---------------------------------------------------------------------------
# 16. __setitem__
# ---------------------------------------------------------------------------

def case_setitem_int_scalar(mx, nd, np):
    a = _a46(nd)
    a[1] = 5
    return a


def case_setitem_column_scalar(mx, nd, np):
    a = _a46(nd)
    a[:, 1] = 0
    return a


def case_setitem_slice_nd(mx, nd, np):
    a = nd.zeros((4, 2))
    a[1:3] = nd.ones((2, 2))
    return a


def case_setitem_all_numpy(mx, nd, np):
    a = nd.zeros((2, 2))
    a[:] = np.array([[1, 2], [3, 4]])
    return a


def case_setitem_broadcast_row(mx, nd, np):
    a = nd.zeros((3, 3))
    a[:] = nd.array([1, 2, 3])
    return a


def case_setitem_row_from_list_nd(mx, nd, np):
    a = nd.zeros((2, 3))
    a[1] = nd.array([7, 8, 9])
    return a


def case_setitem_list_index(mx, nd, np):
    a = _a46(nd)
    a[[0, 2]] = 7
    return a


def case_setitem_nd_index(mx, nd, np):
    a = nd.zeros((4, 2))
    a[nd.array([0, 3])] = 1
    return a


def case_setitem_two_ints(mx, nd, np):
    a = _a46(nd)
    a[1, 2] = 99
    return a


def case_setitem_step_slice(mx, nd, np):
    a = nd.zeros(6)
    a[::2] = 1
    return a


def case_setitem_int32_float_value(mx, nd, np):
    a = _i32(nd, [1, 2, 3])
    a[:] = 3.7
    return a


def case_setitem_int32_from_f32_nd(mx, nd, np):
    a = _i32(nd, [1, 2])
    a[:] = nd.array([1.9, -1.9])
    return a


def case_setitem_uint8_wrap(mx, nd, np):
    a = nd.zeros(2, dtype="uint8")
    a[:] = 300
    return a


def case_setitem_wrong_shape_error(mx, nd, np):
    a = nd.zeros((2, 3))
    a[0] = nd.ones(2)
    return a


def case_setitem_block(mx, nd, np):
    a = nd.zeros((3, 4))
    a[1:, 1:3] = nd.array([[1, 2], [3, 4]])
    return a


def case_setitem_ellipsis(mx, nd, np):
    a = nd.zeros((2, 2))
    a[...] = 4
    return a


def case_setitem_3d_slice(mx, nd, np):
    a = nd.zeros((2, 2, 2))
    a[:, 1, :] = nd.array([5, 6])
    return a


def case_setitem_mask_quirk(mx, nd, np):
    a = nd.arange(6).reshape((3, 2))
    a[a > 3] = -1
    return a


def case_setitem_numpy_scalar(mx, nd, np):
    a = nd.zeros(2)
    a[0] = np.float64(2.5)
    return a


def case_setitem_out_of_bounds_error(mx, nd, np):
    a = nd.zeros((2, 2))
    a[3] = 1
    return a


# ---------------------------------------------------------------------------
# 17. view vs copy (OPERATORS.md section 10)
# ---------------------------------------------------------------------------

_VIEW_EXPRS_2D = {
    # name: (function of (a, nd) -> result), a = arange(24).reshape(4, 6)
    "row1": lambda a, nd: a[1],
    "row_neg1": lambda a, nd: a[-1],
    "rows_1_3": lambda a, nd: a[1:3],
    "rows_1_3_colon": lambda a, nd: a[1:3, :],
    "rows_1_3_full_cols": lambda a, nd: a[1:3, 0:6],
    "rows_1_3_ellipsis": lambda a, nd: a[1:3, ...],
    "all": lambda a, nd: a[:],
    "row1_cols_2_4": lambda a, nd: a[1, 2:4],
    "rows_1_2_cols_2_4": lambda a, nd: a[1:2, 2:4],
    "chained_row1_cols_2_4": lambda a, nd: a[1][2:4],
    "reshape": lambda a, nd: a.reshape((6, 4)),
    "reshape_then_index": lambda a, nd: a.reshape((6, 4))[2],
    "cols_1_3": lambda a, nd: a[:, 1:3],
    "col1": lambda a, nd: a[:, 1],
    "block_0_2_2_4": lambda a, nd: a[0:2, 2:4],
    "step2": lambda a, nd: a[::2],
    "row1_step2": lambda a, nd: a[1, ::2],
    "list_0_2": lambda a, nd: a[[0, 2]],
    "nd_index": lambda a, nd: a[nd.array([0, 2])],
    "T": lambda a, nd: a.T,
    "flatten": lambda a, nd: a.flatten(),
    "expand_dims": lambda a, nd: a.expand_dims(0),
    "nd_slice": lambda a, nd: nd.slice(a, begin=(1, 0), end=(3, 6)),
    "slice_axis": lambda a, nd: nd.slice_axis(a, axis=0, begin=1, end=3),
    "method_slice": lambda a, nd: a.slice(begin=(1,), end=(3,)),
    "nd_reshape": lambda a, nd: nd.reshape(a, shape=(6, 4)),
    "reshape_like": lambda a, nd: a.reshape_like(nd.zeros((2, 12))),
    "squeeze": lambda a, nd: a.squeeze(),
    "astype_copy_false": lambda a, nd: a.astype("float32", copy=False),
    "as_in_context": lambda a, nd: a.as_in_context(a.context),
    "detach": lambda a, nd: a.detach(),
}

_VIEW_EXPRS_3D = {
    # a = arange(24).reshape(2, 3, 4)
    "3d_1_1": lambda a, nd: a[1, 1],
    "3d_1_0to2": lambda a, nd: a[1, 0:2],
    "3d_0to1_1": lambda a, nd: a[0:1, 1],
    "3d_colon_0": lambda a, nd: a[:, 0],
    "3d_ellipsis_1": lambda a, nd: a[..., 1],
}


def _view_write_case(expr, three_d):
    def case(mx, nd, np):
        a = _a24(nd) if three_d else _a46(nd)
        v = expr(a, nd)
        v[:] = 7
        return [a, v]
    return case


def _view_iadd_case(expr, three_d):
    def case(mx, nd, np):
        a = _a24(nd) if three_d else _a46(nd)
        v = expr(a, nd)
        v += 100
        return [a, v]
    return case


def _view_basewrite_case(expr, three_d):
    def case(mx, nd, np):
        a = _a24(nd) if three_d else _a46(nd)
        v = expr(a, nd)
        a[:] = -1
        return v
    return case


def _view_base_iadd_case(expr, three_d):
    def case(mx, nd, np):
        a = _a24(nd) if three_d else _a46(nd)
        v = expr(a, nd)
        a += 1000
        return v
    return case


for _n, _e in _VIEW_EXPRS_2D.items():
    globals()["case_view_write_" + _n] = _view_write_case(_e, False)
    globals()["case_view_iadd_" + _n] = _view_iadd_case(_e, False)
    globals()["case_view_basewrite_" + _n] = _view_basewrite_case(_e, False)
for _n, _e in _VIEW_EXPRS_3D.items():
    globals()["case_view_write_" + _n] = _view_write_case(_e, True)
    globals()["case_view_iadd_" + _n] = _view_iadd_case(_e, True)
    globals()["case_view_basewrite_" + _n] = _view_basewrite_case(_e, True)

for _n in ("row1", "rows_1_3", "reshape", "cols_1_3", "T", "flatten"):
    globals()["case_view_base_iadd_" + _n] = _view_base_iadd_case(
        _VIEW_EXPRS_2D[_n], False)


def case_view_chain_reshape_of_view(mx, nd, np):
    a = _a46(nd)
    v = a[1:3].reshape((12,))
    v[:] = 0
    return [a, v]


def case_view_setitem_through_row_view(mx, nd, np):
    a = _a46(nd)
    r = a[2]
    r[1] = -5
    return a


def case_view_elemwise_out_into_slice(mx, nd, np):
    a = nd.zeros((3, 2))
    v = a[1:]
    nd.elemwise_add(nd.ones((2, 2)), nd.ones((2, 2)), out=v)
    return [a, v]


# ---------------------------------------------------------------------------
# 18. misc errors
# ---------------------------------------------------------------------------

def case_exp_unknown_kwarg_ignored(mx, nd, np):
    return nd.exp(nd.ones(2), foo=1)


def case_err_wrong_dtype_name_array(mx, nd, np):
    return nd.array([1, 2], dtype="flot32")


def case_err_ones_negative_dim(mx, nd, np):
    return nd.ones((-2, 3))


def case_err_softmax_bad_axis(mx, nd, np):
    return nd.softmax(nd.ones((2, 2)), axis=5)


def case_err_take_mode_invalid(mx, nd, np):
    return nd.take(nd.ones((2, 2)), nd.array([0]), mode="foo")


def case_err_missing_op(mx, nd, np):
    return nd.no_such_operator(nd.ones(2))


def case_err_ndarray_missing_attr(mx, nd, np):
    return nd.ones(2).no_such_method()


# ---------------------------------------------------------------------------

CASES = {k: v for k, v in list(globals().items())
         if k.startswith("case_") and callable(v)}
