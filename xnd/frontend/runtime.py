"""mx.runtime: which features this build has, answered for xnd on JAX.

MXNet lists the compile-time features of its native library. xnd has no
native library of its own, so each feature is answered for what xnd actually
does on this machine:

* CUDA, CUDNN, NCCL: JAX sees a GPU (XLA's GPU backend uses cuDNN and NCCL);
* CPU_SSE ... CPU_AVX2, F16C, SSE: the host CPU has the instruction set
  (XLA compiles for the host it runs on), read from /proc/cpuinfo where there is one;
* LAPACK: True (jaxlib's linear algebra kernels); INT64_TENSOR_SIZE: True
  (xnd runs JAX in 64-bit mode); PROFILER: True (mx.profiler traces with
  JAX's profiler); DIST_KVSTORE: True (kvstore 'dist_*' over jax.distributed);
* everything MXNet-specific that xnd does not have is False: CUDA_RTC,
  TENSORRT, OPENMP, JEMALLOC, the BLAS_* libraries (XLA uses its own
  kernels), MKLDNN, OPENCV, CAFFE, CXX14,
  SIGNAL_HANDLER, DEBUG, TVM_OP.
"""
import collections
import functools

from .util import _readonly
# names MXNet's module holds by importing them (its users import them from here)
from ..base import check_call  # noqa: E402,F401

__all__ = ["Feature", "feature_list", "Features"]

# MXNet 1.9.1's features, in its order (libinfo.h).
FEATURE_NAMES = (
    "CUDA", "CUDNN", "NCCL", "CUDA_RTC", "TENSORRT", "CPU_SSE", "CPU_SSE2", "CPU_SSE3",
    "CPU_SSE4_1", "CPU_SSE4_2", "CPU_SSE4A", "CPU_AVX", "CPU_AVX2", "OPENMP", "SSE", "F16C",
    "JEMALLOC", "BLAS_OPEN", "BLAS_ATLAS", "BLAS_MKL", "BLAS_APPLE", "LAPACK", "MKLDNN",
    "OPENCV", "CAFFE", "PROFILER", "DIST_KVSTORE", "CXX14", "INT64_TENSOR_SIZE",
    "SIGNAL_HANDLER", "DEBUG", "TVM_OP",
)

# feature -> the /proc/cpuinfo flag that says the CPU has it
_CPU_FLAGS = {"CPU_SSE": "sse", "CPU_SSE2": "sse2", "CPU_SSE3": "pni", "CPU_SSE4_1": "sse4_1",
              "CPU_SSE4_2": "sse4_2", "CPU_SSE4A": "sse4a", "CPU_AVX": "avx", "CPU_AVX2": "avx2",
              "SSE": "sse", "F16C": "f16c"}
_ALWAYS = {"LAPACK", "INT64_TENSOR_SIZE", "PROFILER", "DIST_KVSTORE"}


class Feature:
    """A feature: `name` and `enabled`; repr '✔ NAME' or '✖ NAME' as in MXNet."""

    __slots__ = ("_name", "_enabled")

    def __init__(self, name, enabled):
        self._name, self._enabled = name, bool(enabled)

    name = _readonly("_name", "Feature name.")
    enabled = _readonly("_enabled", "True if this xnd, on this machine, has the feature.")

    def __repr__(self):
        return ("✔ {}" if self.enabled else "✖ {}").format(self.name)


@functools.lru_cache(maxsize=None)
def _cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return frozenset(line.split(":", 1)[1].split())
    except OSError:
        pass
    return frozenset()


def _has_gpu():
    try:
        import jax

        return len(jax.devices("gpu")) > 0
    except RuntimeError:
        return False


def feature_list():
    """The list of `Feature` objects, in MXNet's order."""
    gpu = _has_gpu()
    flags = _cpu_flags()
    out = []
    for name in FEATURE_NAMES:
        if name in ("CUDA", "CUDNN", "NCCL"):
            enabled = gpu
        elif name in _CPU_FLAGS:
            enabled = _CPU_FLAGS[name] in flags
        else:
            enabled = name in _ALWAYS
        out.append(Feature(name, enabled))
    return out


class Features(collections.OrderedDict):
    """OrderedDict of name to Feature (one instance per process, as in MXNet)."""

    instance = None

    def __new__(cls):
        if cls.instance is None:
            cls.instance = super().__new__(cls)
            super(Features, cls.instance).__init__([(f.name, f) for f in feature_list()])
        return cls.instance

    def __init__(self):  # filled once in __new__; OrderedDict.__init__ must not clear it
        pass

    def __repr__(self):
        return str(list(self.values()))

    def is_enabled(self, feature_name):
        """Whether the feature (by name, e.g. 'CUDA') is enabled; RuntimeError if unknown."""
        feature_name = feature_name.upper()
        if feature_name not in self:
            raise RuntimeError("Feature '{}' is unknown, known features are: {}".format(
                feature_name, list(self.keys())))
        return self[feature_name].enabled
