"""The fused RNN operator (rnn_relu, rnn_tanh, lstm, gru), with MXNet's flat parameter vector.

Layout of ``parameters`` (checked against MXNet 1.9.1): first every weight, then
every bias, each group ordered layer by layer and, inside a layer, forward
direction before backward::

    for layer, for direction:  W_i2h (G*H, in_l), W_h2h (G*H, H' ) [, W_h2r (P, H)]
    for layer, for direction:  b_i2h (G*H,),      b_h2h (G*H,)

with G gates (lstm 4: i, f, g, o; gru 3: r, z, n; plain rnn 1), H = state_size,
P = projection_size (LSTM only), H' = P if projected else H, in_0 = input size
and in_l = D*H' after. GRU follows cuDNN: n = tanh(x W_in + b_in + r * (h W_hn + b_hn)).

Data is (T, N, I); states are (L*D, N, H') (and the LSTM cell (L*D, N, H)),
ordered layer-major, direction-minor. ``p`` applies dropout to the output of
every layer but the last, in training only.
"""
import functools
import math

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..base import MXNetError
from .attrs import Bool, Float, Int, choice, optional
from .nn_common import fmt, param_shapes_from
from .random import prng
from .registry import register

_GATES = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}

_fmt = fmt


def rnn_param_shapes(mode, input_size, state_size, num_layers, bidirectional=False,
                     projection_size=None):
    """[(name, shape)] in MXNet's flat order; names like ``l0_i2h_weight`` / ``r1_h2h_bias``."""
    g, h, d = _GATES[mode], state_size, 2 if bidirectional else 1
    hp = projection_size or h
    weights, biases = [], []
    for layer in range(num_layers):
        n_in = input_size if layer == 0 else d * hp
        for j in range(d):
            pre = ("l", "r")[j] + str(layer)
            weights.append((pre + "_i2h_weight", (g * h, n_in)))
            weights.append((pre + "_h2h_weight", (g * h, hp)))
            if projection_size:
                weights.append((pre + "_h2r_weight", (hp, h)))
            biases.append((pre + "_i2h_bias", (g * h,)))
            biases.append((pre + "_h2h_bias", (g * h,)))
    return weights + biases


def rnn_param_size(mode, input_size, state_size, num_layers, bidirectional=False,
                   projection_size=None):
    total = 0
    for _, s in rnn_param_shapes(mode, input_size, state_size, num_layers, bidirectional,
                                 projection_size):
        n = 1
        for v in s:
            n *= v
        total += n
    return total


def _split_params(flat, shapes):
    sizes = tuple(math.prod(s) for _, s in shapes)
    pieces = _split_flat(flat, sizes, flat.shape[0])
    return {name: p.reshape(s) for (name, s), p in zip(shapes, pieces)}


@functools.partial(jax.custom_vjp, nondiff_argnums=(1, 2))
def _split_flat(flat, sizes, total):
    """The packed parameter vector cut into its weights.  Its gradient is one concatenation
    of the pieces' gradients: JAX transposes each slice into a zero-padded copy of the whole
    vector and adds them up, which XLA fuses but the host tier (numpy) materialised -- 16
    copies of 42 MB for a 2-layer bidirectional LSTM of 512 units."""
    offs = np.cumsum((0,) + sizes)
    return tuple(flat[a:b] for a, b in zip(offs[:-1], offs[1:]))


def _split_flat_fwd(flat, sizes, total):
    return _split_flat(flat, sizes, total), None


def _split_flat_bwd(sizes, total, _, cts):
    tail = total - sum(sizes)
    parts = list(cts) + ([jnp.zeros((tail,), cts[0].dtype)] if tail else [])
    return (jnp.concatenate(parts),)


_split_flat.defvjp(_split_flat_fwd, _split_flat_bwd)


def _mm(a, b):
    return jnp.matmul(a, b, precision=lax.Precision.HIGHEST if a.dtype in (jnp.float32, jnp.float64)
                      else None)


