"""The importable surface of issue 14 against MXNet 1.9.1 goldens
(tests/make_surface_goldens.py runs tests/surface_cases.py on MXNet): mxnet.base names,
mx.util's NumPy-semantics switches and what they do to shape inference, mx.test_utils
helpers (and what its star import gives), mx.nd.sparse names, symbol details,
autograd.get_symbol and _fresh_grad."""
import json
import os
import threading

import pytest

import xnd as mx
import xnd.compat
from surface_cases import CASES, run_case

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "goldens", "surface", "surface.json")) as f:
    GOLDEN = json.load(f)

xnd.compat.alias_mxnet()  # the star-import case imports `mxnet.test_utils`


def _norm(v):
    """JSON's view of a value (tuples become lists, bools stay bools)."""
    return json.loads(json.dumps(v))


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_matches_mxnet(name):
    assert name in GOLDEN, f"{name}: no golden; rerun make_surface_goldens.py on MXNet 1.9.1"
    got = _norm(run_case(mx, CASES[name]))
    assert got == GOLDEN[name]


def test_every_golden_has_a_case():
    assert sorted(GOLDEN) == sorted(CASES)


def test_ctypes_names_raise_no_c_library():
    """An extension of MXNet's surface (docs/porting.md): the ctypes bridge exists by name
    but raises MXNetError saying that xnd has no C library."""
    for call in (lambda: mx.base.check_call(0), lambda: mx.base.c_str("x"),
                 lambda: mx.base._LIB.MXGetVersion, lambda: mx.base.SymbolHandle()):
        with pytest.raises(mx.base.MXNetError, match="no C library"):
            call()


def test_np_shape_is_per_thread_unless_global():
    seen = []
    with mx.np_shape(True):
        t = threading.Thread(target=lambda: seen.append(mx.is_np_shape()))
        t.start()
        t.join()
    assert seen == [False]
    try:
        mx.set_np_shape(2)  # MXNet's GlobalOn
        t = threading.Thread(target=lambda: seen.append(mx.is_np_shape()))
        t.start()
        t.join()
    finally:
        mx.set_np_shape(0)
    assert seen == [False, True] and not mx.is_np_shape()


def test_missing_data_files_name_the_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(mx.test_utils.DownloadError, match="train-images-idx3-ubyte"):
        mx.test_utils.get_mnist_ubyte()
    with pytest.raises(mx.test_utils.DownloadError, match="train.rec"):
        mx.test_utils.get_cifar10()
