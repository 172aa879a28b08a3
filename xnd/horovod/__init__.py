"""``import horovod`` when Horovod itself is not installed: Horovod's MXNet API on JAX.

Horovod (``import horovod.mxnet as hvd``) is how most large MXNet training scripts of
2019-2022 spread one job over many processes. Its collectives here run through
``jax.distributed`` (xnd/frontend/distributed.py: gloo on CPUs, NCCL through XLA on GPUs),
never a protocol of xnd's own. ``python -m xnd launch -n N`` (xnd/launch.py) starts the
processes with both Horovod's and MXNet's launcher variables. A real Horovod on
``sys.path`` always wins: the bootstrap finder comes after Python's own (xnd/compat.py), and
``python -m xnd info`` says which one ``import horovod`` gives.
"""

__version__ = "0.28.1"   # the Horovod API this implements (its last release)
