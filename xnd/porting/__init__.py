"""Tools for porting MXNet code to xnd: `check` (a static report of the MXNet APIs a
code base uses, sorted by what xnd supports) and `coverage` (docs/coverage.md,
generated from xnd's operator registry and module table).  ``surface_exceptions`` (and
``surface_gaps``, what is left to do) lists the MXNet 1.9.1 names xnd does not provide, each
with its reason: ``check`` reports them, tests/test_surface_inventory.py holds the rest."""
