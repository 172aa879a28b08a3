"""mx.test_utils, comparisons and symbolic checks: the helpers MXNet scripts and test suites import.

Signatures, defaults and failure messages follow MXNet 1.9.1
(``assert_almost_equal`` prints MXNet's "Error ... exceeds tolerance" report),
and the symbolic checks (`check_numeric_gradient`, `check_symbolic_forward`,
`check_symbolic_backward`) drive ``Symbol.bind`` / ``Executor.forward`` /
``Executor.backward`` as MXNet's do. Differences:

* `get_mnist` reads the MNIST idx files from disk and never downloads
  (`download` raises a clear error instead of fetching; a file that is
  already there is returned, as in MXNet);
* sparse storage (``stype`` other than 'default') is not supported;
* ``mx.nd.contrib.allclose`` is not used: NDArrays are compared on the host
  with numpy, with the same tolerances.
"""
import numbers
import os
from collections import OrderedDict
from contextlib import contextmanager

import numpy as np
import numpy.random as rnd
import numpy.testing as npt

from ... import context as _context
from ...base import MXNetError
from ...context import Context, current_context
from ... import tiers as _tiers
from ...ndarray import NDArray
from .. import ndarray as _nd



# ---- contexts and dtypes --------------------------------------------------------------------
def default_context():
    """Get default context for regression test."""
    return current_context()


def set_default_context(ctx):
    """Set default context (what ``mx.current_context()`` returns from now on, in this thread)."""
    if not isinstance(ctx, Context):
        raise TypeError(f"set_default_context: expected a Context such as mx.cpu(), got {ctx!r}")
    Context._default.value = ctx


def default_dtype():
    """Get default data type for regression test."""
    return np.float32


_INT_DTYPES = (np.bool_, np.int8, np.uint8, np.int32, np.uint32, np.int64, np.uint64)


def default_rtols():
    """Get default relative tolerances for data comparisons involving each data type."""
    tols = {np.dtype(np.float16): 1e-2, np.dtype(np.float32): 1e-4, np.dtype(np.float64): 1e-5}
    tols.update({np.dtype(t): 0 for t in _INT_DTYPES})
    return tols


def default_atols():
    """Get default absolute tolerances for data comparisons involving each data type."""
    tols = {np.dtype(np.float16): 1e-1, np.dtype(np.float32): 1e-3, np.dtype(np.float64): 1e-20}
    tols.update({np.dtype(t): 0 for t in _INT_DTYPES})
    return tols


def default_numeric_eps():
    """Get default epsilon for finite difference gradient calculations with data type."""
    return {np.dtype(np.float16): 1.0 / 2 ** 6,
            np.dtype(np.float32): 1.0 / 2 ** 9,
            np.dtype(np.float64): 1.0 / 2 ** 14}


def effective_dtype(dat):
    """The dtype that decides the tolerance for `dat` (XLA does not trim float32 GEMM inputs
    to TF32 unless asked, so this is the array's own dtype)."""
    return np.dtype(dat.dtype)


def get_tolerance(dat, tol, default_tol):
    """The tolerance for comparisons of `dat`: `tol` itself when it is a number, else its
    entry (or `default_tol`'s) for the dtype of `dat`."""
    if isinstance(tol, numbers.Number):
        return tol
    dtype = effective_dtype(dat)
    tol = {} if tol is None else tol
    return tol.get(dtype, default_tol[dtype])


def get_tols(x, y, rtol, atol):
    """(rtol, atol) for comparing `x` and `y`: the larger default of the two dtypes."""
    if isinstance(x, numbers.Number):
        x = np.array(x)
    if isinstance(y, numbers.Number):
        y = np.array(y)
    rtol = max(get_tolerance(x, rtol, default_rtols()), get_tolerance(y, rtol, default_rtols()))
    atol = max(get_tolerance(x, atol, default_atols()), get_tolerance(y, atol, default_atols()))
    return rtol, atol


def get_atol(atol=None, dtype=np.dtype(np.float64)):
    """Get default numerical threshold for regression test."""
    return default_atols()[np.dtype(dtype)] if atol is None else atol


