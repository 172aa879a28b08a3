"""Operator output shapes kept between processes (xnd/symbol/shape_cache.py): a second
process infers a graph's shapes without tracing its operators, an unreadable file is
ignored, and shapes that may depend on user code are never kept."""
import json
import os

import pytest
from test_compile_cache import _child

import xnd as mx
from xnd import _compat_jax
from xnd.symbol import infer, shape_cache


@pytest.fixture
def cache_file(tmp_path, monkeypatch):
    f = tmp_path / "xnd-shapes-test.json"
    monkeypatch.setattr(shape_cache, "_state", {"path": str(f), "known": None, "new": {}, "at_exit": True})
    monkeypatch.setattr(infer, "_MEMO", {})
    return f


def _net():
    x = mx.sym.Variable("data")
    h = mx.sym.Convolution(x, num_filter=6, kernel=(3, 3), stride=(2, 2), name="c")
    return mx.sym.FullyConnected(mx.sym.Pooling(h, kernel=(2, 2), pool_type="max"),
                                 num_hidden=4, name="fc")


def test_shapes_written_at_exit_are_read_without_tracing(cache_file, monkeypatch):
    want = _net().infer_shape(data=(2, 3, 11, 11))
    assert want[1] == [(2, 4)]
    shape_cache.flush()
    data = json.loads(cache_file.read_text())
    assert any(k.startswith("('Convolution'") for k in data)
    # a "new process": empty memos, and tracing an operator would fail
    monkeypatch.setattr(shape_cache, "_state", {"path": str(cache_file), "known": None, "new": {}, "at_exit": True})
    monkeypatch.setattr(infer, "_MEMO", {})

    def no_trace(*a):
        raise AssertionError("traced")
    monkeypatch.setattr(infer, "_eval_node", no_trace)
    assert _net().infer_shape(data=(2, 3, 11, 11)) == want
    with pytest.raises(AssertionError, match="traced"):      # another shape: not in the file
        _net().infer_shape(data=(2, 3, 13, 13))


def test_an_unreadable_file_is_ignored_and_replaced(cache_file):
    cache_file.write_text('{"torn')
    assert _net().infer_shape(data=(1, 3, 9, 9))[1] == [(1, 4)]
    shape_cache.flush()
    assert len(json.loads(cache_file.read_text())) >= 3


def test_user_code_and_objects_are_never_keys(cache_file):
    s = [mx.sym.Variable("x").__class__]     # (any object)
    assert shape_cache.key("Custom", {"op_type": "mine"}, False, []) is None
    assert shape_cache.key("_foreach", {"body": s[0]}, False, []) is None
    assert shape_cache.key("Flatten", {}, False, []).startswith("('Flatten'")


_CHILD = """
import json, sys
import xnd as mx
from xnd.symbol import infer, shape_cache
traced = []
real = infer._eval_node
infer._eval_node = lambda *a: traced.append(1) or real(*a)
net = mx.gluon.nn.HybridSequential()
net.add(mx.gluon.nn.Conv2D(4, 3), mx.gluon.nn.Dense(3))     # deferred shapes
net.initialize(mx.init.Constant(0.5))
net.hybridize()
y = net(mx.nd.ones((2, 1, 5, 5)))
print(json.dumps({"traced": len(traced), "path": shape_cache.path(), "y": y.asnumpy().tolist()}))
"""


def test_a_second_process_reads_the_first_ones_shapes(tmp_path):
    cold = _child(str(tmp_path), _CHILD)
    warm = _child(str(tmp_path), _CHILD)
    assert cold["traced"] > 0 and warm["y"] == cold["y"]
    # 4 maps of 3x3, each 9 * 0.5 (Gluon's biases start at 0), into Dense's 0.5 weights
    assert cold["y"][0] == [0.5 * 36 * (0.5 * 9)] * 3
    if _compat_jax.PERSISTENT_CACHE:
        assert os.path.basename(cold["path"]).startswith("xnd-shapes-")
        assert warm["traced"] == 0
    else:                                    # no compilation cache (jax 0.4.30): none kept
        assert cold["path"] is None and warm["traced"] == cold["traced"]
    off = _child("off", _CHILD)
    assert off["path"] is None and off["traced"] == cold["traced"]
