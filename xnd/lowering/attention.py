"""GluonNLP's fused attention kernels: ``_contrib_interleaved_matmul_selfatt_qk``,
``_contrib_interleaved_matmul_selfatt_valatt``, ``_contrib_interleaved_matmul_encdec_qk`` and
``_contrib_interleaved_matmul_encdec_valatt``.

Projections arrive time-major and interleaved per head: self-attention's (T, B, H*3*D) holds
[q, k, v] for each head in turn, encoder-decoder's keys_values (T, B, H*2*D) holds [k, v].
Scores are (B*H, Tq, Tk) with q scaled by 1/sqrt(D) first; attended values come back as
(Tq, B, H*D).
"""
import jax.numpy as jnp
from jax import lax

from ..base import MXNetError
from .attrs import Int
from .nn_common import fmt
from .registry import register

_HI = lax.Precision.HIGHEST


def _heads(op, x, heads, parts):
    """(T, B, H*parts*D) -> (parts, B*H, T, D)."""
    if x.ndim != 3 or x.shape[2] % (heads * parts):
        raise MXNetError(f"Operator {op}: input {fmt(x.shape)} must be (T, B, heads * {parts} * "
                         f"head_dim) with heads={heads}")
    t, b = x.shape[:2]
    d = x.shape[2] // (heads * parts)
    y = x.reshape(t, b, heads, parts, d).transpose(3, 1, 2, 0, 4)
    return y.reshape(parts, b * heads, t, d)


def _scores(q, k):
    d = q.shape[-1]
    q = q / jnp.sqrt(jnp.asarray(d, q.dtype))
    return jnp.einsum("ntd,nsd->nts", q, k, precision=_HI).astype(q.dtype)


def _values(op, att, v, batch, heads):
    if att.ndim != 3 or att.shape[0] != v.shape[0] or att.shape[2] != v.shape[1]:
        raise MXNetError(f"Operator {op}: attention {fmt(att.shape)} must be (batch*heads, "
                         f"T_q, {v.shape[1]}) = ({v.shape[0]}, T_q, {v.shape[1]})")
    out = jnp.einsum("nts,nsd->ntd", att, v, precision=_HI).astype(v.dtype)   # (B*H, Tq, D)
    tq, d = out.shape[1], out.shape[2]
    return out.reshape(batch, heads, tq, d).transpose(2, 0, 1, 3).reshape(tq, batch, heads * d)


@register("_contrib_interleaved_matmul_selfatt_qk")
def interleaved_matmul_selfatt_qk(queries_keys_values, *, heads: Int):
    """q k^T / sqrt(D) per head: (B*H, T, T)."""
    q, k, _ = _heads("_contrib_interleaved_matmul_selfatt_qk", queries_keys_values, heads, 3)
    return _scores(q, k)


@register("_contrib_interleaved_matmul_selfatt_valatt")
def interleaved_matmul_selfatt_valatt(queries_keys_values, attention, *, heads: Int):
    """attention @ v per head, back to (T, B, H*D)."""
    op = "_contrib_interleaved_matmul_selfatt_valatt"
    _, _, v = _heads(op, queries_keys_values, heads, 3)
    return _values(op, attention, v, queries_keys_values.shape[1], heads)


@register("_contrib_interleaved_matmul_encdec_qk")
def interleaved_matmul_encdec_qk(queries, keys_values, *, heads: Int):
    """q k^T / sqrt(D) per head for queries (Tq, B, H*D) and keys_values (Tk, B, H*2*D):
    (B*H, Tq, Tk)."""
    op = "_contrib_interleaved_matmul_encdec_qk"
    (q,) = _heads(op, queries, heads, 1)
    k, _ = _heads(op, keys_values, heads, 2)
    if q.shape[0] != k.shape[0] or q.shape[2] != k.shape[2]:
        raise MXNetError(f"Operator {op}: queries {fmt(queries.shape)} and keys_values "
                         f"{fmt(keys_values.shape)} disagree on batch or head size")
    return _scores(q, k)


@register("_contrib_interleaved_matmul_encdec_valatt")
def interleaved_matmul_encdec_valatt(keys_values, attention, *, heads: Int):
    """attention @ v per head for keys_values (Tk, B, H*2*D): (Tq, B, H*D)."""
    op = "_contrib_interleaved_matmul_encdec_valatt"
    _, v = _heads(op, keys_values, heads, 2)
    return _values(op, attention, v, keys_values.shape[1], heads)
