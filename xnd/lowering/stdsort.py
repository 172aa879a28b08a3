"""The order MXNet's CPU ``sort``/``argsort``/``topk`` give: libstdc++'s ``std::sort``
(introsort) or, for ``topk`` with ``k * 8 <= n``, ``std::partial_sort`` (heap select), over
the row's indices with the comparison ``v[i] < v[j]`` (``>`` descending).

Neither is stable, and with NaN (every comparison false) neither is a sort, so a row with
equal values or NaN has MXNet's order only by running the same algorithm:
``argsort([0, 1, 2] * 20)`` starts ``0, 21, 18, 24`` in MXNet, and ``sort([1, nan, inf])``
keeps the NaN where insertion left it.  A row of distinct values has one order, which the
kernel takes from XLA's stable sort; only rows with ties or NaN come here, through
``jax.pure_callback`` (``order``).

The emulation follows libstdc++ (GCC 5-12) step by step: ``__introsort_loop`` (threshold
16, depth ``2 * floor(log2 n)``, median of ``first + 1``, middle, ``last - 1`` moved to
``first``, Hoare's unguarded partition), heapsort where the depth runs out, and the final
insertion sort.  With NaN it runs the scalar steps literally; rows without NaN run all
partitions of one recursion level at once, as array operations (the k-th element that stops the left scan swaps with the
k-th that stops the right one), and their final insertion sort, which never moves an element
past an equal one nor out of its partition, is a stable sort of the partitioned row.  Where
NaN would make libstdc++'s unguarded scans leave the row (undefined behaviour in C++), the
scans stop at the row's ends.
"""
import operator

import jax
import jax.numpy as jnp
import numpy as np

from .. import _compat_jax

THRESHOLD = 16