def get_rtol(rtol=None, dtype=np.dtype(np.float64)):
    """Get default numerical threshold for regression test."""
    return default_rtols()[np.dtype(dtype)] if rtol is None else rtol


def get_etol(etol=None):
    """Get default numerical threshold for regression test."""
    return 0 if etol is None else etol


# ---- random data ------------------------------------------------------------------------------
def random_arrays(*shapes):
    """Generate some random numpy arrays."""
    arrays = [np.array(np.random.randn(), dtype=default_dtype())
              if len(s) == 0 else np.random.randn(*s).astype(default_dtype())
              for s in shapes]
    if len(arrays) == 1:
        return arrays[0]
    return arrays


def random_uniform_arrays(*shapes, **kwargs):
    """Generate some random numpy arrays."""
    low = kwargs.pop("low", 0.0)
    high = kwargs.pop("high", 1.0)
    dtype = kwargs.pop("dtype", default_dtype())
    if len(kwargs) > 0:
        raise TypeError("Got unexpected argument/s : " + str(kwargs.keys()))
    return [np.random.uniform(low, high, size=s).astype(dtype) for s in shapes]


def random_sample(population, k):
    """Return a k length list of the elements chosen from the population sequence."""
    assert 0 <= k <= len(population)
    population_copy = population[:]
    np.random.shuffle(population_copy)
    return population_copy[0:k]


def _check_stype(stype, where):
    if stype not in (None, "default"):
        raise MXNetError(f"{where}: storage type {stype!r} is not supported by xnd (only dense "
                         f"'default' arrays; see docs/porting.md)")


_SPARSE_GENERATOR = [None]   # test_utils._sparse.rand_sparse_ndarray (it imports this module)


def rand_ndarray(shape, stype="default", density=None, dtype=None, modifier_func=None,
                 shuffle_csr_indices=False, distribution=None, ctx=None):
    """A random NDArray of `shape`: dense standard normal values from numpy's global generator,
    or a random sparse array of storage type `stype` (test_utils.rand_sparse_ndarray)."""
    ctx = ctx if ctx else default_context()
    if stype not in (None, "default"):
        return _SPARSE_GENERATOR[0](shape, stype, density=density, modifier_func=modifier_func,
                                   dtype=dtype, shuffle_csr_indices=shuffle_csr_indices,
                                   distribution=distribution, ctx=ctx)[0]
    return _nd.array(random_arrays(shape), dtype=dtype, ctx=ctx)


def rand_shape_2d(dim0=10, dim1=10, allow_zero_size=False):
    low = 0 if allow_zero_size else 1
    return rnd.randint(low, dim0 + 1), rnd.randint(low, dim1 + 1)


def rand_shape_3d(dim0=10, dim1=10, dim2=10, allow_zero_size=False):
    low = 0 if allow_zero_size else 1
    return rnd.randint(low, dim0 + 1), rnd.randint(low, dim1 + 1), rnd.randint(low, dim2 + 1)


def rand_shape_nd(num_dim, dim=10, allow_zero_size=False):
    low = 0 if allow_zero_size else 1
    return tuple(rnd.randint(low, dim + 1, size=num_dim))


def rand_coord_2d(x_low, x_high, y_low, y_high):
    x = np.random.randint(x_low, x_high, dtype=np.int64)
    y = np.random.randint(y_low, y_high, dtype=np.int64)
    return x, y


def np_reduce(dat, axis, keepdims, numpy_reduce_func):
    """Reduce `dat` over `axis` (int, list or None) with `numpy_reduce_func`, one axis at a time."""
    if isinstance(axis, int):
        axis = [axis]
    else:
        axis = list(axis) if axis is not None else range(len(dat.shape))
    ret = dat
    for i in reversed(sorted(axis)):
        ret = numpy_reduce_func(ret, axis=i)
    if keepdims:
        keepdims_shape = list(dat.shape)
        for i in axis:
            keepdims_shape[i] = 1
        ret = ret.reshape(tuple(keepdims_shape))
    return ret


