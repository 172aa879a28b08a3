"""mx.gluon.contrib.data: IntervalSampler and the text data sets."""
from . import text  # noqa: F401
from .sampler import IntervalSampler  # noqa: F401

__all__ = ["IntervalSampler", "text"]
