"""A script that raises after using gluon.data.DataLoader exits as Python does: the traceback
on stderr and status 1 (issue 44). Before, the daemon worker threads of the thread pool (the
fallback that Dive into Deep Learning's unguarded scripts get with ``num_workers=4``) could be
inside a JAX call when the interpreter finalized, and the process aborted ("terminate called
... FATAL: exception not rethrown"). Also: batches are ``mx.np`` arrays under NumPy array
semantics in every loader path (as MXNet's ``default_batchify_fn`` and worker initializers)."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import xnd as mx
from xnd import semantics

SCRIPT = textwrap.dedent("""
    import sys
    import numpy as onp
    import xnd as mx
    from xnd import gluon, np, npx
    npx.set_np()
    WORKERS, WHERE = int(sys.argv[1]), sys.argv[2]

    class Images(gluon.data.Dataset):
        def __init__(self):
            self.x = onp.random.RandomState(0).randint(0, 255, (128, 28, 28, 1)).astype("uint8")
        def __getitem__(self, i):  # JAX work in the worker threads
            return np.array(self.x[i], dtype="uint8"), i % 10
        def __len__(self):
            return len(self.x)

    trans = gluon.data.vision.transforms.ToTensor()
    loader = gluon.data.DataLoader(Images().transform_first(trans), 32, shuffle=True,
                                   num_workers=WORKERS)
    for X, y in loader:
        assert type(X) is np.ndarray and type(y) is np.ndarray, (type(X), type(y))
        if WHERE == "mid":   # the threads are still making the prefetched batches
            raise RuntimeError("user error in the loop")
    raise ValueError("user error after the epoch")
""")


@pytest.mark.parametrize("workers,where,error,runs", [
    (4, "mid", "RuntimeError: user error in the loop", 3),  # the abort was a race
    (4, "end", "ValueError: user error after the epoch", 1),
    (0, "mid", "RuntimeError: user error in the loop", 1),
])
def test_script_raising_after_dataloader_exits_with_status_1(tmp_path, workers, where, error,
                                                             runs):
    script = tmp_path / "d2l_like.py"
    script.write_text(SCRIPT)
    for _ in range(runs):
        p = subprocess.run([sys.executable, str(script), str(workers), where],
                           capture_output=True, text=True, timeout=300)
        assert p.returncode == 1, p.stderr[-3000:]
        assert "Traceback (most recent call last)" in p.stderr
        assert p.stderr.rstrip().endswith(error), p.stderr[-2000:]
        assert "terminate called" not in p.stderr and "FATAL" not in p.stderr


class _Pairs(mx.gluon.data.Dataset):
    def __getitem__(self, i):
        return mx.np.array([[i, i + 0.5]]), np.int32(i)

    def __len__(self):
        return 6


@pytest.mark.parametrize("kw", [{"num_workers": 0}, {"num_workers": 2, "thread_pool": True}])
def test_np_semantics_batches_are_np_arrays(kw):
    """MXNet 1.9.1 gives mxnet.numpy.ndarray for data and label in each of these paths."""
    old = (semantics.is_np_shape(), semantics.is_np_array())
    mx.npx.set_np()
    try:
        loader = mx.gluon.data.DataLoader(_Pairs(), batch_size=3, **kw)
        got = [(X, y) for X, y in loader]
    finally:
        semantics.set_flag("np_shape", old[0])
        semantics.set_flag("np_array", old[1])
    assert len(got) == 2
    for k, (X, y) in enumerate(got):
        assert type(X) is mx.np.ndarray and type(y) is mx.np.ndarray
        idx = np.arange(3 * k, 3 * k + 3)
        np.testing.assert_array_equal(X.asnumpy(), np.stack([[[i, i + 0.5]] for i in idx]))
        assert X.dtype == np.float32 and y.dtype == np.int32
        np.testing.assert_array_equal(y.asnumpy(), idx)
    legacy = next(iter(mx.gluon.data.DataLoader(_Pairs(), batch_size=3, **kw)))
    assert type(legacy[1]) is mx.nd.NDArray  # legacy semantics: legacy arrays, as MXNet


@pytest.mark.parametrize("kw", [{"num_workers": 0}, {"num_workers": 2, "thread_pool": True}])
def test_np_semantics_fast_path_batches_are_np_arrays(kw):
    """An ArrayDataset's one-gather batches are mx.np arrays too (MXNet 1.9.1: ndarray,
    float32 and int32, shape (3, 2))."""
    ds = mx.gluon.data.ArrayDataset(np.arange(12, dtype=np.float32).reshape(6, 2),
                                    np.arange(6, dtype=np.int32))
    old = semantics.is_np_array()
    semantics.set_flag("np_array", True)
    try:
        X, y = next(iter(mx.gluon.data.DataLoader(ds, batch_size=3, **kw)))
    finally:
        semantics.set_flag("np_array", old)
    assert type(X) is mx.np.ndarray and type(y) is mx.np.ndarray
    np.testing.assert_array_equal(X.asnumpy(), [[0, 1], [2, 3], [4, 5]])
    assert X.dtype == np.float32 and y.dtype == np.int32


def test_exit_hook_joins_worker_threads():
    """The hook that runs before finalization leaves no DataLoader thread alive, also of a
    loader collected with batches still queued."""
    import threading
    from xnd.frontend.gluon.data import _loader_pool as POOL
    ds = mx.gluon.data.ArrayDataset(np.arange(64, dtype=np.float32))
    loader = mx.gluon.data.DataLoader(ds, batch_size=2, num_workers=2, thread_pool=True)
    it = iter(loader)
    next(it)
    del it, loader
    keep = mx.gluon.data.DataLoader(ds, batch_size=2, num_workers=2, thread_pool=True)
    next(iter(keep))
    POOL._stop_all_at_exit()
    assert not [t for t in threading.enumerate() if t.name.startswith(POOL.WORKER_NAME)]
    assert keep._worker_pool.closed
