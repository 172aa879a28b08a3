"""The multi-device stage (.ci/run): these tests need four JAX devices, which CPUs give only
with ``XLA_FLAGS=--xla_force_host_platform_device_count=4`` set before JAX starts. The main
run leaves this folder to the stage (tests/conftest.py); run here without the flag, it
stops with that message instead of passing on one device."""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))


def pytest_configure(config):
    import jax
    if jax.device_count() < 4:
        raise pytest.UsageError(
            "tests/multidevice needs 4 devices, this process has %d: run it as "
            "XLA_FLAGS=--xla_force_host_platform_device_count=4 python -m pytest "
            "tests/multidevice" % jax.device_count())
