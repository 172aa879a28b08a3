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

The returned dict may hold a float "check" (a checksum of the result, computed after the
final wait) that the runner compares across implementations.
"""
NAMES = ["eager_small_ops", "chained_dot", "out_inplace", "lenet_eager", "resnet18_infer", "lenet_train",
         "mlp_module", "zoo_resnet18_v1", "zoo_mobilenet1_0"]
