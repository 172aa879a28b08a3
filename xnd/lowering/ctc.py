"""Connectionist temporal classification: MXNet's ``CTCLoss`` operator (aliases
``ctc_loss``, ``_contrib_CTCLoss``, ``_contrib_ctc_loss``).

Forward is the log-space alpha recursion of Graves et al. (2006) as one ``lax.scan`` over
time, vectorised over the batch; the gradient is JAX's derivative of it, which is what
MXNet's warp-ctc backward computes (``softmax - posterior`` per frame, times the head
gradient of each sequence). Checked against MXNet 1.9.1 (tests/make_ctc_goldens.py):

* ``data`` (T, N, C) holds unnormalised activations; the softmax over C is taken inside.
  ``label`` (N, L) holds class indices, read rounded to the nearest integer (half away from
  zero, as ``std::round``), any dtype.
* ``blank_label='first'``: the blank is class 0 and 0 also pads a label row;
  ``'last'``: the blank is class C-1 and -1 pads. Without ``use_label_lengths`` a row's
  length is the position of its first padding value (L if none), so labels after a padding
  value are ignored; with it, ``label_lengths`` (rounded) is used and values inside the
  length are labels even if they equal the padding value.
* ``use_data_lengths``: sequence n uses frames ``t < data_lengths[n]`` (rounded); later
  frames get a zero gradient. A fractional length is rounded for the loss but truncated for
  the gradient mask (7.5: 8 frames in the loss, gradient on the first 7), as in MXNet.
* Repeated labels need a blank between them; a sequence that cannot be aligned (label
  length + number of adjacent repeats > its data length) gets loss **0 and gradient 0**
  (MXNet's warp-ctc skips it, leaving the output 0).
* One visible output (N,), named ``output0``; the node has a second, hidden output (MXNet
  keeps the warp-ctc gradient there), so symbol JSON has MXNet's ``node_row_ptr``.

MXNet leaves some inputs undefined (it reads out of bounds or corrupts memory); xnd gives
them a defined meaning: lengths are clipped to [0, T] and [0, L], label values to [0, C-1],
and a data length of 0 with an empty label has probability 1, loss 0 (MXNet: inf, after
writing out of bounds).
MXNet 1.9.1 accepts only float32 ``data`` and ``data_lengths``; xnd also takes float64
(computed in float64), float16/bfloat16 (computed in float32, result cast back) and
integer lengths.
"""
import jax
import jax.numpy as jnp
from jax import lax

from ..base import MXNetError
from .attrs import Bool, choice
from .nn_common import fmt as _fmt
from .registry import register

_OP = "CTCLoss"
_NEG = -1e30  # log(0) stand-in: finite, so that gradients through empty states stay 0


def _round_int(x):
    """MXNet's reading of an index stored as a float: std::round, then int."""
    if jnp.issubdtype(x.dtype, jnp.integer):
        return x.astype(jnp.int32)
    x = x.astype(jnp.float32)
    return (jnp.sign(x) * jnp.floor(jnp.abs(x) + 0.5)).astype(jnp.int32)


def _lse(*xs):
    m = lax.stop_gradient(xs[0])
    for x in xs[1:]:
        m = jnp.maximum(m, lax.stop_gradient(x))
    return m + jnp.log(sum(jnp.exp(x - m) for x in xs))


def _shift(a, k):
    """a[:, s - k] along axis 1, _NEG where s < k."""
    pad = jnp.full(a.shape[:1] + (k,), _NEG, a.dtype)
    return jnp.concatenate([pad, a[:, :-k]], axis=1)


def _check_lengths(name, x, n):
    if x is None:
        raise MXNetError(f"{_OP}: use_{name}=True needs the {name} input")
    if x.ndim != 1 or x.shape[0] != n:
        raise MXNetError(f"{_OP}: {name} must be a vector of the batch size ({n},), got "
                         f"{_fmt(x.shape)}")


def ctc_nll(logits, label, data_len, label_len, blank):
    """Per-sequence CTC negative log-likelihood (no MXNet conventions): ``logits`` (T, N, C)
    float, ``label`` (N, L) int in [0, C), ``data_len`` (N,) in [0, T], ``label_len`` (N,) in
    [0, L]. Impossible alignments give a large finite value (about 1e30)."""
    T, N, C = logits.shape
    L = label.shape[1]
    S = 2 * L + 1
    logp = jax.nn.log_softmax(logits, axis=2)
    ext = jnp.full((N, S), blank, jnp.int32).at[:, 1::2].set(label)
    lp = jnp.take_along_axis(logp, jnp.broadcast_to(ext[None], (T, N, S)), axis=2)  # (T, N, S)
    pos = jnp.arange(S)
    prev2 = jnp.concatenate([jnp.full((N, 2), blank, jnp.int32), ext[:, :-2]], axis=1)
    skip = (pos % 2 == 1)[None] & (pos >= 2)[None] & (ext != blank) & (ext != prev2)
    # alpha before frame 0: all mass on s = 0; the ordinary transition then gives
    # alpha_0 = (lp[0, blank], lp[0, label_0], NEG, ...) since s = 0 is a blank
    init = jnp.broadcast_to(jnp.where(pos == 0, 0.0, _NEG).astype(logp.dtype), (N, S))

    def step(alpha, xs):
        lp_t, t = xs
        a2 = jnp.where(skip, _shift(alpha, 2), _NEG)
        new = _lse(alpha, _shift(alpha, 1), a2) + lp_t
        return jnp.where((t < data_len)[:, None], new, alpha), None

    alpha, _ = lax.scan(step, init, (lp, jnp.arange(T)))
    last = jnp.take_along_axis(alpha, (2 * label_len)[:, None], axis=1)[:, 0]
    before = jnp.take_along_axis(alpha, jnp.maximum(2 * label_len - 1, 0)[:, None], axis=1)[:, 0]
    before = jnp.where(label_len > 0, before, _NEG)
    return -_lse(last, before)


