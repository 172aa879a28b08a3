"""gluon.data.DataLoader with worker processes (num_workers > 0) and thread pools: batches
equal MXNet 1.9.1's with 2 workers (goldens from tests/make_dataloader_goldens.py) and xnd's
with num_workers=0; errors, timeouts and shutdown; the processes-or-threads policy (threads,
same batches, one DataLoaderFallbackWarning, when the dataset does not pickle, the workers
cannot start, or the main script is not guarded; scripts run with `python -m xnd run`). The
transforms live in make_dataloader_goldens (numpy only), so the spawned workers do not import
xnd/JAX."""
import ast
import gc
import json
import multiprocessing
import os
import pickle
import signal
import subprocess
import sys
import textwrap
import time
import types
import warnings

import numpy as np
import pytest

import xnd as mx
from xnd.frontend.gluon.data import dataloader as DL
from xnd.frontend.gluon.data import _loader_pool as POOL
from xnd.frontend.gluon.data import _loader_workers as WORKERS

import make_dataloader_goldens as G

D = mx.gluon.data
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
with open(G.OUT) as _f:
    GOLD = json.load(_f)


def _workers():
    gc.collect()  # a loader in a reference cycle (e.g. a traceback kept by pytest.raises)
    return [p for p in multiprocessing.active_children() if p.name.startswith("DataLoaderWorker")]


def _run(name, num_workers, **extra):
    return json.loads(json.dumps(G.run_case(mx, name, num_workers, **extra)))


def _strip_ctx(res):
    return {"len": res["len"],
            "epochs": [[[a[:4] for a in b] for b in ep] for ep in res["epochs"]]}


@pytest.mark.parametrize("name", list(G.cases(mx)))
def test_two_workers_match_mxnet_and_num_workers_0(name):
    got = _run(name, 2)
    assert got == GOLD[name]  # values, dtypes, shapes, order, types, context (cpu_shared(0))
    assert _strip_ctx(_run(name, 0)) == _strip_ctx(GOLD[name])
    assert not _workers()


@pytest.mark.parametrize("name", ["array_rollover", "fixed_sampler", "shuffle_seed3",
                                  "nd_transform", "simple_tuples", "numpy_batchify",
                                  "pin_memory"])
def test_thread_pool_matches_mxnet(name):
    assert _run(name, 2, thread_pool=True) == GOLD[name]


def test_workers_do_not_import_jax():
    loader = D.DataLoader(D.ArrayDataset(G.X, G.Y).transform_first(G.worker_modules),
                          batch_size=5, num_workers=2)
    flags = np.concatenate([b[0].asnumpy() for b in loader])
    assert not flags.any(), "a worker imported jax/xnd/mxnet for a numpy dataset"
    times = loader._worker_pool.startup_times
    assert all(t is not None and 0 < t < 60 for t in times), times


def test_worker_exception_propagates_with_traceback():
    loader = D.DataLoader(D.ArrayDataset(G.X, G.Y).transform_first(G.boom), batch_size=2,
                          num_workers=2)
    got = []
    with pytest.raises(ValueError, match="boom: sample sum 48") as info:
        for b in loader:
            got.append(b[1].asnumpy().tolist())
    assert got == [[0, 1], [2, 3]]
    cause = info.value.__cause__
    assert isinstance(cause, multiprocessing.pool.RemoteTraceback)
    assert "Traceback" in str(cause) and "in boom" in str(cause) and "boom: sample" in str(cause)
    pids = [p.pid for p in loader._worker_pool.procs]
    # the pool survives a failed epoch (MXNet 1.9.1 terminates it; the loader is then unusable)
    assert next(iter(loader))[1].asnumpy().tolist() == [0, 1]
    assert [p.pid for p in loader._worker_pool.procs] == pids


def test_timeout_raises_clear_error_and_restarts():
    loader = D.DataLoader(D.ArrayDataset(G.X, G.Y).transform_first(G.slow_first), batch_size=2,
                          num_workers=1, timeout=1, sampler=[2, 3, 0, 1])
    it = iter(loader)
    assert next(it)[1].asnumpy().tolist() == [2, 3]
    t0 = time.monotonic()
    with pytest.raises(multiprocessing.TimeoutError, match="timed out after 1 seconds") as info:
        next(it)
    assert time.monotonic() - t0 < 4
    assert isinstance(info.value, DL.DataLoaderTimeoutError)
    assert "increase `timeout`" in str(info.value)
    old = loader._worker_pool.procs
    assert not any(p.is_alive() for p in old)
    assert not _workers()
    del it, loader
    assert not _workers()