def _run_direction(mode, x, h0, c0, w, pre, lengths, reverse, clip):
    """One layer, one direction over x (T, N, I); returns (outputs (T, N, H'), hT, cT)."""
    T = x.shape[0]
    wi, wh = w[pre + "_i2h_weight"], w[pre + "_h2h_weight"]
    bi, bh = w[pre + "_i2h_bias"], w[pre + "_h2h_bias"]
    wr = w.get(pre + "_h2r_weight")
    xw = _mm(x, wi.T) + bi  # (T, N, G*H), all steps at once
    if reverse:
        if lengths is None:
            xw = jnp.flip(xw, 0)
        else:
            xw = _reverse_valid(xw, lengths)
    steps = jnp.arange(T)

    def cell(carry, inp):
        h, c = carry
        xt, t = inp
        hw = _mm(h, wh.T) + bh
        if mode == "lstm":
            i, f, g, o = jnp.split(xt + hw, 4, axis=-1)
            c_new = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
            if clip is not None:
                c_new = jnp.clip(c_new, clip[0], clip[1])
            h_new = jax.nn.sigmoid(o) * jnp.tanh(c_new)
            if wr is not None:
                h_new = _mm(h_new, wr.T)
        elif mode == "gru":
            xr, xz, xn = jnp.split(xt, 3, axis=-1)
            hr, hz, hn = jnp.split(hw, 3, axis=-1)
            r = jax.nn.sigmoid(xr + hr)
            z = jax.nn.sigmoid(xz + hz)
            n = jnp.tanh(xn + r * hn)
            h_new, c_new = (1 - z) * n + z * h, c
        else:
            a = xt + hw
            h_new = jnp.tanh(a) if mode == "rnn_tanh" else jnp.maximum(a, 0)
            c_new = c
        if lengths is not None:
            live = (t < lengths)[:, None]
            h_new = jnp.where(live, h_new, h)
            c_new = jnp.where(live, c_new, c)
            y = jnp.where(live, h_new, jnp.zeros((), h_new.dtype))
        else:
            y = h_new
        return (h_new, c_new), y

    (hT, cT), ys = lax.scan(cell, (h0, c0), (xw, steps))
    if reverse:
        ys = jnp.flip(ys, 0) if lengths is None else _reverse_valid(ys, lengths)
    return ys, hT, cT


def _reverse_valid(x, lengths):
    """Reverse the first lengths[b] steps of every sequence b of x (T, N, ...)."""
    t = jnp.arange(x.shape[0])[:, None]
    src = jnp.where(t < lengths[None, :], lengths[None, :] - 1 - t, t)
    return jnp.take_along_axis(x, src.reshape(src.shape + (1,) * (x.ndim - 2)), axis=0)


def _rnn_shapes(attrs, data_shape):
    """Input shapes MXNet infers from data (T, N, I) for RNN."""
    T, N, I = data_shape
    d = 2 if attrs.get("bidirectional") else 1
    layers, h, proj = attrs["num_layers"], attrs["state_size"], attrs.get("projection_size")
    out = {"parameters": (rnn_param_size(attrs["mode"], I, h, layers, d == 2, proj),),
           "state": (layers * d, N, proj or h)}
    if attrs["mode"] == "lstm":
        out["state_cell"] = (layers * d, N, h)
    if attrs.get("use_sequence_length"):
        out["sequence_length"] = (N,)
    return out


def _rnn_slots(attrs, n):
    if attrs.get("mode") != "lstm":  # no state_cell input: (data, parameters, state[, length])
        return ("data", "parameters", "state", "sequence_length")
    return ("data", "parameters", "state", "state_cell", "sequence_length")


def _rnn_outputs(attrs):
    if not attrs.get("state_outputs"):
        return 1
    return 3 if attrs.get("mode") == "lstm" else 2


@register("RNN", num_outputs=_rnn_outputs,
          output_names=("output", "state_output", "statecell_output"),
          param_shapes=param_shapes_from(_rnn_shapes, _rnn_slots))