@register("CTCLoss", "ctc_loss", "_contrib_CTCLoss", "_contrib_ctc_loss", num_outputs=2,
          num_visible=1, output_names=("output0", "output1"))
def ctc_loss(data, label, data_lengths=None, label_lengths=None, *,
             use_data_lengths: Bool = False, use_label_lengths: Bool = False,
             blank_label: choice("first", "last") = "first"):
    """Connectionist temporal classification loss, as MXNet 1.9.1's ``CTCLoss``.

    data (T, N, C): activations (softmax applied inside); label (N, L): class indices padded
    with 0 (``blank_label='first'``, blank = class 0) or -1 (``'last'``, blank = class C-1);
    optional data_lengths / label_lengths (N,) with ``use_data_lengths`` /
    ``use_label_lengths``. Returns the negative log-likelihood per sequence, shape (N,);
    sequences that cannot be aligned give 0 with a zero gradient (as MXNet). Gradient w.r.t.
    data: ``head[n] * (softmax - posterior)`` on frames within the data length, 0 elsewhere.
    """
    if label_lengths is None and use_label_lengths and not use_data_lengths:
        # symbol graphs pass only the inputs that exist: (data, label, label_lengths)
        data_lengths, label_lengths = None, data_lengths
    if data.ndim != 3:
        raise MXNetError(f"{_OP}: data must be 3-D (sequence_length, batch_size, alphabet_size), "
                         f"got shape {_fmt(data.shape)}")
    if label.ndim != 2:
        raise MXNetError(f"{_OP}: label must be 2-D (batch_size, label_sequence_length), got "
                         f"shape {_fmt(label.shape)}")
    T, N, C = data.shape
    L = label.shape[1]
    if label.shape[0] != N:
        raise MXNetError(f"{_OP}: the batch size of label {_fmt(label.shape)} and data "
                         f"{_fmt(data.shape)} must be the same")
    if L > T:
        raise MXNetError(f"{_OP}: the label length {L} (label {_fmt(label.shape)}) cannot exceed "
                         f"the sequence length {T} of data {_fmt(data.shape)}")
    n_in = 2 + (data_lengths is not None) + (label_lengths is not None)
    want = 2 + use_data_lengths + use_label_lengths
    if n_in != want:
        raise MXNetError(f"{_OP} expects {want} inputs (use_data_lengths={use_data_lengths}, "
                         f"use_label_lengths={use_label_lengths}), but got {n_in}")
    if not jnp.issubdtype(data.dtype, jnp.floating):
        raise MXNetError(f"{_OP}: data must be floating point, got {jnp.dtype(data.dtype).name}")
    blank, padding = (0, 0) if blank_label == "first" else (C - 1, -1)

    lab = _round_int(label)
    if use_label_lengths:
        _check_lengths("label_lengths", label_lengths, N)
        llen = jnp.clip(_round_int(label_lengths), 0, L)
    else:
        is_pad = lab == padding
        llen = jnp.where(jnp.any(is_pad, axis=1), jnp.argmax(is_pad, axis=1), L).astype(jnp.int32)
    if use_data_lengths:
        _check_lengths("data_lengths", data_lengths, N)
        dlen = jnp.clip(_round_int(data_lengths), 0, T)
        if not jnp.issubdtype(data_lengths.dtype, jnp.integer):
            # MXNet masks the gradient with the length truncated, not rounded: frames in
            # [trunc(len), round(len)) count in the loss but get no gradient
            keep = jnp.arange(T)[:, None] < data_lengths.astype(jnp.int32)[None, :]
            data = jnp.where(keep[:, :, None], data, lax.stop_gradient(data))
    else:
        dlen = jnp.full((N,), T, jnp.int32)
    lab = jnp.clip(lab, 0, C - 1)

    ct = jnp.float64 if data.dtype == jnp.float64 else jnp.float32
    nll = ctc_nll(data.astype(ct), lab, dlen, llen, blank)
    # warp-ctc skips sequences needing more frames than they have (label + adjacent repeats)
    inside = jnp.arange(1, L)[None] < llen[:, None]
    repeats = jnp.sum(inside & (lab[:, 1:] == lab[:, :-1]), axis=1) if L > 1 else 0
    impossible = llen + repeats > dlen
    return jnp.where(impossible, jnp.zeros((), ct), nll).astype(data.dtype)
