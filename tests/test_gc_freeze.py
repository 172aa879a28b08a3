"""``import xnd`` freezes the objects that importing it made (xnd/__init__.py): Python's full
collections then skip them; ``XND_GC_FREEZE=0`` leaves the collector alone."""
import os
import subprocess
import sys

_PROBE = ("import gc, sys; n = len(gc.get_objects()); import xnd; "
          "print(gc.get_freeze_count(), len(gc.get_objects()), n)")


def _probe(**env):
    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True,
                         env=dict(os.environ, **env), check=True).stdout.split()
    return [int(v) for v in out]


def test_import_freezes_the_imported_objects():
    frozen, tracked, before = _probe()
    assert frozen > 50_000 > tracked          # xnd, JAX and numpy's objects, frozen
    assert frozen > before


def test_xnd_gc_freeze_0_leaves_the_collector_alone():
    frozen, tracked, _ = _probe(XND_GC_FREEZE="0")
    assert frozen == 0 and tracked > 50_000


def test_frozen_objects_still_work_and_new_garbage_is_collected():
    import gc
    import weakref

    import xnd as mx

    class Cycle:
        """An object that refers to itself."""
    a = Cycle()
    a.self = a
    ref = weakref.ref(a)
    del a
    gc.collect()
    assert ref() is None                       # a cycle made after import is collected
    assert mx.nd.ones((2, 2)).asnumpy().sum() == 4
