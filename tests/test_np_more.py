"""mx.np / mx.npx names beyond the operator table against MXNet 1.9.1 (goldens from
make_np_more_goldens.py, whose case table this file runs on xnd): genfromtxt (numpy's
reader, an mx.np array of numpy's dtype on ctx), the fallback functions (official NumPy's
on host copies: histogram2d/dd, histogram_bin_edges, piecewise, poly, polydiv, polyfit,
polyint, roots, apply_over_axes, msort, trapz), row_stack, the NEP 32 financial functions
(RuntimeError), np.linalg.fallback_linalg and npx's detection operators."""
import os
import sys

import numpy as onp
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_files  # noqa: E402
import make_np_more_goldens as G  # noqa: E402
import xnd.compat  # noqa: E402

xnd.compat.alias_mxnet()
import mxnet as mx  # noqa: E402

META, NPZ = golden_files.read("np_more")
# the fallback functions are NumPy's own: NumPy 2's histogramdd keeps float32 bin edges
# where numpy 1.23 (MXNet 1.9.1's) made them float64 -- NumPy's change, same values
_NUMPY2_EDGES = {"histogram2d.1", "histogram2d.2", "histogramdd.1.0", "histogramdd.1.1"}


def _expected(case):
    rows = META["cases"][case]
    if int(onp.__version__.split(".")[0]) < 2:
        return rows
    return [[k, m, "float32" if k in _NUMPY2_EDGES else dt, sh] for k, m, dt, sh in rows]


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    return G.run(mx, str(tmp_path_factory.mktemp("np_more")))


@pytest.mark.parametrize("case", sorted(META["cases"]))
def test_case_matches_mxnet(results, case):
    meta, arrays = results
    assert meta["cases"][case] == _expected(case)  # mx array or not, dtype, shape
    for key, *_ in META["cases"][case]:
        onp.testing.assert_allclose(arrays[key], NPZ[key], rtol=1e-5, atol=1e-6, err_msg=key)


def test_errors_and_modules_match_mxnet(results):
    meta = results[0]
    for key in ("errors", "genfromtxt_ctx", "linalg_fallback"):
        assert meta[key] == META[key], key


def test_names_are_numpy_functions():
    # MXNet's fallback names are official NumPy's own functions (not wrappers)
    assert mx.np.polyfit is onp.polyfit and mx.np.histogram2d is onp.histogram2d
    assert mx.np.linalg.fallback_linalg.qr is onp.linalg.qr
    for name in ("genfromtxt", "row_stack", "msort", "trapz", "pv", "roots"):
        assert name in dir(mx.np) and callable(getattr(mx.np, name))
    for name in ("multibox_prior", "multibox_detection", "multibox_target", "roi_pooling",
                 "gpu_memory_info", "get_cuda_compute_capability"):
        assert callable(getattr(mx.npx, name))


def test_genfromtxt_ctx_and_legacy_inputs(tmp_path):
    path = tmp_path / "d.txt"
    path.write_text("1.5 2\n3 4.25\n")
    out = mx.np.genfromtxt(str(path), ctx=mx.cpu(0))
    assert isinstance(out, mx.np.ndarray) and out.dtype == onp.float64
    assert out.ctx == mx.cpu(0)
    onp.testing.assert_array_equal(out.asnumpy(), [[1.5, 2.0], [3.0, 4.25]])
    with pytest.raises(TypeError, match="NDArray"):  # legacy arrays are refused in npx ops
        mx.npx.multibox_prior(mx.nd.zeros((1, 3, 2, 2)), sizes=[0.5])