def _batches(loader):
    return [[[np.dtype(a.dtype).name, a.asnumpy().tolist()] for a in b] for b in loader]


def _fallbacks(record):
    return [w for w in record if issubclass(w.category, DL.DataLoaderFallbackWarning)]


def test_unpicklable_dataset_falls_back_to_threads():
    WORKERS._warned.clear()
    ds = D.ArrayDataset(G.X, G.Y).transform_first(lambda x: x * 2)
    expect = _batches(D.DataLoader(ds, batch_size=4))
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        loader = D.DataLoader(ds, batch_size=4, num_workers=2)
        assert not multiprocessing.active_children()  # no process was started
        assert _batches(loader) == expect  # values, dtypes and order of num_workers=0
        assert _batches(D.DataLoader(ds, batch_size=4, num_workers=2)) == expect
    assert isinstance(loader._worker_pool, POOL._ThreadPool)
    assert [str(b[0].context) for b in loader] == ["cpu_shared(0)"] * 3  # as MXNet's workers
    warned = _fallbacks(record)
    assert len(warned) == 1  # once, for both loaders
    msg = str(warned[0].message)
    assert issubclass(warned[0].category, UserWarning)
    assert "threads" in msg and "<lambda>" in msg and "module level" in msg, msg
    assert warned[0].filename == __file__  # points at the line that made the DataLoader
    assert "<lambda>" in loader.fallback_reason
    assert not _workers()
    # the error is still what the pickling step raises
    with pytest.raises(DL.UnpicklableDatasetError) as info:
        WORKERS._worker_payload(ds, DL.default_mp_batchify_fn)
    assert isinstance(info.value, pickle.PicklingError) and "<lambda>" in info.value.what
    # thread_pool=True asks for threads: no warning
    WORKERS._warned.clear()
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        assert _batches(D.DataLoader(ds, batch_size=4, num_workers=2, thread_pool=True)) == \
            expect
    assert not _fallbacks(record)


def test_function_of_unimportable_main_falls_back(monkeypatch):
    """A function of __main__ that workers cannot import (pytest has no such script, or
    has it without this name): threads, not a worker that fails to load the dataset."""
    WORKERS._warned.clear()

    def tf_in_main(x):
        return x + 1

    tf_in_main.__module__ = "__main__"
    tf_in_main.__qualname__ = "tf_in_main"
    monkeypatch.setattr(sys.modules["__main__"], "tf_in_main", tf_in_main, raising=False)
    ds = D.ArrayDataset(G.X, G.Y).transform_first(tf_in_main)
    with pytest.warns(DL.DataLoaderFallbackWarning, match="tf_in_main"):
        loader = D.DataLoader(ds, batch_size=4, num_workers=2)
    assert _batches(loader) == _batches(D.DataLoader(ds, batch_size=4))
    assert not _workers()


def test_workers_that_cannot_start_fall_back_to_threads(monkeypatch):
    """The dataset pickles here but a worker cannot load it (its module exists only in this
    process): the batches asked of the workers are made again in threads, in order."""
    WORKERS._warned.clear()
    ghost = types.ModuleType("xnd_test_ghost_module")
    exec("def triple(x):\n    return x * 3\n", ghost.__dict__)
    monkeypatch.setitem(sys.modules, ghost.__name__, ghost)
    ds = D.ArrayDataset(G.X, G.Y).transform_first(ghost.triple)
    expect = _batches(D.DataLoader(ds, batch_size=3, sampler=G.ORDER))
    loader = D.DataLoader(ds, batch_size=3, sampler=G.ORDER, num_workers=2)
    assert isinstance(loader._worker_pool, POOL._ProcessPool)
    with pytest.warns(DL.DataLoaderFallbackWarning, match="did not start"):
        got = _batches(loader)
    assert got == expect
    assert isinstance(loader._worker_pool, POOL._ThreadPool)
    assert "xnd_test_ghost_module" in loader.fallback_reason
    assert _batches(loader) == expect
    assert not _workers()


