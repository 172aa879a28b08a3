"""The window and indexing primitives of the host tier (``host_jaxpr``), in numpy with XLA's
semantics: convolutions (any layout, dilation, padding, groups), reduce-window pooling and
its gradients, gather and scatter."""
import math
import threading

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view


class Unsupported(Exception):
    """Raised by a rule for a parameter value it does not follow: the program compiles."""


def dilate(x, axes, factors, fill):
    """``x`` with ``factor - 1`` copies of ``fill`` between neighbours along ``axes``."""
    if all(f == 1 for f in factors):
        return x
    shape = list(x.shape)
    for a, f in zip(axes, factors):
        shape[a] = (shape[a] - 1) * f + 1 if shape[a] else 0
    out = np.full(shape, fill, x.dtype)
    idx = [slice(None)] * x.ndim
    for a, f in zip(axes, factors):
        idx[a] = slice(None, None, f)
    out[tuple(idx)] = x
    return out


def pad(x, axes, pads, fill):
    """XLA's padding: (lo, hi) per axis, negative values crop."""
    if any(lo > 0 or hi > 0 for lo, hi in pads):
        shape = list(x.shape)
        inner = [slice(None)] * x.ndim
        for a, (lo, hi) in zip(axes, pads):
            shape[a] += max(lo, 0) + max(hi, 0)
            inner[a] = slice(max(lo, 0), max(lo, 0) + x.shape[a])
        out = np.full(shape, fill, x.dtype)        # (np.pad costs 5x this on small arrays)
        out[tuple(inner)] = x
        x = out
    idx = [slice(None)] * x.ndim
    for a, (lo, hi) in zip(axes, pads):
        idx[a] = slice(-lo if lo < 0 else 0, x.shape[a] - (-hi if hi < 0 else 0))
    return x[tuple(idx)]


def _windows(x, axes, sizes, strides, dilation):
    """A view of ``x`` with one window axis per ``axes`` appended: (..., out..., k...)."""
    eff = [(k - 1) * d + 1 for k, d in zip(sizes, dilation)]
    for a, e in zip(axes, eff):
        if x.shape[a] < e:                                    # no complete window
            shape = list(x.shape)
            for b, k in zip(axes, sizes):
                shape[b] = 0
            return np.zeros(shape + list(sizes), x.dtype)
    w = sliding_window_view(x, eff, axis=axes)
    idx = [slice(None)] * x.ndim + [slice(None, None, d) for d in dilation]
    for a, s in zip(axes, strides):
        idx[a] = slice(None, None, s)
    return w[tuple(idx)]


# ---- convolution -------------------------------------------------------------------------
_SCRATCH = threading.local()
SCRATCH_MAX = 1 << 30          # bytes of im2col scratch a thread keeps


def _scratch_copy(src, shape):
    """``src`` (a strided view) copied into a C-contiguous array of ``shape`` that lives in a
    per-thread scratch buffer reused by every convolution: a fresh array of tens of MB is
    mapped by the kernel and page-faulted on its first write, which took as long as the
    copy (ResNet-18's 64-channel 3x3 convolutions: 90-110 ms fresh, 55 ms reused)."""
    n = math.prod(shape) * src.dtype.itemsize
    if n > SCRATCH_MAX:
        return np.ascontiguousarray(src).reshape(shape)
    buf = getattr(_SCRATCH, "buf", None)
    if buf is None or buf.nbytes < n:
        buf = _SCRATCH.buf = np.empty(max(n, 1 << 20), np.uint8)
    out = buf[:n].view(src.dtype).reshape(src.shape)
    np.copyto(out, src)
    return out.reshape(shape)

