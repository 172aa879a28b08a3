"""``mx.contrib.text``: vocabularies and pre-trained token embeddings (MXNet 1.9.1's API)."""
from . import embedding, utils, vocab

__all__ = ["embedding", "utils", "vocab"]