# ---- comparisons --------------------------------------------------------------------------------
def _find_max_violation(a, b, rtol, atol):
    """Finds and returns the location of maximum violation."""
    with np.errstate(invalid="ignore", over="ignore"):
        absdiff = np.where(np.equal(a, b), 0, np.abs(a - b))
        tol = atol + rtol * np.abs(b)
        violation = absdiff / (tol + 1e-20)
    loc = np.argmax(violation)
    idx = tuple(int(i) for i in np.unravel_index(loc, violation.shape))  # (1, 2), not np.int64s
    return idx, np.max(violation)


_LEGACY_REPR = {"legacy": "1.25"} if int(np.__version__.split(".")[0]) >= 2 else {}


def same(a, b):
    """Test if two NumPy arrays are the same."""
    return np.array_equal(a, b)


def checkShapes(a, b):
    if a.shape != b.shape:
        msg = npt.build_err_msg([a, b], err_msg="a.shape = {} and b.shape = {} are not equal"
                                .format(str(a.shape), str(b.shape)))
        raise AssertionError(msg)


def almost_equal(a, b, rtol=None, atol=None, equal_nan=False, use_broadcast=True):
    """Test if two numpy arrays are almost equal."""
    if not use_broadcast:
        checkShapes(a, b)
    rtol, atol = get_rtol(rtol), get_atol(atol)
    if _halves(a, b, rtol, atol):
        return bool(np.all(_isclose_half(a, b, rtol, atol, equal_nan)))
    return np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)


# the vectorised float16 comparison reproduces numpy 2's float16 arithmetic (NEP 50: a Python
# float tolerance becomes a float16); numpy 1 rounds some boundary cases the other way
_NUMPY2 = int(np.__version__.split(".")[0]) >= 2


def _halves(a, b, rtol, atol):
    return (_NUMPY2 and isinstance(a, np.ndarray) and isinstance(b, np.ndarray)
            and a.dtype == np.float16 and b.dtype == np.float16
            and isinstance(rtol, numbers.Real) and isinstance(atol, numbers.Real))


def _isclose_half(x, y, rtol, atol, equal_nan):
    """``np.isclose`` of two float16 arrays, bit for bit, vectorised. numpy computes in
    float16 one element at a time (150 ms a million values: a float16 optimizer test spent
    most of its time here). Its result is that of the float32 comparison wherever the two
    sides differ by more than float16's rounding (2**-11 relative, 2**-25 absolute, a few
    times over): numpy itself decides only the remaining elements (none, usually), and
    those with an infinity, a NaN or a value near float16's overflow."""
    x, y = np.broadcast_arrays(x, y)
    f = np.float32
    xf, yf = x.astype(f), y.astype(f)
    with np.errstate(invalid="ignore", over="ignore"):
        # the tolerances as the float16 numbers numpy makes of Python floats here
        d = np.abs(xf - yf)
        t = f(np.float16(atol)) + f(np.float16(rtol)) * np.abs(yf)
        res = np.asarray((d <= t) | (xf == yf))
        unsure = ~(np.abs(d - t) > f(2.0 ** -8) * np.maximum(np.abs(d), np.abs(t)) + f(2.0 ** -22))
        unsure = np.asarray(unsure | ~(np.maximum(np.abs(xf), np.abs(yf)) < 30000)
                            | ~(np.abs(t) < 30000))
    if unsure.any():
        res[unsure] = np.isclose(x[unsure], y[unsure], rtol=rtol, atol=atol,
                                 equal_nan=equal_nan)
    return res


def locationError(a, b, index, names, maxError=False):
    """Create element mismatch comment."""
    maximum = "maximum " if maxError else ""
    return "Location of %serror: %s, %s=%.8f, %s=%.8f" \
        % (maximum, str(index), names[0], a[index], names[1], b[index])


def _host(x):
    return x.asnumpy() if isinstance(x, NDArray) else x


