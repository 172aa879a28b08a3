"""The one table of tiering thresholds, and ``decide``: where a call of a program runs.

Everything that picks between numpy, a bucketed kernel, a quickly compiled program and the
optimized one asks ``decide`` with the program's kind and the number of this call among the
calls of its signature (1 for the first).  The thresholds are read from the environment
once, when xnd is imported (``read``); tests change ``TABLE``'s fields in place.
See README.md for why each number is what it is.
"""
import os
import threading

HOST = "host"              # numpy runs the traced jaxpr (lowering/host_jaxpr.py): no compile
BUCKET = "bucket"          # the op's own kernel at a padded power-of-two length (bucket.py)
QUICK = "quick"            # compiled at XLA's backend optimization level 0
OPTIMIZED = "optimized"    # the optimized program (compiled now if it is not ready)
BACKGROUND = "background"  # optimized program due, compiling on a worker: serve cheaply
TIERS = (HOST, BUCKET, QUICK, OPTIMIZED, BACKGROUND)

# program kinds: who calls
EAGER = "eager"            # one operator called on NDArrays (ndarray.py's dispatch)
GRAPH = "graph"            # a bound Symbol's or hybridized block's forward / forward-backward
TAPE = "tape"              # an autograd backward plan (autograd/engine.py)
STEP = "step"              # Module's fused training step (frontend/module/_programs.py)
OPTIMIZER = "optimizer"    # an optimizer's fused update (frontend/optimizer/_base.py)
INFERENCE = "inference"    # hybridized inference's rewritten main program (symbol/rewrite.py)
FIT = "fit"                # Module.fit's compiled run of batches (frontend/module/_fit_scan.py)
KINDS = (EAGER, GRAPH, TAPE, STEP, OPTIMIZER, INFERENCE, FIT)

_FALSE = {"0", "off", "false", "no", ""}


def _flag(environ, name, default):
    v = environ.get(name)
    return default if v is None else v.strip().lower() not in _FALSE


def _num(environ, name, default, kind=float):
    try:
        return kind(environ.get(name, default))
    except ValueError:
        return default


class Table:
    """The thresholds.  ``rows`` gives each kind (host calls, bucket calls, quick calls,
    host time budget in seconds, background switch allowed); the other fields are global."""

    def __init__(self, environ=os.environ):
        self.tiered = _flag(environ, "XND_TIERED", True)           # 0: optimized at once
        self.quick_calls = _num(environ, "XND_TIERED_CALLS", 4, int)
        self.host = self.tiered and _flag(environ, "XND_HOST_TIER", True)
        self.host_max_s = _num(environ, "XND_HOST_TIER_MAX_S", 3.0)
        self.host_infer_max_s = _num(environ, "XND_HOST_TIER_INFER_MAX_S", 0.15)
        self.eager_host_calls = 8     # eager ops: numpy for a combination's first 8 calls
        self.eager_max_s = 0.05       # an eager call estimated longer on numpy compiles
        self.bucket_calls = 2         # elementwise ops and graphs: bucketed for 2 calls
        # MXNet's own variable: the switch to the optimized program after a fixed number of
        # calls, synchronously (results bit-reproducible between runs)
        self.deterministic = _flag(environ, "MXNET_ENFORCE_DETERMINISM", False)
        self.background = not self.deterministic
        self.workers = max(1, _num(environ, "XND_BACKGROUND_WORKERS", 1, int))
        self.exit_wait_s = _num(environ, "XND_BACKGROUND_EXIT_WAIT_S", 30.0)
        self.log = _flag(environ, "XND_LOG_COMPILES", False)

    def row(self, kind):
        """(host calls, bucket calls, quick calls, host seconds, background) of ``kind``."""
        q = self.quick_calls
        if kind == EAGER:   # (background: host-served combinations, host_eval._warm)
            return self.eager_host_calls, self.bucket_calls, 0, self.eager_max_s, True
        if kind == FIT:                  # one call runs a long loop: optimized from the first
            return 0, 0, 0, 0.0, False
        if kind == INFERENCE:   # bucket: a new batch size padded (symbol/rows.py); fold and
            return q, q, q, self.host_infer_max_s, False   # main switch together: synchronously
        if kind in (GRAPH, TAPE, STEP, OPTIMIZER):
            return q, (self.bucket_calls if kind == GRAPH else 0), q, self.host_max_s, True
        raise ValueError(f"xnd.tiers: unknown program kind {kind!r} (one of {KINDS})")

    def rows(self):
        """Every kind's row, for ``python -m xnd info`` and the README."""
        return {k: self.row(k) for k in KINDS}

    def variables(self):
        """The variables that set the table, with the values in force."""
        return {"XND_TIERED": int(self.tiered), "XND_TIERED_CALLS": self.quick_calls,
                "XND_HOST_TIER": int(self.host), "XND_HOST_TIER_MAX_S": self.host_max_s,
                "XND_HOST_TIER_INFER_MAX_S": self.host_infer_max_s,
                "MXNET_ENFORCE_DETERMINISM": int(self.deterministic),
                "XND_BACKGROUND_WORKERS": self.workers,
                "XND_BACKGROUND_EXIT_WAIT_S": self.exit_wait_s,
                "XND_LOG_COMPILES": int(self.log)}


