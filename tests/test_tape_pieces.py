"""A long tape's backward runs as pieces keyed by structure (xnd/autograd/pieces.py): a loop
of T identical steps compiles a number of programs that does not grow with T, a new length
compiles no new step piece, and the gradients are MXNet's (goldens from
tests/make_tape_pieces_goldens.py) and the whole-tape backward's."""
import numpy as np
import pytest

import xnd as mx
from xnd import tiers
from xnd.autograd import pieces
from xnd.lowering import registry

from golden_files import read
from make_tape_pieces_goldens import CASES, gru_loop

STEP_NODES = 18        # the GRU-like step records 18 operators


@pytest.fixture
def small_pieces(monkeypatch):
    """Thresholds that split the tests' short loops (one step per piece or so)."""
    monkeypatch.setattr(pieces, "SPLIT_MIN_NODES", 40)
    monkeypatch.setattr(pieces, "PIECE_MIN_NODES", 12)
    monkeypatch.setattr(pieces, "PIECE_MAX_NODES", 40)
    monkeypatch.setattr(pieces, "_PROGRAMS", {})


def _compiled():
    return sum(f._cache_size() for f in pieces._PROGRAMS.values())


def _piece_calls(T, seed=1, input_grad=False):
    """{piece key: calls} of one backward of the T-step loop."""
    seen = {}
    orig = pieces._program

    def spy(key):
        seen[key] = seen.get(key, 0) + 1
        return orig(key)
    pieces._program = spy
    try:
        gru_loop(mx, T, seed, input_grad)
    finally:
        pieces._program = orig
    return seen


@pytest.mark.parametrize("case", range(len(CASES)))
def test_gradients_are_mxnets(small_pieces, case):
    T, seed, input_grad = CASES[case]
    meta, arrays = read("tape_pieces")
    calls = pieces.STATS["calls"]
    got = gru_loop(mx, T, seed, input_grad)
    assert pieces.STATS["calls"] == calls + 1          # (it did run as pieces)
    names = meta["cases"][case]["arrays"]
    assert [n.split("_", 2)[2] for n in names] == [n for n, _ in got]
    for key, (_, value) in zip(names, got):
        want = arrays[key]
        assert value.dtype == want.dtype and value.shape == want.shape
        np.testing.assert_allclose(value, want, rtol=2e-5, atol=1e-6, err_msg=key)


def test_pieces_give_the_whole_tapes_numbers(small_pieces, monkeypatch):
    """The same cotangent sums in the same order as the one-program backward, both on their
    optimized programs; to the last bit or two (XLA fuses across a whole program's node
    boundaries, contracting a product and a sum, where a piece ends one: 1e-7 relative)."""
    with tiers.pinned():
        split = gru_loop(mx, 3, 3, True)
        monkeypatch.setattr(pieces, "SPLIT_MIN_NODES", 1 << 30)
        whole = gru_loop(mx, 3, 3, True)
    for (name, a), (_, b) in zip(split, whole):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-9, err_msg=name)


@pytest.mark.parametrize("input_grad", [False, True])   # True: xs[t] is recorded, t varies
def test_compiled_programs_do_not_grow_with_the_loops_length(small_pieces, input_grad):
    with tiers.pinned():           # every call compiled: the count is what compiles
        gru_loop(mx, 7, 1, input_grad)
        short = (len(pieces._PROGRAMS), _compiled())
        pieces._PROGRAMS.clear()
        gru_loop(mx, 14, 1, input_grad)
        long = (len(pieces._PROGRAMS), _compiled())
    assert short == long
    assert short[0] <= 8          # the first steps, a period of chunks, the loss's end


@pytest.mark.parametrize("input_grad", [False, True])
def test_a_new_length_compiles_no_new_step_piece(small_pieces, input_grad):
    with tiers.pinned():
        before = _piece_calls(10, input_grad=input_grad)
        compiled = _compiled()
        after = _piece_calls(13, input_grad=input_grad)
    step = max(before, key=before.get)
    assert before[step] >= 3 and after[step] > before[step]   # a repeated step piece
    new = set(after) - set(before)
    assert all(after[k] == 1 for k in new) and len(new) <= 2  # only the loss's end is new
    assert _compiled() - compiled == len(new)        # the step pieces' programs serve T=13


def test_cuts_fall_at_the_same_place_in_every_step(small_pieces):
    """Content-defined cuts: a prefix of a tape is cut as the whole tape is."""
    nodes = []
    orig = pieces.run

    def spy(plan, *args):
        nodes.append(plan[0])
        return orig(plan, *args)
    pieces.run = spy
    try:
        gru_loop(mx, 10, 1, False)
        gru_loop(mx, 20, 1, False)
    finally:
        pieces.run = orig
    a, b = (pieces.cuts(n) for n in nodes)
    assert a[:-2] == b[:len(a) - 2]
    sizes = {y - x for x, y in zip(b[2:-2], b[3:-1])}     # (after the first step's chunks)
    assert len(b) > 12 and len(sizes) == 1 and sizes.pop() % STEP_NODES == 0


def test_short_tapes_and_aux_states_run_whole(small_pieces):
    plan_short = ((), (), 0, (), ())
    assert not pieces.splits(plan_short, "saved")
    op = registry.get("BatchNorm")
    kind = ("op", op, ())
    nodes = tuple((kind, ()) for _ in range(64))
    assert not pieces.splits((nodes, (), 0, (), ()), "saved")
    fc = registry.get("FullyConnected")
    nodes = tuple((("op", fc, ()), ()) for _ in range(64))
    assert pieces.splits((nodes, (), 0, (), ()), "saved")
    assert not pieces.splits((nodes, (), 0, (), ()), "replay")


def _long_chain(x, w, steps):
    """A loop of small steps with a two-output operator and a scalar operator in each."""
    h = x
    for _ in range(steps):
        a, b = mx.nd.split(mx.nd.dot(h, w), num_outputs=2, axis=1)
        h = mx.nd.concat(mx.nd.tanh(a) * 0.5, mx.nd.relu(b) + 1.0, dim=1)
    return h


def _grads(steps):
    """(w.grad after a grad_req='add' backward with head gradients, autograd.grad's x)."""
    rs = np.random.RandomState(4)
    x = mx.nd.array(rs.normal(size=(2, 4)))
    w = mx.nd.array(rs.normal(size=(4, 4)) * 0.5)
    hg = mx.nd.array(rs.normal(size=(2, 4)))
    w.attach_grad(grad_req="add")
    w.grad[:] = 1.0
    with mx.autograd.record():
        y = _long_chain(x, w, steps)
    y.backward(hg)
    x.attach_grad()
    with mx.autograd.record():
        y = _long_chain(x, w, steps)
    gx, = mx.autograd.grad(y, [x], head_grads=hg)
    return w.grad.asnumpy(), gx.asnumpy()


def test_grad_req_add_head_grads_and_autograd_grad(small_pieces, monkeypatch):
    """grad_req='add' accumulates into the old gradient, given head gradients seed the sweep,
    and autograd.grad returns new arrays: through pieces as through the whole tape."""
    calls = pieces.STATS["calls"]
    with tiers.pinned():
        split = _grads(8)
        assert pieces.STATS["calls"] == calls + 2
        monkeypatch.setattr(pieces, "SPLIT_MIN_NODES", 1 << 30)
        whole = _grads(8)
    assert pieces.STATS["calls"] == calls + 2
    for a, b in zip(split, whole):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-9)