def assert_almost_equal(a, b, rtol=None, atol=None, names=("a", "b"), equal_nan=False,
                        use_broadcast=True, mismatches=(10, 10)):
    """Test that two numpy arrays (or NDArrays) are almost equal; raise AssertionError with
    MXNet's report (largest violations and their locations) if not.

    rtol, atol: None (per-dtype defaults), a number, or a dict dtype -> number.
    """
    if not use_broadcast:
        checkShapes(a, b)
    rtol, atol = get_tols(a, b, rtol, atol)
    a, b = _host(a), _host(b)
    if hasattr(a, "dtype") and a.dtype == np.bool_ and hasattr(b, "dtype") and b.dtype == np.bool_:
        np.testing.assert_equal(a, b)
        return
    if almost_equal(a, b, rtol, atol, equal_nan=equal_nan):
        return
    a, b = np.asarray(a), np.asarray(b)
    index, rel = _find_max_violation(a, b, rtol, atol)
    if index != ():
        indexErr = index
        relErr = rel
        print("\n*** Maximum errors for vector of size {}:  rtol={}, atol={}\n"
              .format(a.size, rtol, atol))
        aTmp = a.copy()
        bTmp = b.copy()
        i = 1
        while i <= a.size:
            if i <= mismatches[0]:
                print("%3d: Error %f  %s" % (i, rel, locationError(a, b, index, names)))
            aTmp[index] = bTmp[index] = 0
            if almost_equal(aTmp, bTmp, rtol, atol, equal_nan=equal_nan):
                break
            i += 1
            if i <= mismatches[1] or mismatches[1] <= 0:
                index, rel = _find_max_violation(aTmp, bTmp, rtol, atol)
            else:
                break
        mismatchDegree = "at least " if mismatches[1] > 0 and i > mismatches[1] else ""
        errMsg = "Error %f exceeds tolerance rtol=%e, atol=%e (mismatch %s%f%%).\n%s" % \
                 (relErr, rtol, atol, mismatchDegree, 100 * i / a.size,
                  locationError(a, b, indexErr, names, maxError=True))
    else:
        errMsg = "Error %f exceeds tolerance rtol=%e, atol=%e.\n" % (rel, rtol, atol)
    # MXNet sets these print options globally here; xnd scopes them to the message (and asks
    # numpy 2 for numpy 1's array repr, without "shape=", as MXNet 1.9.1 printed it).
    with np.printoptions(threshold=4, suppress=True, **_LEGACY_REPR):
        msg = npt.build_err_msg([a, b], err_msg=errMsg)
    raise AssertionError(msg)


def assert_allclose(a, b, rtol=1e-07, atol=0, equal_nan=True):
    assert_almost_equal(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)


def assert_almost_equal_ignore_nan(a, b, rtol=None, atol=None, names=("a", "b")):
    """assert_almost_equal, with NaN positions (in either array) set to 0 in both."""
    a = np.copy(_host(a))
    b = np.copy(_host(b))
    nan_mask = np.logical_or(np.isnan(a), np.isnan(b))
    a[nan_mask] = 0
    b[nan_mask] = 0
    assert_almost_equal(a, b, rtol, atol, names)


def assert_exception(f, exception_type, *args, **kwargs):
    """Test that function f will throw an exception of type given by `exception_type`."""
    try:
        f(*args, **kwargs)
        assert False
    except exception_type:
        return


def retry(n):
    """Retry n times before failing for stochastic test cases."""
    assert n > 0

    def decorate(f):
        def wrapper(*args, **kwargs):
            err = None
            for _ in range(n):
                try:
                    f(*args, **kwargs)
                    return
                except AssertionError as e:
                    err = e
            raise err
        wrapper.__name__ = getattr(f, "__name__", "wrapper")
        return wrapper
    return decorate


def same_array(array1, array2):
    """Whether two NDArrays share the same memory (a write to one shows in the other)."""
    array1[:] += 1
    if not same(array1.asnumpy(), array2.asnumpy()):
        array1[:] -= 1
        return False
    array1[:] -= 1
    return same(array1.asnumpy(), array2.asnumpy())


def assign_each(the_input, function):
    """Apply `function` to each element of numpy array `the_input`."""
    if function is None:
        return np.copy(the_input)
    return np.vectorize(function)(the_input).astype(np.asarray(the_input).dtype)


def assign_each2(input1, input2, function):
    """Apply `function` to each pair of elements of `input1` and `input2`."""
    if function is None:
        return np.copy(input1)
    return np.vectorize(function)(input1, input2).astype(np.asarray(input1).dtype)


