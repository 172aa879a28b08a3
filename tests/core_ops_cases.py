"""Cases of the core operators added for issue 15, run on MXNet 1.9.1 by
make_core_ops_goldens.py and on xnd by test_core_ops.py (same code, ``run_case(mx, case)``).

A case: ``call`` (a dotted name under mx.nd), ``inputs`` (numpy arrays, cast with their
dtype), ``attrs``, ``grad`` (indices of inputs whose gradient is recorded under a fixed random
head gradient on every float output, or None) ``states`` (indices of inputs updated in
place, recorded after the call) and ``out`` (indices of inputs passed as ``out=``, as MXNet's
optimizers call the multi-weight updates). amp_multicast is not recorded: MXNet 1.9.1's MKLDNN
build fails on its float16 results (test_core_ops.py checks its dtypes by hand).
"""
import numpy as np

R = np.random.RandomState(15)


def U(*shape, lo=-1.0, hi=1.0, dtype=np.float32):
    return R.uniform(lo, hi, shape).astype(dtype)


def _spd(n):
    a = U(n, n)
    return (a @ a.T + n * np.eye(n)).astype(np.float32)


CASES = {
    "moments_axis1": dict(call="moments", inputs=[U(3, 4)], attrs=dict(axes=(1,)), grad=[0]),
    "moments_all_keep": dict(call="moments", inputs=[U(2, 3, 2)], attrs=dict(axes=(0, 1, 2),
                                                                             keepdims=True),
                             grad=[0]),
    "hard_sigmoid": dict(call="hard_sigmoid", inputs=[U(4, 5, lo=-4, hi=4)],
                         attrs=dict(alpha=0.3, beta=0.4), grad=[0]),
    "svm_l2": dict(call="SVMOutput", inputs=[U(4, 3, lo=-2, hi=2), np.array([0, 2, 1, 2], "f")],
                   attrs=dict(margin=0.8, regularization_coefficient=0.7), grad=[0]),
    "svm_l1": dict(call="SVMOutput", inputs=[U(4, 3, lo=-2, hi=2), np.array([1, 0, 1, 2], "f")],
                   attrs=dict(use_linear=True, regularization_coefficient=0.5), grad=[0]),
    "ravel": dict(call="ravel_multi_index", inputs=[np.array([[3, 6, 6], [4, 5, 1]], "f")],
                  attrs=dict(shape=(7, 6))),
    "ravel_int64": dict(call="ravel_multi_index",
                        inputs=[np.array([[1, 0], [2, 3], [0, 4]], "int64")],
                        attrs=dict(shape=(2, 4, 5))),
    "unravel": dict(call="unravel_index", inputs=[np.array([22, 41, 37, 0], "f")],
                    attrs=dict(shape=(7, 6))),
    "gelqf": dict(call="linalg.gelqf", inputs=[U(2, 3, 4)], attrs={}, grad=[0]),
    "slogdet": dict(call="linalg.slogdet", inputs=[np.stack([_spd(3), -_spd(3)])], attrs={},
                    grad=[0]),
    "slogdet_2d": dict(call="linalg.slogdet", inputs=[_spd(3)], attrs={}, grad=[0]),
    "extractdiag": dict(call="linalg.extractdiag", inputs=[U(2, 4, 4)], attrs=dict(offset=1),
                        grad=[0]),
    "extractdiag_neg": dict(call="linalg.extractdiag", inputs=[U(4, 4)], attrs=dict(offset=-2),
                            grad=[0]),
    "makediag": dict(call="linalg.makediag", inputs=[U(2, 3)], attrs=dict(offset=-1), grad=[0]),
    "makediag_pos": dict(call="linalg.makediag", inputs=[U(3)], attrs=dict(offset=2), grad=[0]),
}
for _off, _low in ((0, True), (0, False), (1, True), (-1, True), (2, False), (-2, False)):
    CASES[f"extracttrian_{_off}_{_low}"] = dict(call="linalg.extracttrian", inputs=[U(2, 4, 4)],
                                                attrs=dict(offset=_off, lower=_low), grad=[0])
    CASES[f"maketrian_{_off}_{_low}"] = dict(call="linalg.maketrian", inputs=[U(2, 6)],
                                             attrs=dict(offset=_off, lower=_low), grad=[0])

