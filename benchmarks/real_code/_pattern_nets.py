"""Deterministic parameters for the Gluon pattern scripts: MXNet's and xnd's random streams
differ (docs/porting.md), so parameters and data come from numpy and the checksums agree."""
import numpy as np


def set_params(net, seed):
    """Every parameter of ``net`` from a numpy stream, in name order (gamma 1, beta and biases
    small, weights scaled by fan-in)."""
    rs = np.random.RandomState(seed)
    for name, p in sorted(net.collect_params().items()):
        shape = p.shape
        if name.endswith(("gamma", "running_var")):
            v = np.ones(shape)
        elif name.endswith(("beta", "bias", "running_mean")):
            v = rs.uniform(-0.05, 0.05, shape) if name.endswith("bias") else np.zeros(shape)
        else:
            fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else shape[0]
            v = rs.uniform(-1.0, 1.0, shape) * np.sqrt(3.0 / fan_in)
        p.set_data(v.astype(np.float32))


def batch(rs, n, shape, classes):
    return (rs.normal(0, 1, (n,) + shape).astype(np.float32),
            rs.randint(0, classes, n).astype(np.float32))
