"""A long tape's backward as a chain of pieces keyed by structure, so that its compile work
grows with what is distinct in the tape, not with its length (issue 40, pattern 1).

A non-hybridized RNN (a Python loop over time steps under ``record``) records a few thousand
operators per batch. As one program (engine.py) that tape is traced node by node, and XLA's
compile time grows faster than its length; a batch of another sequence length is another
program. MXNet runs each operator's backward as a ready kernel.

Here a tape of at least ``SPLIT_MIN_NODES`` nodes is cut into chunks, and each chunk's
reverse sweep runs as one call of a program cached by the chunk's *structure*: its nodes'
kinds (operator, static attributes) and their wiring, relative to the chunk (an input made
inside the chunk by its position there, one from outside by its slot number, slots numbered
by first use), plus which slots carry a gradient. Values never enter the key: they are
arguments, and ``jax.jit`` keys on their shapes and dtypes. A loop of T identical steps
therefore meets the same few chunk structures again and again, whatever T is, and a new
length reuses them: only the chunk that holds the loss (its ``concat`` of T outputs) is new.

A basic index read of a sequence in the graph (``xs[t]``) stays out of the pieces
(``_reads``): a piece takes the block it read as a value, so neither ``t`` nor the
sequence's length is part of a step's structure.

Cuts are content-defined, so that they fall at the same place in every repetition of a
step: a node is a cut candidate where a checksum of its kind and its wiring (the distances
back to its inputs) is 0 modulo ``CUT_MODULUS``; a chunk ends at the first candidate at
least ``PIECE_MIN_NODES`` nodes after its start, or after ``PIECE_MAX_NODES`` nodes. The
checksum is crc32 of the operator's name and attributes (never Python's salted ``hash``),
so the same tape is cut the same way in every process and the persistent compilation cache
holds its pieces.

Numbers: each piece runs the reverse sweep of engine.py (``reverse_node``) over its nodes in
the same order, and takes in and gives back the running gradient sums of everything it
reads from outside, so every cotangent is summed in the order the whole-tape sweep sums it.
Each piece is an ``xla_options.jit`` program, so xnd's tiers decide where its calls run
(host, quick, optimized, background compile), as for a whole-tape backward.

Not split (engine.py runs them whole): the ``replay`` mode, several devices, custom
``Function`` nodes, ``create_graph`` gradient nodes and operators with auxiliary states
(BatchNorm's moving statistics are updated from the whole tape).
"""
import zlib

import jax
import jax.numpy as jnp

from .. import _transfer, tiers
from ..lowering import xla_options
from ..lowering.indexing import basic_plan
from . import sweep

# TIERS: a tape shorter than this runs as one program (engine.py): a hybridized block or a
# short eager step compiles once per shape anyway, and one program fuses across its nodes.
SPLIT_MIN_NODES = 256
# TIERS: a chunk holds at least PIECE_MIN_NODES nodes (fewer calls per backward, a program
# per call worth its dispatch) and at most PIECE_MAX_NODES (a bounded compile per piece).
PIECE_MIN_NODES = 24
PIECE_MAX_NODES = 96
# a node is a cut candidate where its checksum is 0 modulo this (about one node in 4)
CUT_MODULUS = 4

STATS = {"calls": 0, "pieces": 0, "piece_calls": 0}
_PROGRAMS = {}          # piece structure -> xla_options.jit of its reverse sweep
_FINISH = {}            # (groups, wanted) -> jit of the gradient sums
_KIND_CODE = {}         # node kind -> crc32 of its operator name and static attributes
_MAX_PROGRAMS = 512


def splits(plan, mode):
    """Whether engine.run should run this plan's backward as pieces."""
    nodes = plan[0]
    if mode != "saved" or len(nodes) < SPLIT_MIN_NODES:
        return False
    for kind in {kind for kind, _ in nodes}:
        if kind[0] != "op":
            return False
        op = kind[1]
        if op.aux and sweep.aux_update_fn(op) is not None:
            return False
    return True


# ---- cutting ---------------------------------------------------------------------------------
def _kind_code(kind):
    c = _KIND_CODE.get(kind)
    if c is None:
        if len(_KIND_CODE) >= 1 << 14:
            _KIND_CODE.clear()
        name = kind[1].name        # (a read's position is no part of a step's structure)
        c = _KIND_CODE[kind] = zlib.crc32(
            (name if name == "_getitem" else f"{name}|{kind[2]!r}").encode())
    return c


