"""mx.test_utils, cross-checks: check_consistency (one symbol on several contexts/dtypes),
check_speed, compare_optimizer and friends, check_gluon_hybridize_consistency, and the
matrix generators of MXNet's linear-algebra tests. Signatures and acceptance rules are
MXNet 1.9.1's."""
import json
import time
import traceback

import numpy as np

from ... import autograd as _autograd
from ...symbol import Symbol
from .. import ndarray as _nd
from .. import random as _random
from ._checks import _sorted_items, assert_almost_equal, default_context, get_tols


def check_speed(sym, location=None, ctx=None, N=20, grad_req=None, typ="whole", **kwargs):
    """Seconds per forward+backward (typ='whole') or per forward (typ='forward') of `sym`,
    after one warm-up run."""
    ctx = ctx or default_context()
    grad_req = grad_req or "write"
    if location is None:
        exe = sym.simple_bind(grad_req=grad_req, ctx=ctx, **kwargs)
        location = {k: np.random.normal(size=a.shape, scale=1.0) for k, a in exe.arg_dict.items()}
    else:
        assert isinstance(location, dict), 'Expect dict, get "location"=%s' % str(location)
        exe = sym.simple_bind(grad_req=grad_req, ctx=ctx,
                              **{k: v.shape for k, v in location.items()})
    for name, arr in location.items():
        exe.arg_dict[name][:] = arr.astype(exe.arg_dict[name].dtype)
    if typ not in ("whole", "forward"):
        raise ValueError('typ can only be "whole" or "forward".')
    train = typ == "whole"

    def step():
        exe.forward(is_train=train)
        if train:
            exe.backward(out_grads=exe.outputs)

    step()
    for out in exe.outputs:
        out.wait_to_read()
    tic = time.time()
    for _ in range(N):
        step()
    _nd.waitall()
    return (time.time() - tic) / N


def _smaller_dtype(dt1, dt2):
    """The less precise of two dtypes (dt1 when dt2 is None)."""
    return dt1 if dt2 is None or np.dtype(dt1).itemsize < np.dtype(dt2).itemsize else dt2


def check_consistency(sym, ctx_list, scale=1.0, grad_req="write", arg_params=None,
                      aux_params=None, rtol=None, atol=None, raise_on_err=True,
                      ground_truth=None, equal_nan=False, use_uniform=False,
                      rand_type=np.float64):
    """Bind `sym` (or one symbol per entry) once per entry of `ctx_list` (each a dict of
    simple_bind arguments: ctx, shapes, type_dict), feed all the same random inputs, and
    check that forward outputs, and with grad_req != 'null' the gradients of a backward
    pass with the first executor's outputs as head gradients, agree with the most precise
    executor's (or `ground_truth`). Returns the ground-truth dict."""
    assert len(ctx_list) > 1
    syms = [sym] * len(ctx_list) if isinstance(sym, Symbol) else list(sym)
    assert len(syms) == len(ctx_list)
    output_names = syms[0].list_outputs()
    arg_names = syms[0].list_arguments()
    exes = []
    for s, ctx in zip(syms, ctx_list):
        assert s.list_arguments() == arg_names
        assert s.list_outputs() == output_names
        exes.append(s.simple_bind(grad_req=grad_req, **ctx))
    arg_params = {} if arg_params is None else arg_params
    aux_params = {} if aux_params is None else aux_params
    for n, arr in _sorted_items(exes[0].arg_dict):  # sorted: reproducible random inputs
        if n not in arg_params:
            if use_uniform:
                arg_params[n] = np.random.uniform(low=-0.92 * scale, high=0.92 * scale,
                                                  size=arr.shape).astype(rand_type)
            else:
                arg_params[n] = np.random.normal(size=arr.shape, scale=scale).astype(rand_type)
    for n in exes[0].aux_dict:
        aux_params.setdefault(n, 0)
    for exe in exes:
        for name, arr in exe.arg_dict.items():
            arr[:] = arg_params[name]
        for name, arr in exe.aux_dict.items():
            arr[:] = aux_params[name]
        if grad_req == "add":
            for arr in exe.grad_arrays:
                if arr is not None:
                    arr[:] = 0
    dtypes = [np.dtype(exe.outputs[0].dtype) if exe.outputs else
              np.dtype(exe.arg_arrays[0].dtype) for exe in exes]
    gt_idx = int(np.argmax(dtypes))

    def truth(name):
        if ground_truth is not None:
            return ground_truth[name]
        exe = exes[gt_idx]
        return exe.output_dict[name] if name in exe.output_dict else exe.grad_dict.get(name)

    def compare(kind, i, name, arr, gtarr, rt, at):
        try:
            assert_almost_equal(arr, gtarr, rtol=rt, atol=at, equal_nan=equal_nan)
        except AssertionError as e:
            print(f"{kind} Err: ctx {i} vs ctx {gt_idx} at {name}")
            traceback.print_exc()
            if raise_on_err:
                raise e
            print(str(e))

    for exe in exes:
        exe.forward(is_train=False)
    for i, exe in enumerate(exes):
        if i != gt_idx:
            for name, arr in zip(output_names, exe.outputs):
                compare("Predict", i, name, arr, truth(name), rtol, atol)

    if grad_req != "null":
        for exe in exes:
            exe.forward(is_train=True)
        least = [out.dtype for out in exes[0].outputs]
        for exe in exes:
            least = [_smaller_dtype(o.dtype, dt) for o, dt in zip(exe.outputs, least)]
        heads = [o.astype(dt).asnumpy() for o, dt in zip(exes[0].outputs, least)]
        for exe in exes:
            exe.backward([_nd.array(h, ctx=exe._ctx, dtype=o.dtype)
                          for h, o in zip(heads, exe.outputs)])
        for i, exe in enumerate(exes):
            if i == gt_idx:
                continue
            for name, arr in zip(output_names + arg_names, exe.outputs + exe.grad_arrays):
                gtarr = truth(name)
                if gtarr is None:
                    assert arr is None
                    continue
                rt, at = rtol, atol
                # a float16 network's float32 inputs (BatchNorm gamma) get float16 tolerances
                small_arr = _smaller_dtype(arr.dtype, dtypes[i])
                small_gt = _smaller_dtype(gtarr.dtype, dtypes[gt_idx])
                if small_arr != arr.dtype or small_gt != gtarr.dtype:
                    rt, at = get_tols(arr.astype(small_arr), gtarr.astype(small_gt), rtol, atol)
                compare("Train", i, name, arr, gtarr, rt, at)

    if ground_truth is not None:
        return ground_truth
    gt = dict(exes[gt_idx].output_dict)
    if grad_req != "null":
        gt.update(exes[gt_idx].grad_dict)
    return gt


