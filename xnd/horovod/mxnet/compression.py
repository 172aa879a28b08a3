"""Gradient compression for the allreduce, as horovod.mxnet's ``Compression``."""
import abc

import numpy as np


class Compressor(abc.ABC):
    """Interface: ``compress(tensor) -> (tensor, ctx)``; ``decompress(tensor, ctx)``."""

    @staticmethod
    @abc.abstractmethod
    def compress(tensor):
        """The tensor to send and what ``decompress`` needs to restore it."""

    @staticmethod
    @abc.abstractmethod
    def decompress(tensor, ctx):
        """The received tensor restored."""


class NoneCompressor(Compressor):
    """No compression."""

    @staticmethod
    def compress(tensor):
        return tensor, None

    @staticmethod
    def decompress(tensor, ctx):
        return tensor


class FP16Compressor(Compressor):
    """Floating-point tensors travel as float16 and come back in their own dtype."""

    @staticmethod
    def compress(tensor):
        if np.issubdtype(np.dtype(tensor.dtype), np.floating) and tensor.dtype != np.float16:
            return tensor.astype(np.float16, copy=False), tensor.dtype
        return tensor, None

    @staticmethod
    def decompress(tensor, ctx):
        return tensor if ctx is None else tensor.astype(ctx, copy=False)


class Compression:
    """The compression algorithms: ``Compression.none``, ``Compression.fp16``."""
    none = NoneCompressor
    fp16 = FP16Compressor