def cuts(nodes):
    """Chunk boundaries ``[0, b1, ..., n]`` (module doc): a prefix of a tape is cut as the
    whole tape is, so a longer loop repeats the cuts of a shorter one."""
    n = len(nodes)
    cand = []
    for i, (kind, refs) in enumerate(nodes):
        wiring = tuple(-1 if r is None else (-2 if r[0] == 0 else i - r[1]) for r in refs)
        if zlib.crc32(repr((_kind_code(kind), wiring)).encode()) % CUT_MODULUS == 0:
            cand.append(i)
    bounds, start, k = [0], 0, 0
    while True:
        while k < len(cand) and cand[k] < start + PIECE_MIN_NODES:
            k += 1
        end = cand[k] if k < len(cand) else n
        end = min(end, start + PIECE_MAX_NODES)
        if n - end < PIECE_MIN_NODES:      # (no short piece at the end: it joins the last)
            break
        bounds.append(end)
        start = end
    bounds.append(n)
    return bounds


# ---- one piece ---------------------------------------------------------------------------------
def _reads(nodes, value_of, out_vals):
    """{node: (offset, size)} of the tape's block reads to hoist out of the pieces: a
    ``_getitem`` of one float array selecting one contiguous block (``xs[t]`` of a sequence
    in the graph, its ``t`` new every step) whose array nothing else reads. A piece then
    takes the block as a value of its own, so a step's structure holds neither ``t`` nor the
    sequence's length, and the block's gradient is added into the sequence's at its offset
    (``_place``): the values the indexing's own gradient places in zeros, in the same order."""
    other, reads = set(), {}
    for j, (kind, refs) in enumerate(nodes):
        if kind[1].name == "_getitem" and len(refs) == 1 and refs[0] is not None:
            src = value_of(refs[0])
            if sweep.inexact(src):
                index = dict(zip(kind[1].static, kind[2]))["index"]
                try:
                    plan = basic_plan(src.shape, index)
                except IndexError:
                    plan = ("copy",)
                if plan[0] == "view":
                    reads[j] = (plan[1], int(out_vals[j][0].size))
                    continue
        other.update(r for r in refs if r is not None)
    return {j: v for j, v in reads.items() if nodes[j][1][0] not in other}


def _place(acc, c, offset):
    """``acc`` (or zeros of ``like``'s shape) with ``c`` added into its row-major block at
    ``offset``."""
    flat = acc.reshape(-1)
    block = jax.lax.dynamic_slice(flat, (offset,), (c.size,)) + c.reshape(-1).astype(acc.dtype)
    return jax.lax.dynamic_update_slice(flat, block, (offset,)).reshape(acc.shape)


def _structure(nodes, a, b, live_ref, hoisted):
    """(piece key, outside refs in slot order, the chunk's nodes) of chunk ``[a, b)``, without
    its ``hoisted`` reads (their results are slots of the piece)."""
    kept = [j for j in range(a, b) if j not in hoisted]
    local = {j: k for k, j in enumerate(kept)}
    slots, slot_of, shape = [], {}, []
    for j in kept:
        kind, refs = nodes[j]
        nrefs = []
        for r in refs:
            if r is None:
                nrefs.append(None)
            elif r[0] == 1 and r[1] in local:
                nrefs.append((1, local[r[1]], r[2]))
            else:
                s = slot_of.get(r)
                if s is None:
                    s = slot_of[r] = len(slots)
                    slots.append(r)
                nrefs.append((0, s))
        shape.append((kind, tuple(nrefs)))
    return (tuple(shape), tuple(live_ref(r) for r in slots)), slots, kept


def _program(key):
    f = _PROGRAMS.get(key)
    if f is None:
        if len(_PROGRAMS) >= _MAX_PROGRAMS:
            _PROGRAMS.clear()
        f = _PROGRAMS[key] = xla_options.jit(
            _sweep(key), kind=tiers.TAPE,
            classic_fusion=xla_options.classic_fusion(kind[1] for kind, _ in key[0]))
        STATS["pieces"] += 1
    return f


def _sweep(key):
    """The reverse sweep of one chunk: (slot values, running gradient sums of the slots,
    the chunk's forward outputs, its dynamic attributes, the cotangents its outputs got from
    later nodes) -> the slots' new running sums."""
    nodes, slot_live = key
    callers = [sweep.op_caller(kind) for kind, _ in nodes]

    def piece(slot_vals, slot_cts, out_vals, dyn_vals, ct_in):
        n = len(nodes)
        need = [False] * n

        def live(r):
            if r is None:
                return False
            return slot_live[r[1]] if r[0] == 0 else need[r[1]]

        for j, (_, refs) in enumerate(nodes):
            need[j] = any(live(r) for r in refs)
        acc = list(slot_cts)
        ct_out = [list(c) for c in ct_in]

        def add(r, c):
            if r[0] == 0:
                if slot_live[r[1]]:
                    old = acc[r[1]]
                    acc[r[1]] = c if old is None else old + c
            elif need[r[1]]:
                row = ct_out[r[1]]
                old = row[r[2]]
                row[r[2]] = c if old is None else old + c

        def get(r):
            return None if r is None else (slot_vals[r[1]] if r[0] == 0 else out_vals[r[1]][r[2]])

        for j in range(n - 1, -1, -1):
            cts = ct_out[j]
            if not need[j] or all(c is None for c in cts):
                continue
            refs = nodes[j][1]
            sweep.reverse_node(callers[j], refs, [get(r) for r in refs], dyn_vals[j], cts,
                                live, add)
        return acc
    return piece


