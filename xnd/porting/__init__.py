"""Tools for porting MXNet code to xnd: `check` (a static report of the MXNet APIs a
code base uses, sorted by what xnd supports) and `coverage` (docs/coverage.md,
generated from xnd's operator registry and module table)."""