def compare_ndarray_tuple(t1, t2, rtol=None, atol=None):
    """assert_almost_equal over two (nested) tuples of arrays; None on either side passes."""
    if t1 is None or t2 is None:
        return
    if isinstance(t1, tuple):
        for s1, s2 in zip(t1, t2):
            compare_ndarray_tuple(s1, s2, rtol, atol)
    else:
        assert_almost_equal(t1, t2, rtol=rtol, atol=atol)


def compare_optimizer(opt1, opt2, shape, dtype, w_stype="default", g_stype="default",
                      rtol=1e-4, atol=1e-5, compare_states=True, ntensors=1):
    """Run one multi-precision update of `opt1` and `opt2` on the same random weight and
    gradient and compare states and weights. With a list of shapes, `opt2` updates all
    tensors at once (multi-tensor) and `opt1` one by one."""
    ctx = default_context()

    def pair(stype, density):
        """(the dense copy opt1 updates, the array of ``stype`` opt2 updates)."""
        if stype == "default":
            b = _random.uniform(shape=shape, ctx=ctx, dtype=dtype)
            return b.copyto(ctx), b
        if stype not in ("row_sparse", "csr"):
            raise Exception("type not supported yet")
        from ._checks import rand_ndarray
        b = rand_ndarray(shape, stype, density=density, dtype=dtype)
        return b.copyto(ctx).tostype("default"), b

    if not isinstance(shape, list):
        assert ntensors == 1
        w1, w2 = pair(w_stype, 1)
        g1, g2 = pair(g_stype, None)
        state1 = opt1.create_state_multi_precision(0, w1)
        state2 = opt2.create_state_multi_precision(0, w2)
        if compare_states:
            compare_ndarray_tuple(state1, state2)
        opt1.update_multi_precision(0, w1, g1, state1)
        opt2.update_multi_precision(0, w2, g2, state2)
        if compare_states:
            compare_ndarray_tuple(state1, state2, rtol=rtol, atol=atol)
        assert_almost_equal(w1, w2, rtol=rtol, atol=atol)
        return
    w1 = tuple(_random.uniform(shape=s, ctx=ctx, dtype=dtype) for s in shape)
    g1 = tuple(_random.uniform(shape=s, ctx=ctx, dtype=dtype) for s in shape)
    w2 = tuple(w.copy() for w in w1)
    g2 = tuple(g.copy() for g in g1)
    state2 = [opt2.create_state_multi_precision(0, w2[i]) for i in range(ntensors)]
    opt2.update_multi_precision(list(range(ntensors)), w2, g2, state2)
    for i in range(ntensors):
        state1 = opt1.create_state_multi_precision(i, w1[i])
        opt1.update_multi_precision(i, w1[i], g1[i], state1)
        if compare_states:
            compare_ndarray_tuple(state1, state2[i], rtol, atol)
        compare_ndarray_tuple(w1[i], w2[i], rtol, atol)


