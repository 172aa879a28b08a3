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


def test_checkpoint_and_parameter_saves_sweep_killed_temps(tmp_path):
    """Every save entry point (``mx.model.save_checkpoint``'s JSON and params,
    ``Module.save_checkpoint``'s optimizer states, ``Block.save_parameters``) sweeps the
    temporaries a killed save of the same file left, and writes a loadable file."""
    dead = _dead_pid()
    prefix = str(tmp_path / "m")
    targets = ["m-symbol.json", "m-0001.params", "m-0001.states", "net.params"]
    for t in targets:
        (tmp_path / f".{t}.{dead}.0badf00d.tmp").write_bytes(b"partial")
    data = mx.sym.Variable("data")
    net = mx.sym.FullyConnected(data, num_hidden=2, name="fc")
    mod = mx.mod.Module(net, label_names=None)
    mod.bind(data_shapes=[("data", (1, 3))])
    mod.init_params()
    mod.init_optimizer()
    mod.save_checkpoint(prefix, 1, save_optimizer_states=True)
    block = mx.gluon.nn.Dense(2, in_units=3)
    block.initialize()
    block.save_parameters(str(tmp_path / "net.params"))
    assert sorted(os.listdir(tmp_path)) == sorted(targets)
    _, args, _ = mx.model.load_checkpoint(prefix, 1)
    assert sorted(args) == ["fc_bias", "fc_weight"]
    np.testing.assert_array_equal(mx.nd.load(str(tmp_path / "net.params"))["weight"].asnumpy(),
                                  block.weight.data().asnumpy())
