"""The window and indexing primitives of the host tier (``host_jaxpr``), in numpy with XLA's
semantics: convolutions (any layout, dilation, padding, groups), reduce-window pooling and
its gradients, gather and scatter."""
import math
import threading

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from . import host_blas as _blas


class Unsupported(Exception):
    """Raised by a rule for a parameter value it does not follow: the program compiles.
    ``primitive``: the equation's (set by ``host_jaxpr._run``)."""

    primitive = None

    def __init__(self, why, primitive=None):
        super().__init__(why)
        self.primitive = primitive


class RuleError(Unsupported):
    """A rule raised another error (a gap in it): the program compiles, and the failure is
    counted and logged as a warning (``host_jaxpr.FAILURES``)."""


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
        out = np.empty(shape, x.dtype)     # (np.pad costs 5x this on small arrays)
        for a, sl in enumerate(inner):        # the borders only: one pass, not two
            if sl != slice(None):
                out[(slice(None),) * a + (slice(None, sl.start),)] = fill
                out[(slice(None),) * a + (slice(sl.stop, None),)] = fill
        out[tuple(inner)] = x
        x = out
    idx = [slice(None)] * x.ndim
    for a, (lo, hi) in zip(axes, pads):
        idx[a] = slice(-lo if lo < 0 else 0, x.shape[a] - (-hi if hi < 0 else 0))
    return x[tuple(idx)]


