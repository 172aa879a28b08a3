"""Names third-party MXNet libraries import that MXNet 1.9.1 never documented (GluonNLP 0.10.0,
GluonTS 0.13.9), and what they give; shared by make_library_names_goldens.py (MXNet 1.9.1) and
test_library_names.py."""
import os

# (module, name) pairs the libraries import at their import time
IMPORTED = [
    ("mxnet.gluon.utils", "_get_repo_url"), ("mxnet.gluon.utils", "_get_repo_file_url"),
    ("mxnet.gluon.data.dataloader", "ForkingPickler"),
    ("mxnet.gluon.data.dataloader", "_as_in_context"),
    ("mxnet.gluon.data.dataloader", "default_mp_batchify_fn"),
    ("mxnet.gluon.data.dataloader", "default_batchify_fn"),
    ("mxnet.metric", "ndarray"), ("mxnet.metric", "numpy"), ("mxnet.metric", "registry"),
    ("mxnet.ndarray.contrib", "adamw_update"), ("mxnet.ndarray.contrib", "mp_adamw_update"),
    ("mxnet.ndarray.contrib", "multi_adamw_update"),
    ("mxnet.ndarray.contrib", "multi_mp_adamw_update"),
    ("mxnet.symbol.contrib", "adamw_update"), ("mxnet.symbol.contrib", "mp_adamw_update"),
]


def run_all(mx):
    """{key: value} for the JSON golden."""
    import importlib
    import io
    import multiprocessing.reduction
    import pickle
    out = {}
    for mod, name in IMPORTED:
        out[f"has {mod}.{name}"] = hasattr(importlib.import_module(mod), name)
    dl = importlib.import_module("mxnet.gluon.data.dataloader")
    out["ForkingPickler is multiprocessing's"] = (
        dl.ForkingPickler is multiprocessing.reduction.ForkingPickler)
    buf = io.BytesIO()  # GluonNLP's worker: a batch pickled with it, read back with pickle
    dl.ForkingPickler(buf, pickle.HIGHEST_PROTOCOL).dump([mx.nd.array([[1, 2], [3, 4]])])
    back = pickle.loads(buf.getvalue())
    out["ForkingPickler round trip"] = [type(back[0]).__name__, back[0].asnumpy().tolist()]
    out["metric.ndarray is mx.nd"] = mx.metric.ndarray is mx.nd
    utils = mx.gluon.utils
    saved = os.environ.pop("MXNET_GLUON_REPO", None)
    try:
        out["repo default"] = [utils._get_repo_url(),
                               utils._get_repo_file_url("gluon/dataset/mnist", "a.gz")]
        for val in ("http://mirror.example/repo", "http://mirror.example/repo/"):
            os.environ["MXNET_GLUON_REPO"] = val
            out["repo " + val] = [utils._get_repo_url(), utils._get_repo_file_url("ns", "f.zip")]
    finally:
        os.environ.pop("MXNET_GLUON_REPO", None)
        if saved is not None:
            os.environ["MXNET_GLUON_REPO"] = saved
    return out