class _Row:
    """One row being sorted: ``a`` the keys in their current order, ``ix`` their indices."""

    def __init__(self, keys, ascending, exact):
        self.a = keys.copy()
        self.ix = np.arange(len(keys), dtype=np.int64)
        self.lt = operator.lt if ascending else operator.gt     # scalar comparison
        self.vlt = np.less if ascending else np.greater        # the same, on arrays
        self.exact = exact          # scalar steps on lists (NaN: literally; heap select)
        if exact:
            self.a = self.a.tolist()
            self.ix = self.ix.tolist()

    def swap(self, i, j):
        a, ix = self.a, self.ix
        a[i], a[j] = a[j], a[i]
        ix[i], ix[j] = ix[j], ix[i]

    # -- std::sort --------------------------------------------------------------------------
    def sort(self):
        n = len(self.a)
        if n > 1:
            if self.exact:
                self._introsort(0, n, 2 * (n.bit_length() - 1))
            else:
                self._introsort_levels(n)
            self._final_insertion(0, n)

    def _introsort(self, first, last, depth):
        while last - first > THRESHOLD:
            if depth == 0:
                self.partial_sort(first, last, last)
                return
            depth -= 1
            cut = self._partition_pivot(first, last)
            self._introsort(cut, last, depth)
            last = cut

    def _partition_pivot(self, first, last):
        mid = first + (last - first) // 2
        self._median_to_first(first, first + 1, mid, last - 1)
        return self._unguarded_partition(first + 1, last, first)

    def _median_to_first(self, result, a, b, c):
        lt, v = self.lt, self.a
        if lt(v[a], v[b]):
            m = b if lt(v[b], v[c]) else c if lt(v[a], v[c]) else a
        else:
            m = a if lt(v[a], v[c]) else c if lt(v[b], v[c]) else b
        self.swap(result, m)

    def _unguarded_partition(self, first, last, pivot):
        lt, v = self.lt, self.a
        p = v[pivot]
        end = len(v)
        while True:
            while first < end - 1 and lt(v[first], p):
                first += 1
            last -= 1
            while last > 0 and lt(p, v[last]):
                last -= 1
            if not first < last:
                return first
            self.swap(first, last)
            first += 1

    def _introsort_levels(self, n):
        """``_introsort`` without NaN, every partition of one recursion level at once: the
        segments are disjoint, so the order C++ visits them in does not change the result,
        and a segment's depth is its level."""
        first = np.array([0])
        last = np.array([n])
        depth = 2 * (n.bit_length() - 1)
        while len(first):
            keep = last - first > THRESHOLD
            first, last = first[keep], last[keep]
            if depth == 0:
                for f, l in zip(first.tolist(), last.tolist()):
                    self.partial_sort(f, l, l)
                return
            depth -= 1
            if len(first):
                cut = self._partition_level(first, last)
                first, last = np.concatenate([first, cut]), np.concatenate([cut, last])

    def _partition_level(self, first, last):
        """Median-of-three pivots moved to ``first``, then Hoare's partition of each segment
        ``(first, last)`` as array operations: the k-th element stopping the left scan swaps
        with the k-th stopping the right scan until the two cross.  Returns the cuts."""
        a, ix, lt = self.a, self.ix, self.vlt
        mid = first + (last - first) // 2
        x, y, z = a[first + 1], a[mid], a[last - 1]
        m = np.where(lt(x, y), np.where(lt(y, z), mid, np.where(lt(x, z), last - 1, first + 1)),
                     np.where(lt(x, z), first + 1, np.where(lt(y, z), last - 1, mid)))
        for arr in (a, ix):
            arr[first], arr[m] = arr[m], arr[first].copy()
        lengths = last - first - 1
        seg = np.repeat(np.arange(len(first)), lengths)
        pos = np.arange(len(seg)) - np.repeat(np.cumsum(lengths) - lengths, lengths) \
            + np.repeat(first + 1, lengths)
        val, p = a[pos], a[first][seg]
        stops_left, stops_right = ~lt(val, p), ~lt(p, val)
        lp, ls = pos[stops_left], seg[stops_left]
        rp, rs = pos[stops_right], seg[stops_right]
        n_l = np.bincount(ls, minlength=len(first))
        n_r = np.bincount(rs, minlength=len(first))
        start_l, start_r = np.cumsum(n_l) - n_l, np.cumsum(n_r) - n_r
        k = np.arange(len(lp)) - start_l[ls]                 # rank of each left stop
        pairs = k < np.minimum(n_l, n_r)[ls]
        partner = np.where(pairs, start_r[ls] + n_r[ls] - 1 - k, 0)   # k-th right stop
        crossed = pairs & (lp >= rp[partner] if len(rp) else pairs)
        kstar = np.minimum(n_l, n_r)
        np.minimum.at(kstar, ls[crossed], k[crossed])
        swap = pairs & (k < kstar[ls])
        lo, hi = lp[swap], rp[partner[swap]]
        for arr in (a, ix):
            arr[lo], arr[hi] = arr[hi], arr[lo].copy()
        has_l = kstar < n_l
        cut = np.where(has_l, lp[np.minimum(start_l + kstar, len(lp) - 1)], last)
        prev = start_r + n_r - kstar                          # the (kstar-1)-th right stop
        crossed_right = np.where(kstar > 0, rp[np.clip(prev, 0, max(len(rp) - 1, 0))], last)
        return np.minimum(cut, crossed_right)

    def _final_insertion(self, first, last):
        if not self.exact:
            seg = self.a[first:last]
            order = (np.argsort(seg, kind="stable") if self.vlt is np.less
                     else _stable_descending(seg))
            self.a[first:last] = self.a[first:last][order]
            self.ix[first:last] = self.ix[first:last][order]
            return
        if last - first > THRESHOLD:
            self._insertion(first, first + THRESHOLD)
            for i in range(first + THRESHOLD, last):
                self._linear_insert(i, first)
        else:
            self._insertion(first, last)

    def _insertion(self, first, last):
        a, ix, lt = self.a, self.ix, self.lt
        for i in range(first + 1, last):
            if lt(a[i], a[first]):
                val, vi = a[i], ix[i]
                a[first + 1:i + 1], ix[first + 1:i + 1] = a[first:i], ix[first:i]
                a[first], ix[first] = val, vi
            else:
                self._linear_insert(i, first)

    def _linear_insert(self, last, lowest):
        a, ix, lt = self.a, self.ix, self.lt
        val, vi = a[last], ix[last]
        nxt = last - 1
        while nxt >= 0 and lt(val, a[nxt]):
            a[last], ix[last] = a[nxt], ix[nxt]
            last, nxt = nxt, nxt - 1
        a[last], ix[last] = val, vi

    # -- std::partial_sort (heap select, then sort_heap) -----------------------------------
    def partial_sort(self, first, middle, last):
        self._make_heap(first, middle)
        a, lt = self.a, self.lt
        for i in range(middle, last):
            if lt(a[i], a[first]):
                self._pop_heap(first, middle, i)
        while middle - first > 1:
            middle -= 1
            self._pop_heap(first, middle, middle)

    def _make_heap(self, first, last):
        n = last - first
        if n < 2:
            return
        for parent in range((n - 2) // 2, -1, -1):
            self._adjust_heap(first, parent, n, self.a[first + parent], self.ix[first + parent])

    def _pop_heap(self, first, last, result):
        a, ix = self.a, self.ix
        val, vi = a[result], ix[result]
        a[result], ix[result] = a[first], ix[first]
        self._adjust_heap(first, 0, last - first, val, vi)

    def _adjust_heap(self, first, hole, n, val, vi):
        a, ix, lt = self.a, self.ix, self.lt
        top, child = hole, hole
        while child < (n - 1) // 2:
            child = 2 * (child + 1)
            if lt(a[first + child], a[first + child - 1]):
                child -= 1
            a[first + hole], ix[first + hole] = a[first + child], ix[first + child]
            hole = child
        if n % 2 == 0 and child == (n - 2) // 2:
            child = 2 * (child + 1)
            a[first + hole], ix[first + hole] = a[first + child - 1], ix[first + child - 1]
            hole = child - 1
        parent = (hole - 1) // 2
        while hole > top and lt(a[first + parent], val):
            a[first + hole], ix[first + hole] = a[first + parent], ix[first + parent]
            hole, parent = parent, (parent - 1) // 2
        a[first + hole], ix[first + hole] = val, vi


def _stable_descending(keys):
    """Indices sorting ``keys`` from largest to smallest, equal keys in their order."""
    n = len(keys)
    rev = np.argsort(keys[::-1], kind="stable")[::-1]   # largest first, equals reversed twice
    return (n - 1) - rev


def row_order(keys, k, ascending):
    """The first ``k`` indices of MXNet's CPU order of the 1-D numpy array ``keys``."""
    n = len(keys)
    if keys.dtype.kind not in "iub":
        keys = keys.astype(np.float64)   # float16/bfloat16/float32 keys are exact in float64
    nan = keys.dtype.kind == "f" and bool(np.isnan(keys).any())
    # the heap select and NaN's literal steps are scalar loops, faster on Python lists
    row = _Row(keys, ascending, exact=nan or k * 8 <= n)
    if k * 8 > n:
        row.sort()
    else:
        row.partial_sort(0, k, n)
    return np.asarray(row.ix[:k], dtype=np.int64)


def _host_orders(rows, device_order, k, ascending):
    """MXNet's order for every row where the device's may differ (NaN, or equal values among
    the k+1 that decide the answer); the device's elsewhere."""
    out = np.array(device_order, dtype=np.int32)
    keys = rows if rows.dtype.kind in "iub" else rows.astype(np.float64)
    s = np.sort(keys, axis=-1)
    s = s[:, :k + 1] if ascending else s[:, ::-1][:, :k + 1]
    redo = (s[:, 1:] == s[:, :-1]).any(axis=-1)
    if keys.dtype.kind == "f":
        redo |= np.isnan(keys).any(axis=-1)
    for r in np.flatnonzero(redo):
        out[r] = row_order(rows[r], k, ascending)
    return out


def _device_order(rows, ascending, k):
    """(first ``k`` indices of some correct order, whether that order may not be MXNet's):
    it is MXNet's unless values the answer depends on are equal, or NaN is in the row.  For
    ``k < n`` that is the k+1 smallest (largest) values, from ``lax.top_k``."""
    n = rows.shape[-1]
    if k < n:
        keys = rows.astype(jnp.int8) if rows.dtype == jnp.bool_ else rows
        if ascending:   # top_k takes the largest: an order-reversing map (ints: ~x, no overflow)
            keys = -keys if jnp.issubdtype(keys.dtype, jnp.floating) else ~keys
        # the barrier keeps XLA's TopK: reading vals otherwise turns it into a whole sort
        vals, idx = _compat_jax.optimization_barrier(jax.lax.top_k(keys, k + 1))
        return idx[:, :k], jnp.any(vals[:, 1:] == vals[:, :-1])
    if ascending:
        idx = jnp.argsort(rows, axis=-1, stable=True)
    else:   # descending without negation (unsigned ints wrap): reversed twice
        idx = (n - 1) - jnp.flip(jnp.argsort(jnp.flip(rows, -1), axis=-1, stable=True), -1)
    s = jnp.take_along_axis(rows, idx, axis=-1)
    return idx, jnp.any(s[:, 1:] == s[:, :-1])


def order(data, axis, ascending, k):
    """The first ``k`` indices along ``axis`` of MXNet's CPU order (int32, ``axis`` kept in
    place).  Rows whose answer is unique take XLA's order; if any row's answer depends on
    equal values or NaN, the rows are ordered on the host by the emulation above."""
    v = jnp.moveaxis(jax.lax.stop_gradient(data), axis, -1)   # indices carry no gradient
    rows = v.reshape(-1, v.shape[-1])
    if rows.shape[-1] < 2 or rows.shape[0] == 0:
        picked = jnp.broadcast_to(jnp.arange(k, dtype=jnp.int32), (rows.shape[0], k))
    else:
        fast, ties = _device_order(rows, ascending, k)
        if jnp.issubdtype(rows.dtype, jnp.floating):
            ties = ties | jnp.any(jnp.isnan(rows))
        out = jax.ShapeDtypeStruct((rows.shape[0], k), jnp.int32)
        picked = jax.lax.cond(
            ties,
            lambda r, o: jax.pure_callback(
                lambda r_, o_: _host_orders(np.asarray(r_), np.asarray(o_), k, ascending),
                out, r, o),
            lambda r, o: o, rows, fast.astype(jnp.int32))
    picked = picked.reshape(v.shape[:-1] + (k,))
    return jnp.moveaxis(picked, -1, axis)
