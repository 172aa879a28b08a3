"""Where a call of xnd runs: the one owner of tiering decisions (README.md).

``decide(kind, calls, host=, bucket=, ready=)`` answers for every program kind (an eager op,
a backward plan, a graph, a training step, an optimizer update, inference, a fit loop) from
one table of thresholds (``TABLE``, read once from the environment).  ``Tiered`` runs a
compiled program's tiers with the background switch; ``Calls`` counts for callers with
programs of their own; ``pinned()`` keeps every call on the optimized tier.
"""
from . import background, table  # noqa: F401
from .programs import STATS, Calls, Host, Tiered, host_first, pinned  # noqa: F401
from .table import (BACKGROUND, BUCKET, EAGER, FIT, GRAPH, HOST, INFERENCE,  # noqa: F401
                    KINDS, OPTIMIZED, OPTIMIZER, QUICK, STEP, TABLE, TAPE, TIERS, decide,
                    host_budget, host_tier, is_pinned, quick_tier)

if TABLE.log:
    from . import log as _log
    _log.install()