def _placer():
    f = _FINISH.get("place")
    if f is None:
        f = _FINISH["place"] = xla_options.jit(_place, kind=tiers.TAPE)
    return f


def _finish(groups, wanted):
    key = (groups, wanted)
    f = _FINISH.get(key)
    if f is None:
        if len(_FINISH) >= _MAX_PROGRAMS:
            _FINISH.clear()

        def finish(cts, vals, olds):
            per = {i: c for i, c in zip(wanted, cts) if c is not None}
            ext = dict(zip(wanted, vals))
            grads = sweep.sum_groups(groups, per, ext)
            return [g if o is None else o + g.astype(o.dtype) for g, o in zip(grads, olds)]
        f = _FINISH[key] = xla_options.jit(finish, kind=tiers.TAPE)
    return f


# ---- the backward -------------------------------------------------------------------------------
def run(plan, ext_vals, out_vals, dyn_vals, head_grads, olds):
    """engine.run's saved-mode backward, piece by piece: (gradients with ``olds`` added, no
    auxiliary updates)."""
    nodes, heads, _, groups, hg_given = plan
    wanted = tuple(sorted({i for g in groups for i in g}))
    diff = {i for i in wanted if sweep.inexact(ext_vals[i]) or sweep.integer(ext_vals[i])}
    n = len(nodes)
    need = [False] * n

    def live(r):
        if r is None:
            return False
        return r[1] in diff if r[0] == 0 else need[r[1]]

    for j, (_, refs) in enumerate(nodes):
        need[j] = any(live(r) for r in refs)
    ct_ext = {}
    ct_out = [[None] * len(o) for o in out_vals]

    def read(r):
        return ct_ext.get(r[1]) if r[0] == 0 else ct_out[r[1]][r[2]]

    def value_of(r):
        return sweep.get(r, ext_vals, out_vals)

    def zero(r):
        # a variable's running sum starts at zeros, not None: the piece that meets it first
        # is then the same program as its repetitions (0 + g is g; a -0.0 becomes 0.0)
        v = value_of(r)
        return _transfer.zeros(v.shape, v.dtype, next(iter(v.devices())))

    def write(r, c):
        if r[0] == 0:
            ct_ext[r[1]] = c
        else:
            ct_out[r[1]][r[2]] = c

    given = iter(head_grads)
    for h, g in zip(heads, hg_given):
        v = sweep.get(h, ext_vals, out_vals)
        c = next(given) if g else jnp.ones(v.shape, v.dtype)
        if live(h):
            old = read(h)
            write(h, c if old is None else old + c)

    hoisted = _reads(nodes, value_of, out_vals)
    bounds = cuts(nodes)
    for a, b in reversed(list(zip(bounds[:-1], bounds[1:]))):
        if any(need[j] and any(c is not None for c in ct_out[j]) for j in range(a, b)
               if j not in hoisted):
            key, slots, kept = _structure(nodes, a, b, live, hoisted)
            slot_vals = [value_of(r) for r in slots]
            slot_cts = [(read(r) if r[0] == 1 or r[1] in ct_ext else zero(r)) if ok else None
                        for r, ok in zip(slots, key[1])]
            acc = _program(key)(slot_vals, slot_cts, [out_vals[j] for j in kept],
                                [dyn_vals[j] for j in kept], [ct_out[j] for j in kept])
            STATS["piece_calls"] += 1
            for r, ok, c in zip(slots, key[1], acc):
                if ok:
                    write(r, c)
        for j in range(b - 1, a - 1, -1):      # the chunk's block reads, in the sweep's order
            c = ct_out[j][0] if j in hoisted else None
            if c is None or not need[j]:
                continue
            r = nodes[j][1][0]
            old = read(r)
            write(r, _placer()(jnp.zeros_like(value_of(r)) if old is None else old, c,
                               hoisted[j][0]))
    STATS["calls"] += 1
    grads = _finish(tuple(tuple(g) for g in groups), wanted)(
        [ct_ext.get(i) for i in wanted], [ext_vals[i] for i in wanted], olds)
    return grads, ()
