"""The suite runs with the switch to optimized programs counted in calls
(``MXNET_ENFORCE_DETERMINISM=1``, xnd/tiers/README.md): its tests count compilations and
compare tiers' results bit for bit, which a background compile finishing at a time of its
own would make depend on the machine's load.  tests/test_tiers.py turns the background
switch on where it tests it; ``MXNET_ENFORCE_DETERMINISM=0 pytest ...`` runs everything
with it.  Set before any test module imports xnd (which reads the variable once)."""
import os

os.environ.setdefault("MXNET_ENFORCE_DETERMINISM", "1")

# tests/multidevice/ is the multi-device stage's suite (.ci/run): it needs four devices,
# made by an XLA flag that must be set before JAX starts, so the stage runs it on its own
collect_ignore = ["multidevice"]
