"""mx.gluon.contrib.nn: Concurrent, HybridConcurrent, Identity, SyncBatchNorm."""
from ...nn.basic_layers import Concurrent, HybridConcurrent, Identity, SyncBatchNorm  # noqa: F401

__all__ = ["Concurrent", "HybridConcurrent", "Identity", "SyncBatchNorm"]