_S = U(2, 3, lo=0.2, hi=2.5)
_K = np.array([[0, 1, 3], [2, 0, 5]], "f")
_P2 = [np.array([0.5, 1.5], "f"), np.array([0.7, 2.0], "f")]
CASES.update({
    "pdf_uniform": dict(call="random_pdf_uniform", inputs=[_S, np.array([0.0, 0.1], "f"),
                                                           np.array([3.0, 2.6], "f")], attrs={}),
    "pdf_normal": dict(call="random_pdf_normal", inputs=[_S - 1, *_P2], attrs={}, grad=[0, 1, 2]),
    "pdf_normal_log": dict(call="random_pdf_normal", inputs=[_S - 1, *_P2],
                           attrs=dict(is_log=True), grad=[0, 1, 2]),
    "pdf_gamma": dict(call="random_pdf_gamma", inputs=[_S, *_P2], attrs={}, grad=[0, 1, 2]),
    "pdf_exponential": dict(call="random_pdf_exponential", inputs=[_S, _P2[1]], attrs={},
                            grad=[0, 1]),
    "pdf_poisson": dict(call="random_pdf_poisson", inputs=[_K, _P2[1]], attrs={}, grad=[1]),
    "pdf_negative_binomial": dict(call="random_pdf_negative_binomial",
                                  inputs=[_K, np.array([2.0, 3.0], "f"),
                                          np.array([0.4, 0.7], "f")], attrs={}, grad=[2]),
    "pdf_gnb_log": dict(call="random_pdf_generalized_negative_binomial",
                        inputs=[_K, np.array([2.0, 3.0], "f"), np.array([0.4, 0.7], "f")],
                        attrs=dict(is_log=True), grad=[1, 2]),
    "pdf_dirichlet": dict(call="random_pdf_dirichlet",
                          inputs=[np.array([[[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]],
                                            [[0.1, 0.1, 0.8], [0.3, 0.3, 0.4]]], "f"),
                                  np.array([[1.0, 2.0, 3.0], [2.0, 2.5, 0.5]], "f")],
                          attrs={}, grad=[0, 1]),
    # AMP, finiteness, multi-tensor helpers
    "all_finite": dict(call="all_finite", inputs=[np.array([1.0, np.inf], "f")], attrs={}),
    "all_finite_ok": dict(call="all_finite", inputs=[U(3)], attrs={}),
    "multi_all_finite": dict(call="multi_all_finite",
                             inputs=[U(3), np.array([np.nan], "f"), U(2)],
                             attrs=dict(num_arrays=3)),
    "multi_sum_sq": dict(call="multi_sum_sq", inputs=[U(3), U(2, 2), U(5)],
                         attrs=dict(num_arrays=3)),
    "multi_lars": dict(call="multi_lars", inputs=[np.array([0.1, 0.2, 0.3, 0.4], "f"),
                                                  np.array([4.0, 0.0, 9.0, 2.0], "f"),
                                                  np.array([1.0, 1.0, 0.0, 3.0], "f"),
                                                  np.array([0.01, 0.02, 0.03, 0.0], "f")],
                       attrs=dict(eta=0.5, eps=1e-3, rescale_grad=0.5)),
    "amp_cast": dict(call="amp_cast", inputs=[U(4)], attrs=dict(dtype="float16")),
    "amp_cast_int": dict(call="amp_cast", inputs=[np.array([1, 2], "int32")],
                         attrs=dict(dtype="float16")),
    "contrib_isnan": dict(call="contrib.isnan", inputs=[np.array([1, np.nan, np.inf], "f")],
                          attrs={}),
    "contrib_isinf": dict(call="contrib.isinf", inputs=[np.array([1, np.nan, -np.inf], "f")],
                          attrs={}),
    "contrib_isfinite": dict(call="contrib.isfinite", inputs=[np.array([1, np.nan, np.inf], "f")],
                             attrs={}),
    "reset_arrays": dict(call="reset_arrays", inputs=[U(3), U(2, 2)], attrs=dict(num_arrays=2),
                         states=[0, 1]),
})