def test_main_guard_analysis(tmp_path):
    src = textwrap.dedent("""\
        import os, numpy as np
        from a.b import c as d
        X = 1

        def top(x):
            return x

        class Top:
            pass

        try:
            import mxnet as mx
        except ImportError:
            mx = None
        if '__main__' == __name__:
            def inner(x):
                return x
            go()
        else:
            other = 2
        with open(os.devnull) as fh:
            if __name__ == "__main__":
                also()
        unguarded()
        if __name__ == '__main__':
            main()

            last()
        """)
    info = WORKERS._ScriptInfo(ast.parse(src))
    lines = src.splitlines()
    guarded = [i + 1 for i in range(len(lines)) if info.guarded(i + 1)]
    assert [lines[i - 1].strip() for i in guarded] == \
        ["def inner(x):", "return x", "go()", "also()", "main()", "", "last()"]
    assert {"os", "np", "d", "X", "top", "Top", "mx", "other", "fh"} <= info.names
    assert "inner" not in info.names
    path = tmp_path / "s.py"
    path.write_text(src)
    assert WORKERS._script_info(str(path)) is WORKERS._script_info(str(path))  # parsed once
    path.write_text("def broken(:\n")
    assert "SyntaxError" in WORKERS._script_info(str(path))
    assert "FileNotFoundError" in WORKERS._script_info(str(tmp_path / "missing.py"))


UNGUARDED = """\
import multiprocessing
import numpy as np
import mxnet as mx

print("top level ran", flush=True)
ds = mx.gluon.data.ArrayDataset(np.arange(12, dtype=np.float32).reshape(6, 2), np.arange(6))
loader = mx.gluon.data.DataLoader(ds, batch_size=2, num_workers=2)
for data, label in loader:
    print("batch", float(data.sum().asscalar()), label.asnumpy().tolist(),
          np.dtype(data.dtype).name, np.dtype(label.dtype).name,
          "children", len(multiprocessing.active_children()), flush=True)
"""

GUARDED = """\
import multiprocessing
import os
import numpy as np
import mxnet as mx


def pid_first(x):
    return np.array([os.getpid()], dtype=np.int64)


def main():
    print("main ran", flush=True)
    ds = mx.gluon.data.ArrayDataset(np.arange(12, dtype=np.float32).reshape(6, 2),
                                    np.arange(6)).transform_first(pid_first)
    loader = mx.gluon.data.DataLoader(ds, batch_size=2, num_workers=2)
    pids = set()
    for pid, label in loader:
        pids.update(pid.asnumpy().ravel().tolist())
        print("labels", label.asnumpy().tolist(),
              "children", len(multiprocessing.active_children()), flush=True)
    print("main pid in batches", os.getpid() in pids, "fallback", loader.fallback_reason)


if __name__ == "__main__":
    main()
"""


def _run_script(tmp_path, name, text):
    script = tmp_path / name
    script.write_text(text)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, [ROOT, os.environ.get("PYTHONPATH")])), JAX_PLATFORMS="cpu")
    # `python -m xnd run`: `import mxnet` is xnd in the script and in its workers
    return subprocess.run([sys.executable, "-m", "xnd", "run", str(script)], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=300)


def test_unguarded_script_runs_once_on_threads(tmp_path):
    r = _run_script(tmp_path, "unguarded.py", UNGUARDED)
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("top level ran") == 1, r.stdout  # no worker re-ran the script
    assert [ln for ln in r.stdout.splitlines() if ln.startswith("batch")] == [
        "batch 6.0 [0, 1] float32 int64 children 0",
        "batch 22.0 [2, 3] float32 int64 children 0",
        "batch 38.0 [4, 5] float32 int64 children 0"]
    assert r.stderr.count("DataLoaderFallbackWarning") == 1, r.stderr
    assert "unguarded.py:7: DataLoaderFallbackWarning" in r.stderr, r.stderr
    assert "if __name__ == '__main__':" in r.stderr and "(line 7)" in r.stderr, r.stderr


def test_guarded_script_uses_worker_processes(tmp_path):
    r = _run_script(tmp_path, "guarded.py", GUARDED)
    assert r.returncode == 0, r.stderr
    assert "DataLoaderFallbackWarning" not in r.stderr, r.stderr
    out = r.stdout.splitlines()
    assert out.count("main ran") == 1, r.stdout  # the workers import the script, guarded
    assert [ln for ln in out if ln.startswith("labels")] == [
        "labels [0, 1] children 2", "labels [2, 3] children 2", "labels [4, 5] children 2"]
    assert out[-1] == "main pid in batches False fallback None", r.stdout