def collapse_sum_like(a, shape):
    """Sum `a` down to `shape` (the reverse of broadcasting)."""
    assert len(a.shape) >= len(shape)
    if np.prod(shape) == 0 or a.size == 0:
        return np.zeros(shape, dtype=a.dtype)
    axes = []
    ndim_diff = len(a.shape) - len(shape)
    for i in range(ndim_diff):
        axes.append(i)
    for i, s in enumerate(shape):
        if s != a.shape[i + ndim_diff]:
            assert s == 1
            axes.append(i + ndim_diff)
    return np.sum(a, axis=tuple(axes)).reshape(shape)


@contextmanager
def environment(*args):
    """Set environment variables for the duration of a ``with`` block:
    ``environment('MXNET_X', '1')`` or ``environment({'MXNET_X': '1', ...})``;
    a value of None unsets the variable."""
    if len(args) == 2:
        pairs = {args[0]: args[1]}
    elif len(args) == 1 and isinstance(args[0], dict):
        pairs = dict(args[0])
    else:
        raise ValueError("environment(name, value) or environment({name: value, ...})")
    saved = {k: os.environ.get(k) for k in pairs}
    try:
        for k, v in pairs.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = str(v)
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


# ---- symbolic checks ---------------------------------------------------------------------------------
def _sorted_items(d):
    return sorted(d.items(), key=lambda t: t[0])


def _sorted_dict(d):
    return OrderedDict(_sorted_items(d))


def _check_dtype(dtype, allow_asnumpy=True):
    ok = (allow_asnumpy and isinstance(dtype, str) and dtype == "asnumpy") or \
        (not isinstance(dtype, str) and dtype in (np.float16, np.float32, np.float64))
    assert ok, f"dtype must be np.float16, np.float32, np.float64{' or asnumpy' * allow_asnumpy}"


def _parse_location(sym, location, ctx, dtype=default_dtype()):
    """The arguments of `sym` ({name: NDArray}, sorted by name) from a list in
    ``sym.list_arguments()`` order or a dict; numpy arrays become NDArrays on `ctx`."""
    assert isinstance(location, (dict, list, tuple))
    _check_dtype(dtype)
    if isinstance(location, dict):
        if set(location.keys()) != set(sym.list_arguments()):
            raise ValueError("Symbol arguments and keys of the given location do not match."
                             "symbol args:%s, location.keys():%s"
                             % (str(set(sym.list_arguments())), str(set(location.keys()))))
    else:
        location = {k: v for k, v in zip(sym.list_arguments(), location)}
    location = {k: _nd.array(v, ctx=ctx, dtype=v.dtype if _is_asnumpy(dtype) else dtype)
                if isinstance(v, np.ndarray) else v for k, v in location.items()}
    return _sorted_dict(location)


def _is_asnumpy(dtype):
    return isinstance(dtype, str) and dtype == "asnumpy"


def _parse_aux_states(sym, aux_states, ctx, dtype=default_dtype()):
    """The auxiliary states of `sym` as {name: NDArray} from a list or a dict, or None."""
    _check_dtype(dtype)
    if aux_states is not None:
        if isinstance(aux_states, dict):
            if set(aux_states.keys()) != set(sym.list_auxiliary_states()):
                raise ValueError("Symbol aux_states names and given aux_states do not match."
                                 "symbol aux_names:%s, aux_states.keys:%s"
                                 % (str(set(sym.list_auxiliary_states())),
                                    str(set(aux_states.keys()))))
        elif isinstance(aux_states, (list, tuple)):
            aux_names = sym.list_auxiliary_states()
            aux_states = {k: v for k, v in zip(aux_names, aux_states)}
        aux_states = {k: _nd.array(v, ctx=ctx, dtype=v.dtype if _is_asnumpy(dtype) else dtype)
                      for k, v in aux_states.items()}
    return aux_states


def simple_forward(sym, ctx=None, is_train=False, **inputs):
    """Forward `sym` on numpy `inputs` (by argument name); numpy result(s)."""
    ctx = ctx or default_context()
    inputs = {k: _nd.array(v) for k, v in inputs.items()}
    exe = sym.bind(ctx, args=inputs)
    exe.forward(is_train=is_train)
    outputs = [x.asnumpy() for x in exe.outputs]
    if len(outputs) == 1:
        outputs = outputs[0]
    return outputs