def same_symbol_structure(sym1, sym2):
    """Whether two symbols have the same operator at every node position."""
    nodes1 = json.loads(sym1.tojson())["nodes"]
    nodes2 = json.loads(sym2.tojson())["nodes"]
    return all(a["op"] == b["op"] for a, b in zip(nodes1, nodes2))


def check_gluon_hybridize_consistency(net_builder, data_l, numpy_func=None, test_grad=True,
                                      rtol=1E-4, atol=1E-4):
    """Check that ``net_builder(prefix='net_')`` gives the same output (and, with
    `test_grad`, input gradients of ``out.backward(out)``) eager and hybridized, with and
    without autograd, all from the first build's parameter values; and that it matches
    ``numpy_func`` on the inputs when given. The net must not draw random numbers."""
    from ..initializer import Initializer

    class _FromNumpy(Initializer):
        def __init__(self, values):
            super().__init__()
            self._values = values

        def _init_weight(self, name, arr):
            arr[()] = self._values[name]

    saved_out, saved_grads, init = None, None, None
    for hybridize in (False, True):
        for use_autograd in ((False, True) if test_grad else (False,)):
            net = net_builder(prefix="net_")
            if init is None:
                net.initialize()
            else:
                net.initialize(init)
            if hybridize:
                net.hybridize()
            inputs = [x.copy() for x in data_l]
            if use_autograd:
                for x in inputs:
                    x.attach_grad()
                with _autograd.record():
                    out = net(*inputs)
                out.backward(out)
            else:
                out = net(*inputs)
            if init is None:
                init = _FromNumpy({k: v.data().asnumpy()
                                   for k, v in net.collect_params().items()})
            if saved_out is None:
                saved_out = out.asnumpy()
            else:
                assert_almost_equal(out.asnumpy(), saved_out, rtol=rtol, atol=atol)
            if use_autograd:
                grads = [x.grad.asnumpy() for x in inputs]
                if saved_grads is None:
                    saved_grads = grads
                else:
                    for g, sg in zip(grads, saved_grads):
                        assert_almost_equal(g, sg, rtol=rtol, atol=atol)
    if numpy_func is not None:
        assert_almost_equal(saved_out, numpy_func(*[x.asnumpy() for x in data_l]),
                            rtol=rtol, atol=atol)


# ---- matrices for the linear-algebra tests ----
def create_2d_tensor(rows, columns, dtype=np.int64):
    """arange(rows) broadcast over `columns` columns (row i holds i)."""
    return _nd.array(np.tile(np.arange(rows).reshape(rows, 1), (1, columns)), dtype=dtype)


def create_vector(size, dtype=np.int64):
    """arange(size) as an NDArray."""
    return _nd.arange(0, size, dtype=dtype)


def get_identity_mat(size):
    return _nd.array(np.eye(size))


def get_identity_mat_batch(size):
    return _nd.array(np.stack([np.eye(size), np.eye(size)]))


def new_matrix_with_real_eigvals_2d(n):
    """A random n x n matrix with real eigenvalues: Q diag(rand) Q^-1 for a random Q."""
    shape = (n, n)
    q = np.ones(shape)
    while abs(np.linalg.det(q)) < 1e-2:
        q = np.random.uniform(-1, 1, shape)
    d = np.diag(np.random.uniform(-1.0, 1.0, shape[-1]))
    return q @ d @ np.linalg.inv(q)


def new_matrix_with_real_eigvals_nd(shape):
    n = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
    return np.array([new_matrix_with_real_eigvals_2d(shape[-1]) for _ in range(n)]).reshape(shape)


def new_orthonormal_matrix_2d(n):
    """A random n x n orthonormal matrix (from an SVD)."""
    u, _, _ = np.linalg.svd(np.random.uniform(-1.0, 1.0, (n, n)))
    return u


def new_sym_matrix_with_real_eigvals_2d(n):
    """A random symmetric n x n matrix: Q diag(rand) Q^T for an orthonormal Q."""
    q = new_orthonormal_matrix_2d(n)
    d = np.diag(np.random.uniform(-1.0, 1.0, n))
    return q @ d @ q.T


def new_sym_matrix_with_real_eigvals_nd(shape):
    n = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
    return np.array([new_sym_matrix_with_real_eigvals_2d(shape[-1])
                     for _ in range(n)]).reshape(shape)