def test_early_break_concurrent_iterators_and_prefetch():
    ds = D.ArrayDataset(G.X, G.Y).transform_first(G.scale_first)
    expect = [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9]]
    loader = D.DataLoader(ds, batch_size=2, num_workers=2)
    pids = [p.pid for p in loader._worker_pool.procs]
    for b in loader:
        break
    assert [b[1].asnumpy().tolist() for b in loader] == expect
    it1, it2 = iter(loader), iter(loader)
    got1, got2 = [], []
    for _ in range(2):
        got1.append(next(it1)[1].asnumpy().tolist())
        got2.append(next(it2)[1].asnumpy().tolist())
    got2 += [b[1].asnumpy().tolist() for b in it2]
    got1 += [b[1].asnumpy().tolist() for b in it1]
    assert got1 == expect and got2 == expect
    assert [p.pid for p in loader._worker_pool.procs] == pids  # one pool for every epoch
    for prefetch in (0, 1):
        ld = D.DataLoader(ds, batch_size=2, num_workers=1, prefetch=prefetch)
        assert [b[1].asnumpy().tolist() for b in ld] == expect
    ld = D.DataLoader(ds, batch_size=2, num_workers=1, auto_reload=True)
    assert [[b[1].asnumpy().tolist() for b in ld] for _ in range(2)] == [expect, expect]


def test_no_leftover_processes_after_del():
    loader = D.DataLoader(D.ArrayDataset(G.X, G.Y), batch_size=2, num_workers=2)
    it = iter(loader)
    next(it)
    procs = list(loader._worker_pool.procs)
    assert len(_workers()) == 2
    del loader  # the live iterator keeps it
    assert all(p.is_alive() for p in procs)
    del it
    assert not [p for p in multiprocessing.active_children()
                if p.name.startswith("DataLoaderWorker")]  # no gc.collect() needed
    assert not _workers()
    assert not any(p.is_alive() for p in procs)


def test_dead_worker_raises_then_restarts():
    loader = D.DataLoader(D.ArrayDataset(G.X, G.Y), batch_size=2, num_workers=2, prefetch=0)
    assert len(list(loader)) == 5  # workers are up
    victim = loader._worker_pool.procs[0]
    os.kill(victim.pid, signal.SIGKILL)
    victim.join(5)
    with pytest.raises(DL.DataLoaderWorkerError, match="killed by signal 9"):
        list(loader)
    assert [b[1].asnumpy().tolist() for b in loader][-1] == [8, 9]  # a new pool
    assert len(_workers()) == 2


def test_default_batchify_fast_path_respects_subclass_getitem():
    class Doubled(D.ArrayDataset):
        def __getitem__(self, idx):
            x, y = super().__getitem__(idx)
            return x * 2, y

    got = [b[0].asnumpy() for b in D.DataLoader(Doubled(G.X, G.Y), batch_size=5)]
    np.testing.assert_array_equal(np.concatenate(got), G.X * 2)


def test_default_mp_batchify_fn_is_on_cpu_shared():
    out = D.default_mp_batchify_fn([(np.ones(2, np.float32), 1), (np.zeros(2, np.float32), 2)])
    assert [str(o.context) for o in out] == ["cpu_shared(0)", "cpu_shared(0)"]
    assert [np.dtype(o.dtype).name for o in out] == ["float32", "int64"]


def test_dataset_of_ndarrays_loads_in_worker_processes():
    # NDArrays in the dataset travel as numpy and become NDArrays again in the worker, which
    # imports xnd for them (the worker file runs by path: its import of xnd is absolute)
    data = [mx.nd.array([i, i + 1], dtype="int32") for i in range(0, 8, 2)]
    loader = D.DataLoader(D.SimpleDataset(data), batch_size=2, num_workers=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DL.DataLoaderFallbackWarning)
        got = [(b.asnumpy().tolist(), np.dtype(b.dtype).name) for b in loader]
    assert got == [([[0, 1], [2, 3]], "int32"), ([[4, 5], [6, 7]], "int32")]
    assert isinstance(loader._worker_pool, POOL._ProcessPool)
    assert loader.fallback_reason is None
