"""Atomic saves clean up after killed saves (issue 17): a SIGKILL between writing the
temporary and ``os.replace`` leaves ``.NAME.PID.HEX.tmp``; the next save of the same target
removes it if its writer is dead, and never touches a live process's or another target's."""
import os
import signal
import subprocess
import sys

import numpy as np

import xnd as mx
from xnd import serialization


def _dead_pid():
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_stale_temps_of_dead_writers_are_removed(tmp_path):
    target = tmp_path / "net.params"
    dead = _dead_pid()
    stale = [tmp_path / f".net.params.{dead}.{h}.tmp" for h in ("0a1b2c3d", "deadbeef")]
    for f in stale:
        f.write_bytes(b"x" * 100)
    live = tmp_path / f".net.params.{os.getppid()}.00112233.tmp"  # our parent: alive
    mine = tmp_path / f".net.params.{os.getpid()}.44556677.tmp"   # this process: maybe writing
    other = tmp_path / f".other.params.{dead}.8899aabb.tmp"       # another target
    odd = tmp_path / f".net.params.{dead}.tmp"                    # not our pattern
    for f in (live, mine, other, odd):
        f.write_bytes(b"y")
    mx.nd.save(str(target), {"w": mx.nd.array([1, 2])})
    assert not any(f.exists() for f in stale)
    assert live.exists() and mine.exists() and other.exists() and odd.exists()
    np.testing.assert_array_equal(mx.nd.load(str(target))["w"].asnumpy(), [1, 2])


def test_temp_of_a_killed_save_is_swept_by_the_next_save(tmp_path):
    """A child writing a large checkpoint is SIGKILLed while its temporary exists."""
    target = tmp_path / "big.params"
    code = (
        "import os, sys, time\n"
        "import xnd.serialization as s\n"
        "real = os.replace\n"
        "def slow(a, b):\n"
        "    print('ready', flush=True); time.sleep(60); real(a, b)\n"
        "os.replace = slow\n"
        f"s.atomic_write({str(target)!r}, b'z' * (1 << 20))\n")
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "ready"
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    temps = [n for n in os.listdir(tmp_path) if n.startswith(".big.params.")]
    assert temps == [n for n in temps if f".{p.pid}." in n] and len(temps) == 1
    assert not target.exists()
    removed = serialization.sweep_stale_temps(str(target))
    assert removed == temps
    mx.nd.save(str(target), [mx.nd.ones((2,))])
    assert [n for n in os.listdir(tmp_path)] == ["big.params"]
