"""mx.gluon.contrib.nn: Concurrent, HybridConcurrent, Identity, SyncBatchNorm,
SparseEmbedding and the PixelShuffle layers."""
from .basic_layers import (Concurrent, HybridConcurrent, Identity, PixelShuffle1D,  # noqa: F401
                           PixelShuffle2D, PixelShuffle3D, SparseEmbedding, SyncBatchNorm)

__all__ = ["Concurrent", "HybridConcurrent", "Identity", "SparseEmbedding", "SyncBatchNorm",
           "PixelShuffle1D", "PixelShuffle2D", "PixelShuffle3D"]