# optimizer updates: outputs and the states they update in place
_W, _G = [U(4), U(2, 3)], [U(4), U(2, 3)]
_M = [U(4, lo=-0.1, hi=0.1), U(2, 3, lo=-0.1, hi=0.1)]
_HP = dict(rescale_grad=0.9, clip_gradient=0.6)
CASES.update({
    "multi_sgd": dict(call="multi_sgd_update", out=[0, 2], inputs=[_W[0], _G[0], _W[1], _G[1]],
                      attrs=dict(lrs=(0.1, 0.2), wds=(0.01, 0.0), num_weights=2, **_HP)),
    "multi_sgd_mom": dict(call="multi_sgd_mom_update", out=[0, 3],
                          inputs=[_W[0], _G[0], _M[0], _W[1], _G[1], _M[1]],
                          attrs=dict(lrs=(0.1, 0.2), wds=(0.01, 0.02), momentum=0.9,
                                     num_weights=2, **_HP), states=[2, 5]),
    "multi_mp_sgd": dict(call="multi_mp_sgd_update", out=[0, 3],
                         inputs=[_W[0].astype("float16"), _G[0].astype("float16"), _W[0],
                                 _W[1].astype("float16"), _G[1].astype("float16"), _W[1]],
                         attrs=dict(lrs=(0.1, 0.2), wds=(0.01, 0.02), num_weights=2),
                         states=[2, 5]),
    "multi_mp_sgd_mom": dict(call="multi_mp_sgd_mom_update", out=[0],
                             inputs=[_W[0].astype("float16"), _G[0].astype("float16"), _M[0],
                                     _W[0]],
                             attrs=dict(lrs=(0.1,), wds=(0.01,), momentum=0.8, num_weights=1,
                                        **_HP), states=[2, 3]),
    "preloaded_multi_sgd": dict(call="preloaded_multi_sgd_update", out=[0, 2],
                                inputs=[_W[0], _G[0], _W[1], _G[1],
                                        np.array([0.1, 0.2], "f"), np.array([0.01, 0.0], "f")],
                                attrs=dict(num_weights=2, **_HP)),
    "preloaded_multi_sgd_mom": dict(call="preloaded_multi_sgd_mom_update", out=[0, 3],
                                    inputs=[_W[0], _G[0], _M[0], _W[1], _G[1], _M[1],
                                            np.array([0.1, 0.2], "f"),
                                            np.array([0.01, 0.02], "f")],
                                    attrs=dict(momentum=0.9, num_weights=2), states=[2, 5]),
    "preloaded_multi_mp_sgd": dict(call="preloaded_multi_mp_sgd_update", out=[0],
                                   inputs=[_W[0].astype("float16"), _G[0].astype("float16"),
                                           _W[0], np.array([0.1], "f"), np.array([0.01], "f")],
                                   attrs=dict(num_weights=1), states=[2]),
    "preloaded_multi_mp_sgd_mom": dict(call="preloaded_multi_mp_sgd_mom_update", out=[0],
                                       inputs=[_W[0].astype("float16"), _G[0].astype("float16"),
                                               _M[0], _W[0], np.array([0.1], "f"),
                                               np.array([0.01], "f")],
                                       attrs=dict(momentum=0.9, num_weights=1), states=[2, 3]),
    "lamb1": dict(call="lamb_update_phase1", inputs=[_W[1], _G[1], _M[1], np.abs(_M[1])],
                  attrs=dict(t=3, wd=0.01, beta1=0.8, beta2=0.95, epsilon=1e-5, **_HP),
                  states=[2, 3]),
    "lamb1_nobias": dict(call="lamb_update_phase1", inputs=[_W[1], _G[1], _M[1], np.abs(_M[1])],
                         attrs=dict(t=2, wd=0.0, bias_correction=False), states=[2, 3]),
    "lamb2": dict(call="lamb_update_phase2", inputs=[_W[1], _G[1], np.array([2.0], "f"),
                                                      np.array([0.5], "f")],
                  attrs=dict(lr=0.1, lower_bound=0.1, upper_bound=1.5)),
    "lamb2_zero": dict(call="lamb_update_phase2", inputs=[_W[1], _G[1], np.array([0.0], "f"),
                                                           np.array([0.5], "f")],
                       attrs=dict(lr=0.1)),
    "mp_lamb1": dict(call="mp_lamb_update_phase1",
                     inputs=[_W[1].astype("float16"), _G[1].astype("float16"), _M[1],
                             np.abs(_M[1]), _W[1]], attrs=dict(t=4, wd=0.02), states=[2, 3]),
    "mp_lamb2": dict(call="mp_lamb_update_phase2",
                     inputs=[_W[1].astype("float16"), _G[1], np.array([2.0], "f"),
                             np.array([0.5], "f"), _W[1]], attrs=dict(lr=0.1), states=[4]),
    "ftml": dict(call="ftml_update", inputs=[_W[0], _G[0], np.abs(_M[0]), np.abs(_M[0]) / 3,
                                             _M[0]],
                 attrs=dict(lr=0.05, t=2, wd=0.01, beta1=0.6, beta2=0.99, rescale_grad=0.8,
                            clip_grad=0.5), states=[2, 3, 4]),
    "mp_nag_mom": dict(call="mp_nag_mom_update",
                       inputs=[_W[0].astype("float16"), _G[0].astype("float16"), _M[0], _W[0]],
                       attrs=dict(lr=0.1, momentum=0.9, wd=0.01, **_HP), states=[2, 3]),
})


