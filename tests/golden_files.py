"""Writing golden files (run by the tests/make_*_goldens.py generators on real MXNet 1.9.1):
a sorted, indented JSON file and a byte-reproducible .npz (fixed zip timestamps, sorted
members, no pickled objects), so a regenerated golden only differs where a value does."""
import io
import json
import os
import sys
import zipfile

import numpy as np


def write(json_path, npz_path, meta, arrays):
    os.makedirs(os.path.dirname(json_path), exist_ok=True)
    with open(json_path, "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
        f.write("\n")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for k in sorted(arrays):
            b = io.BytesIO()
            # np.asarray, not np.ascontiguousarray: that one writes a 0-d value as shape (1,)
            np.lib.format.write_array(b, np.asarray(arrays[k], order="C"), allow_pickle=False)
            info = zipfile.ZipInfo(k + ".npy", date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, b.getvalue())
    with open(npz_path, "wb") as f:
        f.write(buf.getvalue())
    print(f"wrote {json_path} and {npz_path} ({len(arrays)} arrays)", file=sys.stderr)


def error(fn, limit=200):
    """[exception class name, message's first `limit` characters] of what fn() raises, or
    None: how generators record an error case (the tests compare both)."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class and message are the golden
        return [type(e).__name__, str(e)[:limit]]
    return None


def write_run_in_tempdir(run, out_dir):
    """A generator's main: run(mx, d) on the real MXNet, with a temporary directory d for the
    files it needs, gives (meta, arrays), written as out_dir/cases.json and cases.npz."""
    import tempfile
    mx = real_mxnet()
    with tempfile.TemporaryDirectory() as d:
        meta, arrays = run(mx, d)
    write(os.path.join(out_dir, "cases.json"), os.path.join(out_dir, "cases.npz"), meta, arrays)


def read(name, stem="cases"):
    """``(meta, arrays)`` of ``goldens/<name>/<stem>.json`` and ``.npz`` (what ``write`` made)."""
    d = os.path.join(os.path.dirname(os.path.abspath(__file__)), "goldens", name)
    with open(os.path.join(d, stem + ".json")) as f:
        meta = json.load(f)
    with np.load(os.path.join(d, stem + ".npz"), allow_pickle=False) as z:
        return meta, dict(z)


def real_mxnet():
    """The real MXNet 1.9.1 a generator runs on (exits with a hint under anything else)."""
    try:
        import mxnet as mx
    except ImportError:  # pragma: no cover
        sys.exit("needs the real MXNet: run it with /work/mxref/bin/python")
    if os.path.basename(os.path.dirname(mx.__file__)) != "mxnet":
        sys.exit("needs the real mxnet 1.9.1, got %r" % mx.__file__)
    return mx


def initializer(mx, ctor):
    """``mx.init.<Name>(<literal args>)`` from a string such as ``"Constant(2.0)"``, without
    eval: the name must be an mx.init class and the arguments Python literals."""
    import ast
    call = ast.parse(ctor, mode="eval").body
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)):
        raise ValueError(f"not an initializer constructor: {ctor!r}")
    cls = getattr(mx.init, call.func.id)
    args = [ast.literal_eval(a) for a in call.args]
    kwargs = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
    return cls(*args, **kwargs)
