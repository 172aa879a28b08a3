"""mx.test_utils: the helpers MXNet scripts and test suites import, with MXNet 1.9.1's
signatures, defaults, tolerances and failure messages.

MXNet's module has no ``__all__``: ``from mxnet.test_utils import *`` also hands the
caller ``mx``, ``np``, ``Symbol``, ``array``, ``use_np``, ``environment`` and the
standard modules it imported, and test suites rely on that. This package does the same.
Its parts:

* `_checks`: tolerances, random data, assert_almost_equal and friends, the symbolic
  checks (check_numeric_gradient, check_symbolic_forward/backward), environment;
* `_consistency`: check_consistency, check_speed, compare_optimizer,
  check_gluon_hybridize_consistency, matrix generators;
* `_stats`: verify_generator, chi_square_check and the other generator checks;
* `_data`: download, get_mnist, get_mnist_ubyte, get_cifar10, DummyIter: local files
  only, never the network (a missing file raises DownloadError naming it).

Sparse storage ('row_sparse', 'csr') does not exist in xnd: helpers that would make
sparse arrays raise MXNetError saying so.
"""
import bz2  # noqa: F401  (star-exported, as MXNet's module exports its imports)
import errno  # noqa: F401
import gzip  # noqa: F401
import json  # noqa: F401
import logging  # noqa: F401
import numbers  # noqa: F401
import os
import platform
import struct  # noqa: F401
import sys  # noqa: F401
import time  # noqa: F401
import traceback  # noqa: F401
import zipfile  # noqa: F401
from collections import OrderedDict  # noqa: F401
from contextlib import contextmanager  # noqa: F401

import numpy as np
import numpy.random as rnd  # noqa: F401
import numpy.testing as npt  # noqa: F401

from ...base import MXNetError
from ...context import Context, current_context  # noqa: F401
from ...ndarray import NDArray as _NDArray
from ...symbol import Symbol  # noqa: F401
from ..ndarray import array  # noqa: F401
from ..runtime import Features
from ..util import getenv, setenv, use_np, get_cuda_compute_capability  # noqa: F401
from ._checks import *  # noqa: F401,F403
from ._checks import _check_stype, assert_almost_equal, default_context, random_arrays
from ._checks import (_find_max_violation, _parse_aux_states, _parse_location,  # noqa: F401
                      _sorted_dict, _sorted_items)
from ._consistency import *  # noqa: F401,F403
from ._data import *  # noqa: F401,F403
from ._stats import *  # noqa: F401,F403


def is_cd_run():
    """Whether this runs as part of MXNet's continuous-delivery job (CD_JOB=1)."""
    return os.environ.get("CD_JOB", 0) == "1"


def is_aarch64_run():
    return platform.machine() == "aarch64"


def has_tvm_ops():
    """False: xnd has no TVM-generated operators (XLA compiles every operator). (Features()
    is made here, not at import: it asks JAX for devices, which must wait until a
    distributed worker has joined its job.)"""
    return Features().is_enabled("TVM_OP")


def is_op_runnable():
    """True: every xnd operator runs on every context it supports."""
    return True


from ._sparse import (create_sparse_array, create_sparse_array_zd,  # noqa: E402,F401
                      rand_sparse_ndarray, shuffle_csr_column_indices)


def assert_almost_equal_with_err(a, b, rtol=None, atol=None, etol=None, names=("a", "b"),
                                 equal_nan=False, mismatches=(10, 10)):
    """assert_almost_equal that tolerates a fraction `etol` of mismatching elements."""
    etol = get_etol(etol)  # noqa: F405
    if etol <= 0:
        return assert_almost_equal(a, b, rtol, atol, names, equal_nan, mismatches=mismatches)
    a = a.asnumpy() if isinstance(a, _NDArray) else np.asarray(a)
    b = b.asnumpy() if isinstance(b, _NDArray) else np.asarray(b)
    rtol, atol = get_tols(a, b, rtol, atol)  # noqa: F405
    close = np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    err = 1 - close.sum() / max(a.size, 1)
    if err > etol:
        index, rel = _find_max_violation(a, b, rtol, atol)
        raise AssertionError(
            "Too many mismatches: %f (etol=%f); maximum error %f at %s (%s=%f, %s=%f)"
            % (err, etol, rel, index, names[0], a[index], names[1], b[index]))


del NDArray  # used above; MXNet's test_utils does not export it