def resolve(mx, call):
    f = mx.nd
    for part in call.split("."):
        f = getattr(f, part)
    return f


def run_case(mx, case):
    """{'out<i>': outputs, 'state<i>': updated inputs, 'grad<i>': input gradients}."""
    fn = resolve(mx, case["call"])
    xs = [mx.nd.array(a, dtype=a.dtype) for a in case["inputs"]]
    grad = case.get("grad")
    if grad:
        for i in grad:
            xs[i].attach_grad()
        with mx.autograd.record():
            outs = fn(*xs, **case["attrs"])
            outs = outs if isinstance(outs, (list, tuple)) else [outs]
            rs = np.random.RandomState(1)
            heads = [mx.nd.array(rs.uniform(-1, 1, o.shape), dtype=o.dtype) for o in outs]
            total = None
            for o, h in zip(outs, heads):
                term = (o * h).sum()
                total = term if total is None else total + term
        if case["call"] == "SVMOutput":
            outs[0].backward()
        else:
            total.backward()
    elif case.get("out"):
        targets = [xs[i] for i in case["out"]]
        fn(*xs, out=targets, **case["attrs"])
        outs = targets
    else:
        outs = fn(*xs, **case["attrs"])
        outs = outs if isinstance(outs, (list, tuple)) else [outs]
    res = {f"out{i}": o.asnumpy() for i, o in enumerate(outs)}
    for i in case.get("states") or ():
        res[f"state{i}"] = xs[i].asnumpy()
    for i in grad or ():
        res[f"grad{i}"] = xs[i].grad.asnumpy()
    return res


ERRORS = {
    "moments_no_axes": dict(call="moments", inputs=[U(2, 3)], attrs={}),
    "ravel_bad_shape": dict(call="ravel_multi_index", inputs=[np.zeros((3, 2), "f")],
                            attrs=dict(shape=(2, 2))),
    "maketrian_not_triangular": dict(call="linalg.maketrian", inputs=[U(4)], attrs={}),
    "potrf_not_positive_definite": dict(call="linalg.potrf",
                                        inputs=[np.array([[1.0, 2.0], [2.0, 1.0]], "f")],
                                        attrs={}),
}


def run_error(mx, case):
    try:
        run_case(mx, case)
        mx.nd.waitall()
    except Exception as e:
        return type(e).__name__
    return None