def _windows(x, axes, sizes, strides, dilation):
    """A view of ``x`` with one window axis per ``axes`` appended: (..., out..., k...)."""
    eff = [(k - 1) * d + 1 for k, d in zip(sizes, dilation)]
    if any(x.shape[a] < e for a, e in zip(axes, eff)):        # no complete window somewhere
        shape = list(x.shape)
        for a, e, s in zip(axes, eff, strides):
            shape[a] = (x.shape[a] - e) // s + 1 if x.shape[a] >= e else 0
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
          dimension_numbers, feature_group_count, batch_group_count, precision,
          preferred_element_type, out_sharding=None):
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
    ld = tuple(lhs_dilation or (1,) * nsp)
    if any(d > 1 for d in ld) and all(s == 1 for s in window_strides) \
            and feature_group_count == 1 and batch_group_count == 1:
        y = _transposed(x, w, ld, padding, tuple(rhs_dilation or (1,) * nsp))
        return _to_layout(y, os_, out_dt)
    ksz, ci, o = w.shape[:nsp], w.shape[-2], w.shape[-1]
    kp = math.prod(ksz)
    g, bg = feature_group_count, batch_group_count
    strides = tuple(window_strides)
    rd = tuple(rhs_dilation or (1,) * nsp)
    if g == 1 and bg == 1 and all(d == 1 for d in ld):
        out_sp = _out_size(x.shape[1:-1], padding, ksz, strides, rd)
        if 0 < WIDE_WINDOW * math.prod(out_sp) <= kp:
            xt = np.transpose(lhs, (ls[1],) + tuple(ls[2:]) + (ls[0],)).astype(work, copy=False)
            y = _wide_window(pad(xt, sp, padding, 0), w, out_sp, strides, rd)
            return _to_layout(y, os_, out_dt)
    x = dilate(x, sp, ld, 0)
    x = pad(x, sp, padding, 0)
    n, c = x.shape[0], x.shape[-1]
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
        y = _blas.matmul(cols, wm).reshape((bg, nb) + tuple(out_sp) + (o // bg,))
        y = np.moveaxis(y, 0, -2).reshape((nb,) + tuple(out_sp) + (o,))
    elif g == 1:
        flat = np.reshape(cols, (rows, kp * c)) if cols.flags.c_contiguous else \
            _scratch_copy(cols, (rows, kp * c))
        y = _blas.matmul(flat, w.reshape(kp * ci, o))
        y = y.reshape((n,) + tuple(out_sp) + (o,))
    else:
        cg, og = c // g, o // g
        cols = np.reshape(cols, (rows, kp, g, cg)).transpose(2, 0, 1, 3).reshape(g, rows, kp * cg)
        wm = np.moveaxis(w.reshape(kp * ci, g, og), 1, 0)            # G, K, og
        y = np.moveaxis(_blas.matmul(cols, wm), 0, 1).reshape((n,) + tuple(out_sp) + (o,))
    return _to_layout(y, os_, out_dt)


WIDE_WINDOW = 4     # a window this many times the outputs' count: ``_wide_window``


def _out_size(in_sp, padding, ksz, strides, rd):
    return tuple(max((q + lo + hi - (k - 1) * r - 1) // s + 1, 0) for q, (lo, hi), k, s, r
                 in zip(in_sp, padding, ksz, strides, rd))


def _wide_window(xt, w, out_sp, strides, rd):
    """A convolution whose window is much larger than its output (a weight gradient: the
    window is the output gradient, 56x56, the output the 3x3 kernel) with ``xt`` laid out
    (features, padded spatial..., batch) and ``w`` (kernel..., features, outputs).  im2col
    would gather each window as a row, reading the activations with a stride of one
    channel; here the rows are the kernel positions, each a copy of the few output
    positions' contiguous channel runs, and BLAS multiplies the transposed matrix, its
    products in im2col's order (kernel position, then feature; ResNet-18's weight gradients
    come out bit for bit as before).  Returns (batch, out..., outputs)."""
    nsp = len(out_sp)
    sp = tuple(range(1, 1 + nsp))
    ksz, o = w.shape[:nsp], w.shape[-1]
    win = _windows(xt, sp, out_sp, rd, strides)          # I, positions..., B, out...
    win = win[(slice(None),) + tuple(slice(0, k) for k in ksz)]
    i, b = xt.shape[0], xt.shape[-1]
    perm = tuple(range(1, 1 + nsp)) + (0,) + tuple(range(2 + nsp, 2 + 2 * nsp)) + (1 + nsp,)
    a = _scratch_copy(np.transpose(win, perm), (math.prod(ksz) * i, math.prod(out_sp) * b))
    y = _blas.matmul(a.T, w.reshape(-1, o))               # (out..., B) x O
    return np.moveaxis(y.reshape(tuple(out_sp) + (b, o)), nsp, 0)


def _to_layout(y, out_spec, out_dt):
    """``y`` (N, out..., O) in the output's layout."""
    nsp = y.ndim - 2
    perm = [0] * (nsp + 2)
    perm[out_spec[0]], perm[out_spec[1]] = 0, nsp + 1
    for i, d in enumerate(out_spec[2:]):
        perm[d] = 1 + i
    return np.asarray(np.transpose(y, perm), dtype=out_dt)


def _transposed(x, w, ld, padding, rd):
    """A stride-1 convolution of ``x`` (N, in..., C) dilated by ``ld`` (the data gradient
    of a strided convolution) as a scatter: each input element's products with every tap,
    one BLAS product (N*in, C) x (C, taps*O), added into the output at ``q*ld + pad - k*rd``.
    im2col of the dilated input would copy ``ld**2`` times the data, mostly zeros: ResNet's
    7x7 stride-2 stem took 23 s and 5 GB that way."""
    nsp = x.ndim - 2
    n, c = x.shape[0], x.shape[-1]
    in_sp, ksz, o = x.shape[1:-1], w.shape[:nsp], w.shape[-1]
    out_sp = [(q - 1) * l + lo + hi - (k - 1) * r + 1 if q else 0
              for q, l, (lo, hi), k, r in zip(in_sp, ld, padding, ksz, rd)]
    if any(s <= 0 for s in out_sp):
        return np.zeros((n,) + tuple(max(s, 0) for s in out_sp) + (o,), x.dtype)
    z = _blas.matmul(x.reshape(-1, c), np.moveaxis(w, -2, 0).reshape(c, -1))
    z = z.reshape((n,) + tuple(in_sp) + tuple(ksz) + (o,))
    out = np.zeros((n,) + tuple(out_sp) + (o,), z.dtype)
    for tap in np.ndindex(*ksz):
        src, dst = [slice(None)], [slice(None)]
        for q, l, (lo, _), k, r, size in zip(in_sp, ld, padding, tap, rd, out_sp):
            off = lo - k * r                                   # output index of input 0
            q0 = -(off // l) if off < 0 else 0                   # first q*l + off >= 0
            q1 = min(q, (size - 1 - off) // l + 1) if size - 1 - off >= 0 else 0
            if q1 <= q0:
                break
            src.append(slice(q0, q1))
            dst.append(slice(q0 * l + off, (q1 - 1) * l + off + 1, l))
        else:
            out[tuple(dst)] += z[tuple(src) + tap]
    return out


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

    def rule(eqn, x, *, window_dimensions, window_strides, padding, base_dilation,
             window_dilation):
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
    """The element XLA's select loop keeps in each window of ``x``: walking the window in
    row-major order, the kept element stays while ``select(kept, next)`` holds (under ``ge``
    the first maximum, under ``gt`` the last; a NaN is taken when met and dropped at the
    next element).  Padding is an element equal to the reduction's identity (-inf for a
    maximum): it is kept where every element after it is -inf too, and XLA then drops
    that window's gradient.  Returns the kept tap's number per window, the taps as index
    tuples into the padded array, and its shape.

    The loop runs a tap at a time over all windows at once (a max pooling's 9 taps).  As
    taps come in increasing order, the kept tap is the largest one that replaced; without
    NaN the running kept value is the running extreme (``np.copyto(..., where=)`` and
    boolean assignment take 5x as long as these whole-array passes)."""
    name = getattr(select_prim, "name", str(select_prim))
    keep = {"ge": np.greater_equal, "gt": np.greater, "le": np.less_equal,
            "lt": np.less}.get(name)
    if keep is None:
        raise Unsupported(f"select {name}")
    fill = _fill(x.dtype, "max" if name in ("ge", "gt") else "min")
    xp = _prep(x, window_dimensions, padding, base_dilation, fill)
    dil = window_dilation or (1,) * x.ndim
    out_shape = _out_size(xp.shape, ((0, 0),) * x.ndim, window_dimensions, window_strides, dil)
    taps = [tuple(slice(o * d, o * d + (m - 1) * s + 1, s) for o, d, s, m in
                  zip(offset, dil, window_strides, out_shape))
            for offset in np.ndindex(*window_dimensions)]
    kept = np.zeros(out_shape, np.int32)
    nan = _has_nan(x)
    extreme = np.maximum if name in ("ge", "gt") else np.minimum
    best = np.array(xp[taps[0]])
    take = np.empty(out_shape, bool)
    tap_if_taken = np.empty(out_shape, np.int32)
    for t, tap in enumerate(taps[1:], 1):
        v = xp[tap]
        keep(best, v, out=take)
        np.logical_not(take, out=take)
        np.multiply(take, t, out=tap_if_taken)
        np.maximum(kept, tap_if_taken, out=kept)
        if nan:
            best = np.where(take, v, best)
        else:
            extreme(best, v, out=best)
    return kept, taps, xp.shape


def _has_nan(x):
    return x.dtype.kind in "fc" and bool(np.isnan(x).any())


def _select_and_scatter_add(eqn, source, operand, *, select_prim, window_dimensions,
                            window_strides, padding):
    kept, taps, pshape = _selected(operand, select_prim, window_dimensions, window_strides,
                                   padding)
    acc = np.zeros(pshape, source.dtype)
    zero = source.dtype.type(0)
    for t, tap in enumerate(taps):        # (one tap's windows never share a position)
        acc[tap] += np.where(kept == t, source, zero)
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
    kept, taps, _ = _selected(operand, select_prim, window_dimensions, window_strides, padding,
                              window_dilation, base_dilation)
    tp = _prep(tangents, window_dimensions, padding, base_dilation, 0)
    out = np.zeros(kept.shape, tangents.dtype)
    for t, tap in enumerate(taps):
        np.copyto(out, tp[tap], where=kept == t)
    return out


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


def _gather(eqn, operand, indices, *, dimension_numbers, slice_sizes, mode, fill_value,
            indices_are_sorted, unique_indices):
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
    def rule(eqn, operand, indices, updates, *, dimension_numbers, mode, update_jaxpr,
             update_consts, indices_are_sorted, unique_indices):
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
    "scatter-mul": _scatter(lambda o, s, v: np.multiply.at(o, s, v)),
    "scatter-min": _scatter(lambda o, s, v: np.minimum.at(o, s, v)),
    "scatter-max": _scatter(lambda o, s, v: np.maximum.at(o, s, v)),
    "scatter": _scatter(_scatter_set),
}
