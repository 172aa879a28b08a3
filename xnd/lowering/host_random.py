"""JAX's threefry random primitives for the host tier (``host_jaxpr``), bit for bit.

A program that samples (Dropout, xnd's samplers) runs on the host only if numpy produces
the same bits as XLA.  JAX's default PRNG, threefry-2x32, is integer arithmetic on uint32
words (additions wrap, rotations, xors), which numpy computes exactly: this module follows
JAX's definitions of seeding, folding in, splitting and drawing bits in both of its layouts
(``jax_threefry_partitionable``, the default from jax 0.5 on: one 64-bit counter per output
element; before: a counter array split in halves).  Other PRNGs (xnd's own draws use JAX's
'rbg', lowering/random.py) are their implementation's functions traced and evaluated like
any jaxpr; XLA's ``rng_bit_generator`` inside them is a small compiled kernel at a bucketed
length, whose first elements are the bits of any shorter draw.  Typed keys (``key<...>``)
are held as their uint32 data, shape ``(..., key_shape)``.  tests/test_host_jaxpr.py
compares every rule with XLA's bits.
"""
import functools
import math

import jax
import numpy as np
from jax import lax

KEY_DTYPE = "key<fry>"          # str() of threefry's typed-key dtype
_U32 = np.uint32
_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))


def _rotl(x, d):
    return (x << _U32(d)) | (x >> _U32(32 - d))


def threefry2x32(k1, k2, x1, x2):
    """The Threefry-2x32 hash (20 rounds) of counter words ``x1, x2`` under key ``k1, k2``,
    elementwise with broadcasting."""
    k1, k2, x1, x2 = (np.asarray(a, _U32) for a in (k1, k2, x1, x2))
    ks = (k1, k2, k1 ^ k2 ^ _U32(0x1BD11BDA))
    x1, x2 = x1 + ks[0], x2 + ks[1]
    for i in range(5):
        for r in _ROTATIONS[i % 2]:
            x1 = x1 + x2
            x2 = x1 ^ _rotl(x2, r)
        x1 = x1 + ks[(i + 1) % 3]
        x2 = x2 + ks[(i + 2) % 3] + _U32(i + 1)
    return x1, x2


def _partitionable():
    return bool(jax.config.jax_threefry_partitionable)


def _seed(seed):
    """threefry_seed, elementwise: a 64-bit seed's two words (a 32-bit one: 0 and itself)."""
    s = np.asarray(seed)
    bits = s.dtype.itemsize * 8
    hi = (s.astype(np.uint64) >> np.uint64(32)).astype(_U32) if bits == 64 else \
        np.zeros(s.shape, _U32)
    lo = s.astype(np.int64).astype(np.uint64) & np.uint64(0xFFFFFFFF) if bits < 64 else \
        s.astype(np.uint64) & np.uint64(0xFFFFFFFF)
    return np.stack([hi, lo.astype(_U32)], axis=-1)


def _hash_counts(key, counts):
    """threefry_2x32(key, counts) for one key: the flat counts split in halves (an odd one
    padded with a 0), hashed pairwise, joined back."""
    flat = counts.reshape(-1)
    odd = flat.size % 2
    if odd:
        flat = np.concatenate([flat, np.zeros(1, _U32)])
    half = flat.size // 2
    y1, y2 = threefry2x32(key[0], key[1], flat[:half], flat[half:])
    out = np.concatenate([y1, y2])
    return (out[:-1] if odd else out).reshape(counts.shape)


def _iota_2x32(shape):
    idx = np.arange(math.prod(shape), dtype=np.uint64).reshape(shape)
    return (idx >> np.uint64(32)).astype(_U32), (idx & np.uint64(0xFFFFFFFF)).astype(_U32)