def _sparse_grads(args_grad, stypes, keep=False):
    """Gradient buffers of the storage types asked for (MXNet: a sparse one starts empty,
    or, with ``keep``, holds the random starting values in that storage)."""
    for k, st in (stypes or {}).items():
        if k in args_grad and st not in (None, "default"):
            g = args_grad[k]
            args_grad[k] = g.tostype(st) if keep else _nd.zeros(g.shape, g.context, g.dtype,
                                                                 stype=st)


def numeric_grad(executor, location, aux_states=None, eps=1e-4, use_forward_train=True,
                 dtype=default_dtype()):
    """Finite-difference gradient of the sum of ``executor.outputs[0]`` with respect to each
    array in `location` ({name: numpy array}); central differences with step `eps`. The
    forward calls run xnd's optimized programs only (``tiers.pinned``): a pair of calls
    across a tier switch (the host tier, then XLA) differs in the last bits, which the
    difference divides by ``eps``."""
    with _tiers.pinned():
        return _numeric_grad(executor, location, aux_states, eps, use_forward_train, dtype)


def _numeric_grad(executor, location, aux_states, eps, use_forward_train, dtype):
    _check_dtype(dtype, allow_asnumpy=False)
    approx_grads = {k: np.zeros(v.shape, dtype=dtype) for k, v in location.items()}
    for k, v in location.items():
        executor.arg_dict[k][:] = _nd.array(v, dtype=dtype)
    for k in location:
        location[k] = np.asarray(location[k], order="C")
    for k, v in location.items():
        if v.dtype.kind != "f":
            continue
        old_value = v.copy()
        arg = executor.arg_dict[k]
        whole = arg.stype != "default"   # a sparse array is written whole, as MXNet does
        for i in range(int(np.prod(v.shape))):
            # one element written, not the whole array copied in: the same values (each
            # cast to ``dtype`` alike), without a copy of the array per difference
            at = np.unravel_index(i, v.shape)
            v.ravel()[i] += eps / 2.0
            arg[slice(None) if whole else at] = v if whole else v[at]
            if aux_states is not None:
                for key, val in aux_states.items():
                    executor.aux_dict[key][:] = val
            executor.forward(is_train=use_forward_train)
            f_peps = executor.outputs[0].asnumpy()

            v.ravel()[i] -= eps
            arg[slice(None) if whole else at] = v if whole else v[at]
            if aux_states is not None:
                for key, val in aux_states.items():
                    executor.aux_dict[key][:] = _nd.array(val, dtype=dtype)
            executor.forward(is_train=use_forward_train)
            f_neps = executor.outputs[0].asnumpy()

            approx_grad = (f_peps - f_neps).sum() / eps
            approx_grads[k].ravel()[i] = approx_grad
            v.ravel()[i] = old_value.ravel()[i]
            arg[slice(None) if whole else at] = v if whole else v[at]
        executor.arg_dict[k][:] = _nd.array(old_value, dtype=dtype)
    return approx_grads


