"""XLA compile options for xnd's own compilations (never the user's JAX code).

jax 0.10's XLA:CPU hands every convolution and dot it can to YNNPACK ("__ynn_fusion").  Its
convolutions lose to XLA's own (Eigen) convolution on 2 cores in training and in xnd's
inference programs (docs/performance.md, per-process A/B runs): with YNNPACK convolutions
off LeNet training ran 1.63x the steps/s and model-zoo MobileNet inference 1.3x the
images/s; ResNet-18 inference was about even.  Turning YNNPACK off for dots as well (Winograd's batched
matmuls and pointwise convolutions are dots) measured worse, so dots keep it.  XLA's
classic fusion code path (fusion emitters off) gave convolution training another
1.06-1.11x, but made inference 0.87-0.92x as fast and the dot-only training step of an MLP
(benchmarks/workloads/mlp_module.py) 5-15% slower, so only programs that may train and
hold a convolution or pooling (``classic_fusion=True``) get it.

``jit(fun, classic_fusion=False, **kw)`` is ``jax.jit`` with ``options(classic_fusion)``
where the default backend is the CPU.  An XLA that does not know an option (an older or newer
jaxlib) refuses the compilation: that program then runs the plain ``jax.jit``, and the process
gives no later program options (``_REFUSED``; a probe compilation at the first ``options()``
call cost 45 ms of every first hybridized forward); a jax whose ``jit`` takes no
``compiler_options`` (0.4.30) gets none.  ``XND_XLA_CPU_OPTIONS=0``
turns them off (for A/B measurements: benchmarks/xla_flags_sweep.py).
"""
import functools
import os

import jax

from .. import _compat_jax
from ..tiers import programs as _programs, table as _tiers
from . import compile_cache, host_callbacks

compile_cache.setup()   # before xnd's first compilation

CPU_OPTIONS = {"xla_cpu_experimental_ynn_fusion_type": "LIBRARY_FUSION_TYPE_INDIVIDUAL_DOT"}
CLASSIC_FUSION_OPTIONS = {"xla_cpu_use_fusion_emitters": False}  # convolution training
ENABLED = os.environ.get("XND_XLA_CPU_OPTIONS", "1") != "0"
QUICK_OPTIONS = {"xla_backend_optimization_level": 0}   # the quick tier (xnd/tiers)


_REFUSED = []   # non-empty once this XLA refused an option: then xnd gives it none


def options(classic_fusion=False):
    """The options for a compilation now: ``CPU_OPTIONS`` (plus ``CLASSIC_FUSION_OPTIONS``
    with ``classic_fusion``) on a CPU default backend, unless this XLA has refused an
    option (``None``)."""
    if not ENABLED or _REFUSED or not _compat_jax.JIT_COMPILER_OPTIONS \
            or jax.default_backend() != "cpu":
        return None   # (jax 0.4.30: jit takes no compiler_options)
    return dict(CPU_OPTIONS, **CLASSIC_FUSION_OPTIONS) if classic_fusion else dict(CPU_OPTIONS)


@host_callbacks.synced   # (programs wait for their results once a Custom op ran)
def jit(fun, classic_fusion=False, kind=_tiers.GRAPH, **kw):
    """``jax.jit(fun, **kw)`` compiled with ``options(classic_fusion)`` when called from Python.  JAX takes
    compile options only for a top-level compilation, so a call from inside another traced
    function (Module's step calls the executor's forward-backward) runs the plain ``jax.jit``
    (whose code then belongs to the caller's compilation and its options).  ``kind`` (an
    ``xnd.tiers`` kind: ``"graph"``, ``"tape"``, ``"step"``, ``"optimizer"``, ``"fit"``) picks
    the row of xnd/tiers' table that decides where each call runs (a host tier, a quickly
    compiled program, the optimized one compiled in the background: ``tiers.Tiered``)."""
    quick, full = tiers(fun, classic_fusion=classic_fusion, quick=_tiers.quick_tier(kind), **kw)
    host = _tiers.host_tier(kind)
    if quick is None and not host:
        return full
    nums = kw.get("static_argnums", ())
    names = kw.get("static_argnames", ())
    return _programs.Tiered(full if quick is None else quick, full,
                            (nums,) if isinstance(nums, int) else nums,
                            (names,) if isinstance(names, str) else names,
                            host=jax.jit(fun, **kw) if host else None, kind=kind,
                            name=getattr(fun, "__name__", None))


def lazy_jit(fun, **kw):
    """``jit(fun, **kw)``, made at the first call: a module-level program must not start
    JAX's backend at import (``options()`` asks for it; a ``dist_sync`` worker joins its job
    before that, frontend/distributed.py)."""
    made = []

    @functools.wraps(fun)
    def call(*args, **kwargs):
        if not made:
            made.append(jit(fun, **kw))
        return made[0](*args, **kwargs)
    call._cache_size = lambda: made[0]._cache_size() if made else 0
    return call


@host_callbacks.synced
def tiers(fun, quick_fun=None, classic_fusion=False, quick=True, quick_options=None, **kw):
    """``(quick, full)``: ``fun`` compiled with ``options(classic_fusion)`` (``full``) and
    ``quick_fun`` (default ``fun``) compiled quickly (``QUICK_OPTIONS``), or ``(None,
    full)`` where there is no quick tier (no options, ``XND_TIERED=0``, or ``quick=False``).
    A ``quick_fun`` is a cheaper program for the same result (inference without Winograd
    convolutions: XLA compiles its transforms' loops slowly and runs them slowly at level 0);
    ``quick_options`` replace ``QUICK_OPTIONS`` for it."""
    plain = jax.jit(fun, **kw)
    opts = options(classic_fusion)
    if opts is None:
        return None, plain
    full = _with_options(fun, plain, opts, kw)
    if not (_tiers.TABLE.tiered and quick):
        return None, full
    qfun = fun if quick_fun is None else quick_fun
    qplain = plain if quick_fun is None else jax.jit(quick_fun, **kw)
    quick_opts = dict(opts, **(QUICK_OPTIONS if quick_options is None else quick_options))
    return _with_options(qfun, qplain, quick_opts, kw), full


def _with_options(fun, plain, opts, kw):
    top = jax.jit(fun, compiler_options=opts, **kw)

    @functools.wraps(fun)
    def call(*args, **kwargs):
        if _REFUSED:   # (programs made before the refusal stop asking, too)
            return plain(*args, **kwargs)
        try:
            return top(*args, **kwargs)
        except Exception as e:  # noqa: BLE001  (jaxlib raises its own runtime error type)
            if isinstance(e, ValueError) and "top-level" in str(e):
                return plain(*args, **kwargs)
            if "compile option" not in str(e):
                raise
            # an XLA that does not know an option (an older or newer jaxlib): this and every
            # later program compile without xnd's options
            _REFUSED.append(str(e))
            return plain(*args, **kwargs)

    call._cache_size = lambda: top._cache_size() + plain._cache_size()
    call.lower = top.lower
    return call


def classic_fusion(ops):
    """Whether a program that may train, made of ``ops`` (registry Ops), gets
    ``CLASSIC_FUSION_OPTIONS``: it holds a convolution or pooling (``Op.convolutional``)."""
    return any(getattr(op, "convolutional", False) for op in ops)
