"""The bound on live XLA programs: past it, the next eager call frees JAX's in-memory caches
and results stay right (a process meeting thousands of shapes used to die in LLVM)."""
import jax
import numpy as np

import xnd as mx
from xnd.lowering import live_executables as live


def _compiles(n, monkeypatch, maps):
    monkeypatch.setattr(live, "map_count", lambda: maps)
    for _ in range(n):
        live._on_event(live._EVENT, 0.01)


def test_a_release_is_due_only_past_the_map_share(monkeypatch):
    monkeypatch.setattr(live, "LIMIT", 1000)
    monkeypatch.setitem(live.STATE, "since", 0)
    monkeypatch.setitem(live.STATE, "due", False)
    _compiles(live.CHECK_EVERY, monkeypatch, maps=599)
    assert live.STATE["due"] is False
    _compiles(live.CHECK_EVERY, monkeypatch, maps=601)
    assert live.STATE["due"] is True


def test_without_proc_the_compile_count_bounds(monkeypatch):
    monkeypatch.setattr(live, "LIMIT", None)
    monkeypatch.setattr(live, "MAX_COMPILES", 2 * live.CHECK_EVERY)
    monkeypatch.setitem(live.STATE, "since", 0)
    monkeypatch.setitem(live.STATE, "due", False)
    _compiles(live.CHECK_EVERY, monkeypatch, maps=None)
    assert live.STATE["due"] is False
    _compiles(live.CHECK_EVERY, monkeypatch, maps=None)
    assert live.STATE["due"] is True


def test_the_next_eager_call_releases_and_computes(monkeypatch):
    x = mx.nd.array([[1.0, -2.0], [3.0, 4.0]])
    assert (mx.nd.relu(x).asnumpy() == [[1, 0], [3, 4]]).all()
    f = jax.jit(lambda a: a + 1)
    f(np.zeros(3, np.float32))
    seen = live.STATE["since"]
    f(np.zeros(3, np.float32))
    assert live.STATE["since"] == seen   # cached: no compilation
    before = live.releases()
    monkeypatch.setitem(live.STATE, "due", True)
    y = mx.nd.relu(x * 2)
    assert live.releases() == before + 1 and live.STATE["due"] is False
    seen = live.STATE["since"]
    f(np.zeros(3, np.float32))
    assert live.STATE["since"] == seen + 1   # JAX's executables were dropped: compiled again
    np.testing.assert_array_equal(y.asnumpy(), [[2, 0], [6, 8]])
    np.testing.assert_array_equal(mx.nd.relu(x).asnumpy(), [[1, 0], [3, 4]])  # recompiled


def test_no_release_inside_a_trace(monkeypatch):
    before = live.releases()
    live.release_if_concrete([jax.numpy.zeros(2)])
    assert live.releases() == before + 1
    jax.jit(lambda a: live.release_if_concrete([a]) or a)(np.ones(2, np.float32))
    assert live.releases() == before + 1


def test_a_release_is_due_past_the_resident_share(monkeypatch):
    monkeypatch.setattr(live, "LIMIT", None)
    monkeypatch.setattr(live, "MAX_COMPILES", 10 ** 6)
    monkeypatch.setattr(live, "PHYSICAL", 1000)
    monkeypatch.setitem(live.STATE, "since", 0)
    monkeypatch.setitem(live.STATE, "due", False)
    monkeypatch.setattr(live, "resident_bytes", lambda: 249)
    _compiles(live.CHECK_EVERY, monkeypatch, maps=None)
    assert live.STATE["due"] is False
    monkeypatch.setattr(live, "resident_bytes", lambda: 251)
    _compiles(live.CHECK_EVERY, monkeypatch, maps=None)
    assert live.STATE["due"] is True


def test_resident_bytes_reads_this_process():
    rss = live.resident_bytes()
    assert rss is None or 10 * 2 ** 20 < rss < live.PHYSICAL