def _conv(eqn, lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
          dimension_numbers, feature_group_count, batch_group_count, **_):
    """Channels last: the windows of (N, spatial..., C) copied once into rows of
    (kernel..., C) (im2col), times the kernel as (kernel..., I) x O, per group."""
    ls, rs, os_ = dimension_numbers
    nsp = len(ls) - 2
    out_dt = eqn.outvars[0].aval.dtype
    work = np.result_type(np.float32, out_dt) if np.issubdtype(out_dt, np.floating) \
        else np.dtype(out_dt)
    x = np.transpose(lhs, (ls[0],) + tuple(ls[2:]) + (ls[1],)).astype(work, copy=False)
    w = np.transpose(rhs, tuple(rs[2:]) + (rs[1], rs[0])).astype(work, copy=False)
    sp = tuple(range(1, 1 + nsp))
    x = dilate(x, sp, lhs_dilation or (1,) * nsp, 0)
    x = pad(x, sp, padding, 0)
    n, c = x.shape[0], x.shape[-1]
    ksz, ci, o = w.shape[:nsp], w.shape[-2], w.shape[-1]
    kp = math.prod(ksz)
    g, bg = feature_group_count, batch_group_count
    strides = tuple(window_strides)
    rd = tuple(rhs_dilation or (1,) * nsp)
    if kp == 1 and all(s == 1 for s in strides):
        cols = x                                                 # N out... C, no copy
    else:
        win = _windows(x, sp, ksz, strides, rd)                  # N out... C k...
        cols = np.moveaxis(win, 1 + nsp, -1)                     # N out... k... C
    out_sp = cols.shape[1:1 + nsp]
    rows = n * math.prod(out_sp)
    if bg > 1:                      # batch groups: group j pairs batch slice j, outputs j
        nb = n // bg
        cols = np.ascontiguousarray(cols).reshape(bg, nb * math.prod(out_sp), kp * c)
        wm = np.moveaxis(w.reshape(kp * ci, bg, o // bg), 1, 0)      # bg, K, O/bg
        y = np.matmul(cols, wm).reshape((bg, nb) + tuple(out_sp) + (o // bg,))
        y = np.moveaxis(y, 0, -2).reshape((nb,) + tuple(out_sp) + (o,))
    elif g == 1:
        flat = np.reshape(cols, (rows, kp * c)) if cols.flags.c_contiguous else \
            _scratch_copy(cols, (rows, kp * c))
        y = np.matmul(flat, w.reshape(kp * ci, o))
        y = y.reshape((n,) + tuple(out_sp) + (o,))
    else:
        cg, og = c // g, o // g
        cols = np.reshape(cols, (rows, kp, g, cg)).transpose(2, 0, 1, 3).reshape(g, rows, kp * cg)
        wm = np.moveaxis(w.reshape(kp * ci, g, og), 1, 0)            # G, K, og
        y = np.moveaxis(np.matmul(cols, wm), 0, 1).reshape((n,) + tuple(out_sp) + (o,))
    # y is (N, out..., O): to the output's layout
    perm = [0] * (nsp + 2)
    perm[os_[0]], perm[os_[1]] = 0, nsp + 1
    for i, d in enumerate(os_[2:]):
        perm[d] = 1 + i
    return np.asarray(np.transpose(y, perm), dtype=out_dt)


def reduced_size(eqn):
    """The number of products summed into one output element of a dot or convolution."""
    p = eqn.params
    if eqn.primitive.name == "dot_general":
        (xc, _), _ = p["dimension_numbers"]
        return math.prod(eqn.invars[0].aval.shape[d] for d in xc)
    rs = p["dimension_numbers"][1]
    shape = eqn.invars[1].aval.shape
    return math.prod(shape[d] for d in rs[1:])


# ---- reduce-window pooling and its gradients ------------------------------------------------
def _prep(x, window_dimensions, padding, base_dilation, fill):
    axes = tuple(range(x.ndim))
    x = dilate(x, axes, base_dilation or (1,) * x.ndim, fill)
    return pad(x, axes, padding, fill)


def _fill(dtype, which):
    if np.issubdtype(dtype, np.floating):
        return {"sum": 0, "max": -np.inf, "min": np.inf}[which]
    if which == "sum":
        return 0
    info = np.iinfo(dtype)
    return info.min if which == "max" else info.max


def _reduce_window(which):
    """A box's sum, maximum or minimum is one axis after another: a 32x32 average pooling's
    gradient then costs 64 additions per element, not 1,024."""
    f = {"sum": np.sum, "max": np.max, "min": np.min}[which]

    def rule(eqn, x, *, window_dimensions, window_strides, padding, base_dilation=None,
             window_dilation=None):
        fill = _fill(x.dtype, which)
        out = _prep(x, window_dimensions, padding, base_dilation, fill)
        dil = window_dilation or (1,) * x.ndim
        for a, (k, s, d) in enumerate(zip(window_dimensions, window_strides, dil)):
            if k == 1:
                out = out[(slice(None),) * a + (slice(None, None, s),)]
                continue
            win = _windows(out, (a,), (k,), (s,), (d,))
            if which == "sum":
                out = np.sum(win, axis=-1, dtype=x.dtype)
            else:
                out = f(win, axis=-1, initial=fill) if win.shape[-1] else \
                    np.full(win.shape[:-1], fill, x.dtype)
        return np.asarray(out, dtype=x.dtype)
    return rule


def _selected(x, select_prim, window_dimensions, window_strides, padding, window_dilation=None,
              base_dilation=None):
    """Per window of ``x``, the flat index into the padded array of the element XLA's select
    loop keeps: the first maximum under ``ge``, the last under ``gt`` (the minimum for
    ``le``/``lt``); padding is never selected."""
    name = getattr(select_prim, "name", str(select_prim))
    if name not in ("ge", "gt", "le", "lt"):
        raise Unsupported(f"select {name}")
    which = "max" if name in ("ge", "gt") else "min"
    xp = _prep(x, window_dimensions, padding, base_dilation, _fill(x.dtype, which))
    nd = x.ndim
    dil = window_dilation or (1,) * nd
    valid = _prep(np.ones(x.shape, bool), window_dimensions, padding, base_dilation, False)
    pos = np.arange(xp.size).reshape(xp.shape)
    axes = tuple(range(nd))
    win, pwin, vwin = (_windows(a, axes, window_dimensions, window_strides, dil)
                       for a in (xp, pos, valid))
    out_shape = win.shape[:nd]
    win, pwin, vwin = (a.reshape(out_shape + (-1,)) for a in (win, pwin, vwin))
    if name in ("gt", "lt"):                        # strict: later ties replace the kept one
        win, pwin, vwin = win[..., ::-1], pwin[..., ::-1], vwin[..., ::-1]
    worst = _fill(x.dtype, which)
    if np.issubdtype(win.dtype, np.floating):
        win = np.where(np.isnan(win), worst, win)
    win = np.where(vwin, win, worst)
    k = (np.argmax if which == "max" else np.argmin)(win, axis=-1)
    kv = np.take_along_axis(vwin, k[..., None], -1)[..., 0]
    k = np.where(kv, k, np.argmax(vwin, axis=-1))    # all valid values at the identity
    return np.take_along_axis(pwin, k[..., None], -1)[..., 0], xp.shape


def _select_and_scatter_add(eqn, source, operand, *, select_prim, window_dimensions,
                            window_strides, padding):
    idx, pshape = _selected(operand, select_prim, window_dimensions, window_strides, padding)
    acc = np.zeros(math.prod(pshape), source.dtype)
    np.add.at(acc, idx.ravel(), source.ravel())
    acc = acc.reshape(pshape)
    crop = tuple(slice(lo, lo + n) for (lo, _), n in zip(padding, operand.shape))
    return acc[crop] if all(lo >= 0 and hi >= 0 for lo, hi in padding) else \
        _unpad(acc, padding, operand.shape)


def _unpad(acc, padding, shape):
    widths = [(max(-lo, 0), max(-hi, 0)) for lo, hi in padding]
    acc = np.pad(acc, widths)
    crop = tuple(slice(max(lo, 0), max(lo, 0) + n) for (lo, _), n in zip(padding, shape))
    return acc[crop]


def _select_and_gather_add(eqn, tangents, operand, *, select_prim, window_dimensions,
                           window_strides, padding, base_dilation, window_dilation):
    idx, pshape = _selected(operand, select_prim, window_dimensions, window_strides, padding,
                            window_dilation, base_dilation)
    tp = _prep(tangents, window_dimensions, padding, base_dilation, 0)
    return np.asarray(tp.ravel()[idx], dtype=tangents.dtype)


# ---- gather and scatter ------------------------------------------------------------------
def _mode(mode):
    s = str(mode).upper()
    if "CLIP" in s:
        return "clip"
    if "FILL" in s:
        return "fill"
    return "promise"      # XLA's own semantics: gathers clamp, scatters skip out-of-bounds


def _starts(operand_shape, idx, start_map, obatch, ibatch, sizes):
    """Per operand dimension, the start of each batch element's slice (broadcast over the
    batch shape ``idx.shape[:-1]``), and whether it lies in bounds."""
    bshape = idx.shape[:-1]
    starts, ok = [], np.ones(bshape, bool)
    for d, n in enumerate(operand_shape):
        if d in start_map:
            s = idx[..., list(start_map).index(d)].astype(np.int64)
        elif d in obatch:
            b = ibatch[list(obatch).index(d)]
            shape = [1] * len(bshape)
            shape[b] = bshape[b]
            s = np.broadcast_to(np.arange(bshape[b]).reshape(shape), bshape)
        else:
            s = np.zeros(bshape, np.int64)
        ok &= (s >= 0) & (s <= n - sizes[d])
        starts.append(s)
    return starts, ok


def _gather(eqn, operand, indices, *, dimension_numbers, slice_sizes, mode, fill_value=None,
            **_):
    dn = dimension_numbers
    obatch = tuple(getattr(dn, "operand_batching_dims", ()))
    ibatch = tuple(getattr(dn, "start_indices_batching_dims", ()))
    collapsed = set(dn.collapsed_slice_dims) | set(obatch)
    starts, ok = _starts(operand.shape, indices, dn.start_index_map, obatch, ibatch, slice_sizes)
    m = _mode(mode)
    bshape = indices.shape[:-1]
    nb = len(bshape)
    offs = [d for d in range(operand.ndim) if d not in collapsed]
    index = []
    for d, n in enumerate(operand.shape):
        s = np.clip(starts[d], 0, n - slice_sizes[d]).reshape(bshape + (1,) * len(offs))
        if d in offs:
            k = offs.index(d)
            shape = [1] * (nb + len(offs))
            shape[nb + k] = slice_sizes[d]
            s = s + np.arange(slice_sizes[d]).reshape(shape)
        index.append(s)
    res = np.broadcast_to(operand[tuple(index)], bshape + tuple(slice_sizes[d] for d in offs))
    if m == "fill":
        fv = _fill_value(operand.dtype, fill_value)
        res = np.where(ok.reshape(bshape + (1,) * len(offs)), res, fv)
    # output order: offset dims at offset_dims, batch dims elsewhere in order
    out_rank = nb + len(offs)
    offset_pos = list(dn.offset_dims)
    batch_pos = [p for p in range(out_rank) if p not in offset_pos]
    perm = [0] * out_rank
    for i, p in enumerate(batch_pos):
        perm[p] = i
    for k, p in enumerate(offset_pos):
        perm[p] = nb + k
    return np.asarray(np.transpose(res, perm), dtype=operand.dtype)


def _fill_value(dtype, fill_value):
    if fill_value is not None:
        return np.asarray(fill_value).astype(dtype)
    if np.issubdtype(dtype, np.floating):
        return np.asarray(np.nan, dtype)
    if dtype == np.bool_:
        return np.asarray(True)
    info = np.iinfo(dtype)
    return np.asarray(info.min if np.issubdtype(dtype, np.signedinteger) else info.max, dtype)


def _scatter(combine):
    def rule(eqn, operand, indices, updates, *, dimension_numbers, mode, update_jaxpr=None,
             **_):
        dn = dimension_numbers
        obatch = tuple(getattr(dn, "operand_batching_dims", ()))
        ibatch = tuple(getattr(dn, "scatter_indices_batching_dims", ()))
        inserted = set(dn.inserted_window_dims) | set(obatch)
        win_dims = list(dn.update_window_dims)
        upd_batch = [d for d in range(updates.ndim) if d not in win_dims]
        # updates as (batch..., window...) with the batch matching indices.shape[:-1]
        u = np.transpose(updates, upd_batch + win_dims)
        bshape = indices.shape[:-1]
        nb = len(bshape)
        offs = [d for d in range(operand.ndim) if d not in inserted]
        wshape = [u.shape[nb + k] for k in range(len(offs))]
        sizes = [1] * operand.ndim
        for k, d in enumerate(offs):
            sizes[d] = wshape[k]
        starts, ok = _starts(operand.shape, indices, dn.scatter_dims_to_operand_dims, obatch,
                             ibatch, sizes)
        m = _mode(mode)
        index = []
        for d, n in enumerate(operand.shape):
            s = starts[d]
            if m == "clip":
                s = np.clip(s, 0, n - sizes[d])
            s = s.reshape(bshape + (1,) * len(offs))
            if d in offs:
                k = offs.index(d)
                shape = [1] * (nb + len(offs))
                shape[nb + k] = sizes[d]
                s = s + np.arange(sizes[d]).reshape(shape)
            index.append(np.broadcast_to(s, u.shape))
        keep = np.ones(u.shape, bool) if m == "clip" else \
            np.broadcast_to(ok.reshape(bshape + (1,) * len(offs)), u.shape)
        out = np.array(operand, copy=True)
        sel = tuple(i[keep] for i in index)
        combine(out, sel, u[keep])
        return out
    return rule


def _scatter_set(out, sel, vals):
    out[sel] = vals


RULES = {
    "conv_general_dilated": _conv,
    "reduce_window_sum": _reduce_window("sum"), "reduce_window_max": _reduce_window("max"),
    "reduce_window_min": _reduce_window("min"),
    "select_and_scatter_add": _select_and_scatter_add,
    "select_and_gather_add": _select_and_gather_add,
    "gather": _gather,
    "scatter-add": _scatter(lambda o, s, v: np.add.at(o, s, v)),
    "scatter_add": _scatter(lambda o, s, v: np.add.at(o, s, v)),
    "scatter-mul": _scatter(lambda o, s, v: np.multiply.at(o, s, v)),
    "scatter_mul": _scatter(lambda o, s, v: np.multiply.at(o, s, v)),
    "scatter-min": _scatter(lambda o, s, v: np.minimum.at(o, s, v)),
    "scatter_min": _scatter(lambda o, s, v: np.minimum.at(o, s, v)),
    "scatter-max": _scatter(lambda o, s, v: np.maximum.at(o, s, v)),
    "scatter_max": _scatter(lambda o, s, v: np.maximum.at(o, s, v)),
    "scatter": _scatter(_scatter_set),
}