def check_numeric_gradient(sym, location, aux_states=None, numeric_eps=None, rtol=None,
                           atol=None, grad_nodes=None, use_forward_train=True, ctx=None,
                           grad_stype_dict=None, dtype=default_dtype()):
    """Verify the backward pass of `sym` against finite differences (Theano's verify_grad):
    the symbol's output is multiplied by a fixed random projection and summed, and the
    symbolic gradient of each argument in `grad_nodes` (default: all; a list, or a dict
    name -> grad_req 'write' / 'add' / 'null') must match the numerical one."""
    from ... import symbol as _sym

    _check_dtype(dtype, allow_asnumpy=False)
    if ctx is None:
        ctx = default_context()

    def random_projection(shape):
        # not too small, or too much precision is lost in the numerical gradient
        return np.random.rand(*shape) + 0.1

    location = _parse_location(sym=sym, location=location, ctx=ctx, dtype=dtype)
    location_npy = {k: v.asnumpy() for k, v in location.items()}
    aux_states = _parse_aux_states(sym=sym, aux_states=aux_states, ctx=ctx, dtype=dtype)
    aux_states_npy = {k: v.asnumpy() for k, v in aux_states.items()} if aux_states is not None \
        else None
    if grad_nodes is None:
        grad_nodes = sym.list_arguments()
        grad_req = {k: "write" for k in grad_nodes}
    elif isinstance(grad_nodes, (list, tuple)):
        grad_nodes = list(grad_nodes)
        grad_req = {k: "write" for k in grad_nodes}
    elif isinstance(grad_nodes, dict):
        grad_req = grad_nodes.copy()
        grad_nodes = grad_nodes.keys()
    else:
        raise ValueError

    input_shape = {k: v.shape for k, v in location.items()}
    _, out_shape, _ = sym.infer_shape(**input_shape)
    proj = _sym.Variable("__random_proj")
    out = _sym.make_loss(sym * proj)

    location = dict(list(location.items()) +
                    [("__random_proj", _nd.array(random_projection(out_shape[0]), ctx=ctx,
                                                 dtype=dtype))])
    args_grad_npy = dict([(k, np.random.normal(0, 0.01, size=location[k].shape))
                          for k in grad_nodes]
                         + [("__random_proj", np.random.normal(0, 0.01, size=out_shape[0]))])
    args_grad = {k: _nd.array(v, ctx=ctx, dtype=dtype) for k, v in args_grad_npy.items()}
    _sparse_grads(args_grad, grad_stype_dict)

    executor = out.bind(ctx, grad_req=grad_req, args=location, args_grad=args_grad,
                        aux_states=aux_states)
    inps = executor.arg_arrays
    if len(inps) != len(location):
        raise ValueError("Executor arg_arrays and and location len do not match."
                         "Got %d inputs and %d locations" % (len(inps), len(location)))
    assert len(executor.outputs) in (0, 1)

    executor.forward(is_train=True)
    assert len(executor.outputs) == 1
    eps = get_tolerance(executor.outputs[0], numeric_eps, default_numeric_eps())
    # cannot use finite differences with small eps without high precision
    if dtype in (np.float32, np.float16):
        assert eps >= 1e-5

    # MXNet calls backward() without head gradients (make_loss is a loss output); ones are the
    # same head gradient, stated explicitly.
    executor.backward([_nd.ones(executor.outputs[0].shape, ctx=ctx, dtype=dtype)])
    symbolic_grads = executor.grad_dict

    numeric_gradients = numeric_grad(executor, location_npy, aux_states_npy, eps=eps,
                                     use_forward_train=use_forward_train, dtype=dtype)

    for name in grad_nodes:
        fd_grad = numeric_gradients[name]
        orig_grad = args_grad_npy[name]
        sym_grad = symbolic_grads.get(name, args_grad[name])
        if grad_req[name] == "write":
            assert_almost_equal(fd_grad, sym_grad, rtol, atol,
                                ("NUMERICAL_%s" % name, "BACKWARD_%s" % name))
        elif grad_req[name] == "add":
            if isinstance(sym_grad, NDArray):
                sym_grad = sym_grad.asnumpy()
            assert_almost_equal(fd_grad, sym_grad - orig_grad, rtol, atol,
                                ("NUMERICAL_%s" % name, "BACKWARD_%s" % name))
        elif grad_req[name] == "null":
            assert_almost_equal(orig_grad, sym_grad, rtol, atol,
                                ("NUMERICAL_%s" % name, "BACKWARD_%s" % name))
        else:
            raise ValueError("Invalid grad_req %s for argument %s" % (grad_req[name], name))


def check_symbolic_forward(sym, location, expected, rtol=None, atol=None, aux_states=None,
                           ctx=None, equal_nan=False, dtype=default_dtype()):
    """Bind `sym` at `location` (list in list_arguments() order, or dict), run forward
    (is_train=False) and compare each output with `expected` (list, or dict by output name).
    Returns the executor's outputs."""
    _check_dtype(dtype)
    if ctx is None:
        ctx = default_context()
    location = _parse_location(sym=sym, location=location, ctx=ctx, dtype=dtype)
    aux_states = _parse_aux_states(sym=sym, aux_states=aux_states, ctx=ctx, dtype=dtype)
    if isinstance(expected, dict):
        expected = [expected[k] for k in sym.list_outputs()]
    args_grad_data = {k: _nd.zeros(v.shape, ctx=ctx, dtype=v.dtype if _is_asnumpy(dtype) else dtype)
                      for k, v in location.items()}
    executor = sym.bind(ctx=ctx, args=location, args_grad=args_grad_data, aux_states=aux_states)
    executor.forward(is_train=False)
    outputs = executor.outputs
    for output_name, expect, output in zip(sym.list_outputs(), expected, outputs):
        assert_almost_equal(expect, output, rtol, atol,
                            ("EXPECTED_%s" % output_name, "FORWARD_%s" % output_name),
                            equal_nan=equal_nan)
    return executor.outputs


