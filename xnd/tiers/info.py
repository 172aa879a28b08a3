"""What ``python -m xnd info`` says about compilation: the persistent cache and the tier table."""
import os

from . import background
from .table import BACKGROUND, KINDS, TABLE, decide


def cache_entries(path):
    """(entries, bytes) of JAX's persistent compilation cache at ``path`` (its ``*-cache``
    files), or None when it cannot be read."""
    n = size = 0
    if not os.path.exists(path):
        return 0, 0      # (JAX makes the directory at its first write)
    try:
        with os.scandir(path) as it:
            for e in it:
                if e.name.endswith("-cache") and e.is_file():
                    n += 1
                    size += e.stat().st_size
    except OSError:
        return None
    return n, size


def cache_line(path):
    """``path, N entries, S MB`` of a cache directory."""
    got = cache_entries(path)
    if got is None:
        return f"{path} (not readable)"
    n, size = got
    return f"{path}, {n} entries, {size / 2 ** 20:.1f} MB"


def table_lines():
    """The tier table in force, one line per kind, then the variables and the switch."""
    out = ["tiers (calls of one signature: host / bucket / quick, host budget, then):"]
    for kind in KINDS:
        h, b, q, budget, bg = TABLE.row(kind)
        if kind != "eager" and not (TABLE.tiered and TABLE.host):
            h = 0
        if kind != "eager" and not TABLE.tiered:
            q = 0
        after = decide(kind, max(h, b, q) + 1, host=h > 0)       # (the one decision)
        then = "optimized in the background" if after == BACKGROUND else "optimized now"
        out.append(f"  {kind:<10} {h} / {b} / {q}, {budget:g} s, then {then}")
    out.append("  " + " ".join(f"{k}={v}" for k, v in TABLE.variables().items()))
    st = background.stats()
    out.append(f"  background compiles: {st['done']} done, {st['running']} running, "
               f"{st['queued']} queued, {st['failed']} failed")
    return out
