"""``mx.npx.random``: the random-state switch of the numpy extensions."""
from .. import random as _random


def seed(seed, ctx="all"):
    """Seed xnd's one random state (the one mx.random.seed and np.random.seed seed)."""
    _random.seed(seed, ctx)