def _bits_one(key, bit_width, shape):
    dtype = np.dtype(f"uint{bit_width}")
    if _partitionable():
        hi, lo = _iota_2x32(shape)
        b1, b2 = threefry2x32(key[0], key[1], hi, lo)
        if bit_width == 64:
            return (b1.astype(np.uint64) << np.uint64(32)) | b2.astype(np.uint64)
        return (b1 ^ b2).astype(dtype)
    size = math.prod(shape)
    words = -(-bit_width * size // 32)
    if words > np.iinfo(_U32).max:
        raise _unsupported("more than 2**32 random words")
    bits = _hash_counts(key, np.arange(words, dtype=_U32))
    if bit_width == 64:
        h, l_ = np.split(bits, 2)
        return ((h.astype(np.uint64) << np.uint64(32)) | l_.astype(np.uint64)).reshape(shape)
    if bit_width == 32:
        return bits.reshape(shape)
    parts = 32 // bit_width                      # the low bits of each word first
    shifts = (np.arange(parts, dtype=_U32) * _U32(bit_width))
    chunks = (bits[:, None] >> shifts[None, :]) & _U32(np.iinfo(dtype).max)
    return chunks.reshape(-1)[:size].astype(dtype).reshape(shape)


def _split_one(key, shape):
    if _partitionable():
        hi, lo = _iota_2x32(shape)
        return np.stack(threefry2x32(key[0], key[1], hi, lo), axis=-1)
    n = math.prod(shape)
    return _hash_counts(key, np.arange(2 * n, dtype=_U32)).reshape(tuple(shape) + (2,))


def _per_key(keys, f):
    """``f(key)`` for every key of a batch ``(..., 2)``, stacked over the batch shape."""
    batch = keys.shape[:-1]
    flat = keys.reshape(-1, 2)
    outs = [f(k) for k in flat]
    if not outs:
        raise _unsupported("an empty batch of keys")
    return np.stack(outs).reshape(batch + outs[0].shape)


def _unsupported(why):
    from .host_windows import Unsupported
    return Unsupported(why)


def _impl_of(eqn, impl):
    """The PRNG implementation: ``random_seed``'s parameter, else the key's dtype's."""
    if impl is None and eqn.invars:
        impl = getattr(eqn.invars[0].aval.dtype, "_impl", None)
    if impl is None:
        raise _unsupported("a key without its PRNG implementation")
    return impl


# The jaxpr evaluator (``host_jaxpr``, which holds this module's RULES): other PRNG
# implementations run by evaluating their traced functions.  host_jaxpr binds itself here
# rather than this module importing it back.
_JAXPR = None


def bind_evaluator(module):
    global _JAXPR
    _JAXPR = module


def _is_threefry(impl):
    return getattr(impl, "name", None) == "threefry2x32"


@functools.lru_cache(maxsize=256)
def _traced(impl, what, static, avals):
    """A closed jaxpr of one key's ``impl.<what>`` (the PRNG's own JAX function)."""
    fn = getattr(impl, what)
    closed = jax.make_jaxpr(lambda *a: fn(*a, *static))(*avals)
    bad = _JAXPR.unsupported(closed.jaxpr, top=False)
    if bad:
        raise _unsupported(f"{impl} {what}: {bad}")
    return closed


_UNREAD_STATES = set()        # rng_bit_generator state outputs that no equation reads


def mark_unread_states(jaxpr):
    """Note the ``rng_bit_generator`` equations of ``jaxpr`` whose new state nothing reads."""
    read = {v for e in jaxpr.eqns for v in e.invars if type(v).__name__ != "Literal"}
    read.update(v for v in jaxpr.outvars if type(v).__name__ != "Literal")
    for e in jaxpr.eqns:
        if e.primitive.name == "rng_bit_generator" and e.outvars[0] not in read:
            _UNREAD_STATES.add(e.outvars[0])


def _by_impl(eqn, impl, what, keys, *rest, static=(), key_ndim=1):
    """``impl.<what>`` of every key of a batch, by evaluating its traced jaxpr."""
    batch = keys.shape[:keys.ndim - key_ndim]
    flat = keys.reshape((-1,) + keys.shape[len(batch):])
    rest = [np.broadcast_to(np.asarray(r), batch).reshape(-1) for r in rest]
    avals = tuple(jax.ShapeDtypeStruct(a.shape, a.dtype) for a in [flat[0]] + [r[0] for r in rest])
    closed = _traced(impl, what, static, avals)
    outs = [_JAXPR.run_closed(closed, [k] + [r[i] for r in rest])[0]
            for i, k in enumerate(flat)]
    if not outs:
        raise _unsupported("an empty batch of keys")
    return np.stack(outs).reshape(batch + outs[0].shape)


def _random_seed(eqn, seeds, *, impl):
    impl = _impl_of(eqn, impl)
    if _is_threefry(impl):
        return _seed(seeds)
    seeds = np.asarray(seeds)
    flat = seeds.reshape(-1)
    closed = _traced(impl, "seed", (), (jax.ShapeDtypeStruct((), seeds.dtype),))
    outs = [_JAXPR.run_closed(closed, [s])[0] for s in flat]
    return np.stack(outs).reshape(seeds.shape + outs[0].shape)


def _random_bits(eqn, keys, *, bit_width, shape):
    impl = _impl_of(eqn, None)
    if _is_threefry(impl):
        return _per_key(keys, lambda k: _bits_one(k, bit_width, tuple(shape)))
    return _by_impl(eqn, impl, "random_bits", keys, static=(bit_width, tuple(shape)),
                    key_ndim=len(impl.key_shape))


def _random_split(eqn, keys, *, shape):
    impl = _impl_of(eqn, None)
    if _is_threefry(impl):
        return _per_key(keys, lambda k: _split_one(k, tuple(shape)))
    return _by_impl(eqn, impl, "split", keys, static=(tuple(shape),),
                    key_ndim=len(impl.key_shape))


def _random_fold_in(eqn, keys, msgs):
    impl = _impl_of(eqn, None)
    if not _is_threefry(impl):
        return _by_impl(eqn, impl, "fold_in", keys, np.asarray(msgs, _U32),
                        key_ndim=len(impl.key_shape))
    keys, msgs = np.broadcast_arrays(keys, np.asarray(msgs)[..., None])
    msgs = msgs[..., 0]
    data = _seed(msgs.astype(_U32))
    y1, y2 = threefry2x32(keys[..., 0], keys[..., 1], data[..., 0], data[..., 1])
    return np.stack([y1, y2], axis=-1)


def _threefry2x32_rule(eqn, k1, k2, x1, x2):
    return list(threefry2x32(k1, k2, x1, x2))


def _iota_2x32_rule(eqn, *, shape):
    return list(_iota_2x32(tuple(shape)))


BITS_MIN = 1 << 10


@functools.lru_cache(maxsize=64)
def _bit_generator(length, dtype, algorithm):
    return jax.jit(lambda k: lax.rng_bit_generator(k, (length,), dtype=dtype,
                                                   algorithm=algorithm)[1])


def _rng_bit_generator(eqn, key, *, shape, dtype, algorithm, out_sharding=None):
    """XLA's generator, compiled once per bucketed length: a shorter draw is the first
    elements of a longer one.  Its new state (which depends on the length) is refused."""
    state = eqn.outvars[0]
    if type(state).__name__ != "DropVar" and state not in _UNREAD_STATES:
        raise _unsupported("rng_bit_generator's new state")
    n = math.prod(shape)
    length = max(BITS_MIN, 1 << max(n - 1, 0).bit_length())
    bits = np.asarray(_bit_generator(length, np.dtype(dtype), algorithm)(key))
    return [np.asarray(key), bits[:n].reshape(shape)]


def _wrap(eqn, x, *, impl):
    return np.asarray(x, _U32)


RULES = {
    "random_seed": _random_seed, "random_bits": _random_bits, "random_split": _random_split,
    "random_fold_in": _random_fold_in, "random_wrap": _wrap,
    "random_unwrap": lambda eqn, k: np.asarray(k, _U32),
    "threefry2x32": _threefry2x32_rule, "iota_2x32_shape": _iota_2x32_rule,
}
RULES["rng_bit_generator"] = _rng_bit_generator
MULTIPLE = {"threefry2x32", "iota_2x32_shape", "rng_bit_generator"}