def rnn(data, parameters, state, state_cell=None, sequence_length=None, *, state_size: Int,
        num_layers: Int, bidirectional: Bool = False,
        mode: choice("gru", "lstm", "rnn_relu", "rnn_tanh"), p: Float = 0.0,
        state_outputs: Bool = False, projection_size: optional(Int) = None,
        lstm_state_clip_min: optional(Float) = None, lstm_state_clip_max: optional(Float) = None,
        lstm_state_clip_nan: Bool = False, use_sequence_length: Bool = False, is_train=False, key):
    """Fused multi-layer (bi)directional RNN. Returns out (T, N, D*H'), and with
    ``state_outputs`` also the final hidden state (and the LSTM cell state)."""
    op = "RNN"
    if mode != "lstm" and use_sequence_length and sequence_length is None:
        sequence_length, state_cell = state_cell, None  # symbol inputs: (data, params, state, len)
    if data.ndim != 3:
        raise MXNetError(f"{op}: data must be (seq_len, batch, input_size), got {_fmt(data.shape)}")
    if projection_size and mode != "lstm":
        raise MXNetError(f"{op}: projection_size is only supported for mode='lstm'")
    T, N, I = data.shape
    D = 2 if bidirectional else 1
    H = state_size
    Hp = projection_size or H
    shapes = rnn_param_shapes(mode, I, H, num_layers, bidirectional, projection_size)
    need = rnn_param_size(mode, I, H, num_layers, bidirectional, projection_size)
    if parameters.size != need:
        raise MXNetError(f"{op}: parameters has {parameters.size} elements, expected {need} for "
                         f"mode={mode!r}, input size {I}, state_size={H}, num_layers={num_layers}, "
                         f"bidirectional={bidirectional}")
    if tuple(state.shape) != (num_layers * D, N, Hp):
        raise MXNetError(f"{op}: state has shape {_fmt(state.shape)}, expected "
                         f"({num_layers * D},{N},{Hp})")
    if mode == "lstm":
        if state_cell is None:
            raise MXNetError(f"{op}: mode='lstm' needs the state_cell input")
        if tuple(state_cell.shape) != (num_layers * D, N, H):
            raise MXNetError(f"{op}: state_cell has shape {_fmt(state_cell.shape)}, expected "
                             f"({num_layers * D},{N},{H})")
    lengths = None
    if use_sequence_length:
        if sequence_length is None or tuple(sequence_length.shape) != (N,):
            raise MXNetError(f"{op}: use_sequence_length=True needs sequence_length of shape "
                             f"({N},)")
        lengths = sequence_length.astype(jnp.int64) if not jnp.issubdtype(
            sequence_length.dtype, jnp.integer) else sequence_length
    clip = None
    if mode == "lstm" and lstm_state_clip_min is not None and lstm_state_clip_max is not None:
        clip = (lstm_state_clip_min, lstm_state_clip_max)
    w = _split_params(parameters.astype(data.dtype), shapes)
    x = data
    hs, cs = [], []
    rng = prng(key) if (is_train and p > 0 and num_layers > 1) else None
    for layer in range(num_layers):
        outs = []
        for j in range(D):
            idx = layer * D + j
            h0 = state[idx].astype(data.dtype)
            c0 = state_cell[idx].astype(data.dtype) if mode == "lstm" else \
                jnp.zeros((N, H), data.dtype)
            ys, hT, cT = _run_direction(mode, x, h0, c0, w, ("l", "r")[j] + str(layer), lengths,
                                        j == 1, clip)
            outs.append(ys)
            hs.append(hT)
            cs.append(cT)
        x = outs[0] if D == 1 else jnp.concatenate(outs, axis=-1)
        if rng is not None and layer < num_layers - 1:
            rng, sub = jax.random.split(rng)
            keep = jax.random.uniform(sub, x.shape, jnp.float32) < (1.0 - p)
            x = jnp.where(keep, x / (1.0 - p), jnp.zeros((), x.dtype)).astype(data.dtype)
    if not state_outputs:
        return x
    hy = jnp.stack(hs)
    if mode == "lstm":
        return x, hy, jnp.stack(cs)
    return x, hy


rnn.infer_shapes = _rnn_shapes
