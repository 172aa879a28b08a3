"""``import xnd`` leaves Python's collector alone; ``XND_GC_FREEZE=1`` freezes the objects that
importing it made (xnd/__init__.py): Python's full collections then skip them."""
import os
import subprocess
import sys

_PROBE = ("import gc, sys; n = len(gc.get_objects()); import xnd; "
          "print(gc.get_freeze_count(), len(gc.get_objects()), n)")


def _probe(**env):
    env = dict(os.environ, **env)
    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True,
                         env=env, check=True).stdout.split()
    return [int(v) for v in out]


def test_import_leaves_the_collector_alone():
    frozen, tracked, before = _probe(XND_GC_FREEZE="")
    assert frozen == 0 and tracked > 50_000 and tracked > before


def test_xnd_gc_freeze_1_freezes_the_imported_objects():
    frozen, tracked, before = _probe(XND_GC_FREEZE="1")
    assert frozen > 50_000 > tracked          # xnd, JAX and numpy's objects, frozen
    assert frozen > before


def test_frozen_objects_still_work_and_new_garbage_is_collected():
    code = ("import gc, weakref, xnd as mx\n"
            "class Cycle: pass\n"
            "a = Cycle(); a.self = a; ref = weakref.ref(a); del a; gc.collect()\n"
            "print(gc.get_freeze_count() > 0, ref() is None, mx.nd.ones((2, 2)).asnumpy().sum())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env=dict(os.environ, XND_GC_FREEZE="1")).stdout.split()
    assert out == ["True", "True", "4.0"]     # a cycle made after the freeze is collected
