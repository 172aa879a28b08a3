"""xnd: the Apache MXNet 1.x Python API on JAX/XLA. ``import xnd as mx``."""
import logging as _logging
import sys as _sys

from . import _compat_jax  # first: refuses a jax/jaxlib/numpy outside the supported range
from . import engine  # first: MXNET_* variables are read before JAX starts a backend

# scripts that turn on INFO logging (as MXNet examples do) would otherwise see JAX's
# "Unable to initialize backend 'tpu'" on every run
_logging.getLogger("jax._src.xla_bridge").setLevel(_logging.WARNING)
from . import attribute, base, context, name
from .attribute import AttrScope
from .base import MXNetError
from .context import Context, cpu, cpu_pinned, current_context, default_context, gpu, num_gpus
from .frontend import ndarray, random
from .frontend.ndarray import NDArray
from . import autograd, symbol
from .frontend import (callback, gluon, initializer, io, kvstore, lr_scheduler, metric, model,
                       module, optimizer)

from .frontend import util
from .frontend.util import (is_np_array, is_np_shape, np_array, np_shape, set_np_shape,
                            use_np, use_np_array, use_np_shape)
from .frontend import numpy, numpy_extension  # mx.np / mx.npx: the numpy interface
from .frontend import profiler, runtime, test_utils, visualization
test_utils.mx = _sys.modules[__name__]  # `from mxnet.test_utils import *` hands over mx too
from .frontend import monitor, rnn
from .frontend import image, recordio  # image decoding needs Pillow, imported on first use
from .frontend import operator
from .frontend import contrib, library, onnx  # contrib's subpackages import on first use

viz = visualization
img = image
init = initializer
kv = kvstore
mon = monitor
mod = module
nd = ndarray  # the namespace (frontend/ndarray/); the class lives in mx.nd.ndarray (xnd/ndarray.py)
sym = symbol
np = numpy
npx = numpy_extension

__version__ = "1.9.1"  # the MXNet API version xnd implements; scripts compare against it
xnd_version = "0.1.0"

# Importing xnd changes no process-wide state but JAX's 64-bit mode (tests/test_import_state.py).
# XND_GC_FREEZE=1 freezes the objects that exist once xnd is imported (gc.freeze): Python's
# full collections then skip the ~130,000 objects of xnd's, JAX's and numpy's import (one
# collection inside ResNet-18's first training step took 60 ms, a third of it walking
# them), but frozen objects are never collected, the script's own included, so it is the
# application's choice, not the library's (docs/porting.md).
import os as _os

if _os.environ.get("XND_GC_FREEZE") == "1":
    import gc as _gc
    _gc.freeze()