def check_symbolic_backward(sym, location, out_grads, expected, rtol=None, atol=None,
                            aux_states=None, grad_req="write", ctx=None, grad_stypes=None,
                            equal_nan=False, dtype=default_dtype()):
    """Bind `sym` at `location`, run forward(is_train=True) and backward(out_grads), and
    compare the argument gradients with `expected` (list in list_arguments() order, or dict).
    grad_req: 'write', 'add' (checked as the change from a random starting gradient) or
    'null' (the gradient buffer must be untouched), one for all or per argument.
    Returns the gradient arrays {name: NDArray}."""
    _check_dtype(dtype)
    if ctx is None:
        ctx = default_context()
    location = _parse_location(sym=sym, location=location, ctx=ctx, dtype=dtype)
    aux_states = _parse_aux_states(sym=sym, aux_states=aux_states, ctx=ctx, dtype=dtype)
    if isinstance(expected, (list, tuple)):
        expected = {k: v for k, v in zip(sym.list_arguments(), expected)}

    # Dirty the output buffer deterministically, for reproducibility.
    args_grad_npy = {k: np.random.normal(size=v.shape) for k, v in _sorted_items(expected)}
    args_grad_data = {k: _nd.array(v, ctx=ctx, dtype=expected[k].dtype if _is_asnumpy(dtype)
                                   else dtype)
                      for k, v in args_grad_npy.items()}
    _sparse_grads(args_grad_data, grad_stypes, keep=True)

    if isinstance(grad_req, str):
        grad_req = {k: grad_req for k in sym.list_arguments()}
    elif isinstance(grad_req, (list, tuple)):
        grad_req = {k: v for k, v in zip(sym.list_arguments(), grad_req)}

    executor = sym.bind(ctx=ctx, args=location, args_grad=args_grad_data, aux_states=aux_states,
                        grad_req=grad_req)
    executor.forward(is_train=True)

    if isinstance(out_grads, (tuple, list)):
        out_grads = [_nd.array(arr, ctx=ctx, dtype=arr.dtype if _is_asnumpy(dtype) else dtype)
                     if isinstance(arr, np.ndarray) else arr for arr in out_grads]
    elif isinstance(out_grads, dict):
        out_grads = {k: _nd.array(v, ctx=ctx, dtype=v.dtype if _is_asnumpy(dtype) else dtype)
                     if isinstance(v, np.ndarray) else v for k, v in out_grads.items()}
        out_grads = [out_grads[k] for k in sym.list_outputs()]
    else:
        assert out_grads is None
    executor.backward(out_grads)

    grads = args_grad_data
    for name in expected:
        if grad_req[name] == "write":
            assert_almost_equal(expected[name], grads[name], rtol, atol,
                                ("EXPECTED_%s" % name, "BACKWARD_%s" % name), equal_nan=equal_nan)
        elif grad_req[name] == "add":
            grad = grads[name].asnumpy() if isinstance(grads[name], NDArray) else grads[name]
            assert_almost_equal(expected[name], grad - args_grad_npy[name], rtol, atol,
                                ("EXPECTED_%s" % name, "BACKWARD_%s" % name), equal_nan=equal_nan)
        elif grad_req[name] == "null":
            assert_almost_equal(args_grad_npy[name], grads[name], rtol, atol,
                                ("EXPECTED_%s" % name, "BACKWARD_%s" % name), equal_nan=equal_nan)
        else:
            raise ValueError("Invalid grad_req %s for argument %s" % (grad_req[name], name))
    return args_grad_data
