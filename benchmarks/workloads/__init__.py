"""One module per workload.  Each exposes:

    run_mx(mx, n)  -> dict   the MXNet-API version (run on xnd and on MXNet 1.9.1)
    run_jax(n)     -> dict   the hand-written jitted JAX twin
    N, N_QUICK               workload size (normal / --quick); optional WARMUP (default n//10)
    METRICS                  {metric name: "lower" | "higher" | "absolute"}: which way is
                             better ("absolute": lower is better, and no ratio is shown)
    metrics(seconds, n, out) turns the child's wall time + the returned dict into METRICS
    GOAL                     human-readable goal
    CHECKS                   machine checks: (metric, against, op, threshold); against is
                             "mxnet"/"jax" (median of per-round xnd/that ratios) or None
                             (median of xnd's own values)

Time-to-first-result workloads (``first_*.py``) set ``FIRST_RESULT = True`` (and ``WARM``,
``IMPLS``): benchmarks/child.py then runs them without warm-up in fresh processes over a
new compilation cache and hands ``metrics`` the cold (and warm) results; see _first.py.

The returned dict may hold a float "check" (a checksum of the result, computed after the
final wait) that the runner compares across implementations.
"""
NAMES = ["eager_small_ops", "chained_dot", "out_inplace", "lenet_eager", "resnet18_infer", "lenet_train",
         "mlp_module", "zoo_resnet18_v1", "zoo_mobilenet1_0", "ssd_infer", "custom_op_train",
         "np_mlp_train",
         # time to first result (FIRST_RESULT: fresh processes, no warm-up; see _first.py)
         "first_resnet18_train", "first_resnet18_hybrid", "first_fit10", "first_broadcast",
         "first_get_model"]