TABLE = Table()
_PIN = threading.local()


def read(environ=os.environ):
    """Read the table again from ``environ`` (xnd reads it once at import; ``python -m xnd
    run`` again at the script's first ``import mxnet``, as MXNet reads its variables then)."""
    TABLE.__init__(environ)
    if TABLE.log:
        from . import log
        log.install()
    return TABLE


def is_pinned():
    return getattr(_PIN, "on", False)


def decide(kind, calls, *, host=False, bucket=False, ready=False):
    """The tier of the ``calls``-th call (1 for the first) of one signature of a program of
    ``kind`` (``KINDS``).  ``host``: numpy can run this signature within the kind's host
    budget (the caller traced it: ``host_budget(kind)``); ``bucket``: it is elementwise and
    may run at a bucketed length; ``ready``: the optimized program of this signature is
    compiled.  Returns one of ``TIERS``:

    * ``HOST`` / ``BUCKET`` / ``QUICK`` while ``calls`` is within the kind's row;
    * then ``OPTIMIZED`` when it is ready, or when the switch is synchronous
      (``MXNET_ENFORCE_DETERMINISM=1``, an eager kernel, a fit loop, inference), and always
      inside ``pinned()``;
    * else ``BACKGROUND``: start (or keep waiting for) the optimized compile on a worker
      thread and serve this call with the tier that served the previous ones.

    The answer depends on ``calls`` and the facts given only, never on time, except through
    ``ready`` (which the deterministic mode never passes)."""
    if getattr(_PIN, "on", False):
        return OPTIMIZED
    n_host, n_bucket, n_quick, _, background = TABLE.row(kind)
    if not TABLE.tiered:                 # XND_TIERED=0: compiled programs optimized at once
        n_quick = 0
    if host and calls <= n_host and (kind == EAGER or TABLE.host):
        return HOST
    if bucket and calls <= n_bucket:
        return BUCKET
    if calls <= n_quick:
        return QUICK
    # the background switch needs a cheap tier to serve meanwhile (XND_TIERED_CALLS=0 has none)
    cheap = n_quick or (host and n_host and (kind == EAGER or TABLE.host))
    if ready or not (background and TABLE.background) or not cheap:
        return OPTIMIZED
    return BACKGROUND


def quick_tier(kind):
    """Whether programs of ``kind`` have a quickly compiled tier (``lowering/xla_options``
    builds one only then)."""
    return TABLE.tiered and TABLE.row(kind)[2] > 0


def host_tier(kind):
    """Whether compiled programs of ``kind`` may run their first calls on the host."""
    return TABLE.host and TABLE.row(kind)[0] > 0


def host_budget(kind):
    """The estimated numpy seconds above which a call of ``kind`` compiles instead."""
    return TABLE.row(kind)[3]
