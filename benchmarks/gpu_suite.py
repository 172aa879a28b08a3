"""The GPU suite: one command for the day an NVIDIA GPU is lent (issue 43).

    python benchmarks/gpu_suite.py [--budget-min 11] [--json FILE] [--docs docs/performance.md]
    python benchmarks/gpu_suite.py --cpu-dry-run --json /tmp/s.json --docs /tmp/perf.md

Sections, each in fresh processes with its own time limit (the whole stays under 12
minutes):
  info        ``python -m xnd info`` (the GPU must be listed);
  consistency forward and backward of the layer operators on gpu(0) against cpu(0);
  tests       the GPU-relevant tests (GPU_TESTS) with the GPU visible;
  workloads   every benchmark workload on gpu(0) against its hand-written JAX twin
              (benchmarks/run.py --impls xnd,jax; MXNet 1.9.1 has no CUDA 12 build, so JAX
              is the anchor), median of per-round xnd/JAX ratios;
  amp         a small conv net trained with ``mx.contrib.amp`` in float16 and bfloat16
              against float32: loss after the last step, relative difference, step time;
  first       time to first result of the first_* workloads on the GPU, cold and warm;
  scaling     with several GPUs: data-parallel ResNet-50 (images/s) and a BERT-base-shaped
              encoder (sequences/s) on 1, 2, 4, ... devices; efficiency = thr(n)/(n*thr(1)),
              goal >= 0.93 (Horovod's published figure for MXNet).
It writes the JSON and replaces the GPU section of docs/performance.md (between the
``gpu-suite`` markers) with the tables. Without a GPU it exits with status 2 and says so;
``--cpu-dry-run`` runs every section at tiny sizes on CPUs (two simulated devices) to check
the suite itself (tests/test_gpu_suite.py), writing only where --json/--docs say.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
GPU_TESTS = ["tests/test_context.py", "tests/test_horovod.py", "tests/test_gluon_train.py",
             "tests/test_sync_batchnorm.py", "tests/test_nn_ops.py"]
FIRST = ["first_resnet18_train", "first_resnet18_hybrid", "first_fit10", "first_broadcast",
         "first_get_model"]
BEGIN, END = "<!-- gpu-suite:begin -->", "<!-- gpu-suite:end -->"
SCALING_GOAL = 0.93


def _py(code, args=(), env=None, timeout=600):
    """Run ``code`` (``sys.argv[1:]`` = args) in a fresh python with the tree's xnd; its last
    JSON line (or an error record)."""
    e = dict(os.environ, **(env or {}))
    e["PYTHONPATH"] = ROOT + os.pathsep + e.get("PYTHONPATH", "")
    try:
        p = subprocess.run([sys.executable, "-c", code] + [str(a) for a in args],
                           capture_output=True, text=True,
                           env=e, cwd=ROOT, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": "timed out after %d s" % timeout}
    for line in reversed(p.stdout.splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    return {"error": "rc=%d: %s" % (p.returncode, (p.stdout + p.stderr)[-1500:])}


CONSISTENCY = r'''
import json, numpy as np, xnd as mx
autograd = mx.autograd
dev = mx.gpu(0) if mx.context.num_gpus() else mx.cpu(0)
rs = np.random.RandomState(0)
cases = {
 "Convolution": (lambda x, w: mx.nd.Convolution(x, w, no_bias=True, kernel=(3, 3), num_filter=8, pad=(1, 1)), [(4, 3, 16, 16), (8, 3, 3, 3)]),
 "FullyConnected": (lambda x, w: mx.nd.FullyConnected(x, w, no_bias=True, num_hidden=16), [(8, 32), (16, 32)]),
 "BatchNorm": (lambda x, g: mx.nd.BatchNorm(x, g, mx.nd.zeros(4, ctx=x.context), mx.nd.zeros(4, ctx=x.context), mx.nd.ones(4, ctx=x.context)), [(4, 4, 6, 6), (4,)]),
 "Pooling": (lambda x: mx.nd.Pooling(x, kernel=(2, 2), stride=(2, 2), pool_type="max"), [(2, 3, 8, 8)]),
 "softmax": (lambda x: mx.nd.softmax(x, axis=-1), [(8, 10)]),
 "LayerNorm": (lambda x, g: mx.nd.LayerNorm(x, g, mx.nd.zeros(16, ctx=x.context)), [(4, 16), (16,)]),
}
out = {}
for name, (f, shapes) in cases.items():
    arrays = [rs.randn(*s).astype("float32") for s in shapes]
    res = []
    for ctx in (mx.cpu(0), dev):
        xs = [mx.nd.array(a, ctx=ctx) for a in arrays]
        for x in xs:
            x.attach_grad()
        with autograd.record(train_mode=True):
            y = f(*xs)
        y.backward(mx.nd.ones(y.shape, ctx=ctx))
        res.append([y.asnumpy()] + [x.grad.asnumpy() for x in xs])
    out[name] = max(float(np.abs(a - b).max() / (np.abs(a).max() + 1e-12)) for a, b in zip(*res))
print(json.dumps({"device": str(dev), "max_rel_diff": out}))
'''

AMP = r'''
import json, sys, time, numpy as np, xnd as mx
autograd, gluon, nn = mx.autograd, mx.gluon, mx.gluon.nn
dtype, steps, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ctx = mx.gpu(0) if mx.context.num_gpus() else mx.cpu(0)
if dtype != "float32":
    from xnd.frontend.contrib import amp
    amp.init(target_dtype=dtype)
mx.random.seed(0)
net = nn.HybridSequential()
net.add(nn.Conv2D(16, 3, padding=1), nn.BatchNorm(), nn.Activation("relu"),
        nn.Conv2D(32, 3, padding=1, strides=2), nn.BatchNorm(), nn.Activation("relu"),
        nn.GlobalAvgPool2D(), nn.Dense(10))
net.initialize(mx.init.Xavier(), ctx=ctx)
net.hybridize()
trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.05, "momentum": 0.9})
if dtype != "float32":
    amp.init_trainer(trainer)
rs = np.random.RandomState(1)
x = mx.nd.array(rs.randn(32, 3, size, size), ctx=ctx)
y = mx.nd.array(rs.randint(0, 10, 32), ctx=ctx)
loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
times = []
for s in range(steps):
    t = time.perf_counter()
    with autograd.record():
        loss = loss_fn(net(x), y).mean()
        if dtype != "float32":
            with amp.scale_loss(loss, trainer) as scaled:
                autograd.backward(scaled)
    if dtype == "float32":
        loss.backward()
    trainer.step(1)
    last = float(loss.asscalar())
    times.append(time.perf_counter() - t)
print(json.dumps({"dtype": dtype, "loss": last, "step_s": sorted(times)[len(times) // 2]}))
'''

SCALING = r'''
import json, sys, time, numpy as np, xnd as mx
autograd, gluon, nn = mx.autograd, mx.gluon, mx.gluon.nn
model, n, batch, steps, small = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] == "1"
kind = "gpu" if mx.context.num_gpus() else "cpu"
ctxs = [mx.Context(kind, i) for i in range(n)]

class Encoder(gluon.HybridBlock):
    """BERT-base-shaped: 12 layers of 768 units, 12 heads (small: 2 x 64, 4 heads)."""
    def __init__(self, layers, units, heads, **kw):
        super().__init__(**kw)
        self.units, self.heads = units, heads
        with self.name_scope():
            self.blocks = nn.HybridSequential()
            for _ in range(layers):
                blk = nn.HybridSequential()
                blk.add(nn.Dense(3 * units, flatten=False), nn.Dense(units, flatten=False),
                        nn.LayerNorm(), nn.Dense(4 * units, flatten=False, activation="relu"),
                        nn.Dense(units, flatten=False), nn.LayerNorm())
                self.blocks.add(blk)
            self.out = nn.Dense(2)
    def hybrid_forward(self, F, x):
        for blk in self.blocks:
            qkv, proj, ln1, ff1, ff2, ln2 = list(blk)
            q, k, v = F.split(qkv(x), num_outputs=3, axis=-1)
            att = F.softmax(F.batch_dot(q, k, transpose_b=True) / (self.units ** 0.5))
            x = ln1(x + proj(F.batch_dot(att, v)))
            x = ln2(x + ff2(ff1(x)))
        return self.out(x.mean(axis=1))

if model == "resnet50":
    vision = mx.gluon.model_zoo.vision
    net = vision.resnet18_v1(classes=10) if small else vision.resnet50_v1()
    shape, classes = ((batch, 3, 32, 32) if small else (batch, 3, 224, 224)), (10 if small else 1000)
else:
    net = Encoder(2, 64, 4) if small else Encoder(12, 768, 12)
    shape, classes = ((batch, 16, 64) if small else (batch, 128, 768)), 2
net.initialize(mx.init.Xavier(), ctx=ctxs)
net.hybridize(static_alloc=True, static_shape=True)
trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.01}, kvstore="device")
loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
rs = np.random.RandomState(0)
xs = [mx.nd.array(rs.randn(*shape), ctx=c) for c in ctxs]
ys = [mx.nd.array(rs.randint(0, classes, batch), ctx=c) for c in ctxs]
def step():
    with autograd.record():
        losses = [loss_fn(net(x), y) for x, y in zip(xs, ys)]
    autograd.backward(losses)
    trainer.step(batch * n)
for _ in range(3):
    step()
mx.nd.waitall()
t = time.perf_counter()
for _ in range(steps):
    step()
mx.nd.waitall()
print(json.dumps({"model": model, "devices": n, "per_s": batch * n * steps / (time.perf_counter() - t)}))
'''


def section_info(dry):
    p = subprocess.run([sys.executable, "-m", "xnd", "info"], capture_output=True, text=True,
                       cwd=ROOT, timeout=120)
    return {"rc": p.returncode, "text": p.stdout.strip()}


def section_tests(dry, timeout):
    tests = GPU_TESTS[:1] if dry else GPU_TESTS
    env = dict(os.environ)
    env.pop("JAX_PLATFORMS", None)
    try:
        p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"] +
                           tests, capture_output=True, text=True, cwd=ROOT, env=env,
                           timeout=timeout)
        tail = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else p.stderr[-300:]
        return {"rc": p.returncode, "summary": tail, "files": tests}
    except subprocess.TimeoutExpired:
        return {"rc": None, "summary": "timed out after %d s" % timeout, "files": tests}


def section_workloads(dry, timeout, names=None):
    raw = os.path.join(os.environ.get("TMPDIR", "/tmp"), "xnd-gpu-suite-%d.json" % os.getpid())
    args = [sys.executable, os.path.join(HERE, "run.py"), "--impls", "xnd,jax", "--json", raw,
            "--repeats", "1" if dry else "3"] + (["--quick"] if dry else [])
    if names:
        args += ["--only", ",".join(names)]
    env = dict(os.environ, XND_BENCH_CONTEXT="cpu" if dry else "gpu")
    try:
        subprocess.run(args, capture_output=True, text=True, cwd=ROOT, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        pass
    if not os.path.exists(raw):
        return {"error": "benchmarks/run.py wrote no results within %d s" % timeout}
    with open(raw) as f:
        rounds = json.load(f)
    os.remove(raw)
    out = {}
    for name, rds in rounds.items():
        metrics = {}
        for rd in rds:
            for impl, res in rd.items():
                for m, v in ((res or {}).get("metrics") or {}).items():
                    if isinstance(v, (int, float)):
                        metrics.setdefault((m, impl), []).append(v)
        row = {}
        for (m, impl), vs in metrics.items():
            row.setdefault(m, {})[impl] = statistics.median(vs)
        for m, v in row.items():
            if v.get("xnd") and v.get("jax"):
                v["xnd/jax"] = statistics.median(
                    rd["xnd"]["metrics"][m] / rd["jax"]["metrics"][m] for rd in rds
                    if rd.get("xnd") and rd.get("jax") and rd["jax"]["metrics"].get(m))
        out[name] = row
    return out


def section_amp(dry, timeout):
    steps, size = (3, 8) if dry else (30, 64)
    res = {d: _py(AMP, (d, steps, size), timeout=timeout)
           for d in ("float32", "float16", "bfloat16")}
    base = res["float32"].get("loss")
    for d in ("float16", "bfloat16"):
        if base is not None and res[d].get("loss") is not None:
            res[d]["rel_diff_vs_fp32"] = abs(res[d]["loss"] - base) / max(abs(base), 1e-12)
    return res


def section_scaling(dry, devices, timeout):
    counts = [n for n in (1, 2, 4, 8) if n <= devices]
    if len(counts) < 2:
        return {"skipped": "one device: scaling needs two or more"}
    out = {}
    for model, batch in (("resnet50", 2 if dry else 32), ("bert", 2 if dry else 8)):
        rows = []
        for n in counts:
            env = {"XLA_FLAGS": "--xla_force_host_platform_device_count=%d" % n} if dry else {}
            rows.append(_py(SCALING, (model, n, batch, 2 if dry else 10, int(dry)), env=env,
                            timeout=timeout))
        one = rows[0].get("per_s")
        for r in rows:
            if one and r.get("per_s"):
                r["efficiency"] = r["per_s"] / (r["devices"] * one)
        out[model] = rows
    return out


def markdown(res):
    lines = ["Measured by `python benchmarks/gpu_suite.py` on %s, %s." % (
        res["device"], res["date"]), ""]
    c = res.get("consistency", {})
    if c.get("max_rel_diff"):
        lines += ["Consistency with cpu(0), max relative difference (forward and gradients): " +
                  ", ".join("%s %.1e" % kv for kv in sorted(c["max_rel_diff"].items())), ""]
    t = res.get("tests", {})
    lines += ["GPU-relevant tests: %s" % t.get("summary", "-"), ""]
    lines += ["| workload | metric | xnd | JAX | xnd/JAX |", "|---|---|---|---|---|"]
    for name, row in sorted(res.get("workloads", {}).items()):
        for m, v in sorted(row.items()):
            lines.append("| %s | %s | %s | %s | %s |" % (name, m, _f(v.get("xnd")),
                                                        _f(v.get("jax")), _f(v.get("xnd/jax"))))
    lines += ["", "| AMP | loss after training | rel. diff vs float32 | step s |", "|---|---|---|---|"]
    for d, r in res.get("amp", {}).items():
        lines.append("| %s | %s | %s | %s |" % (d, _f(r.get("loss")), _f(r.get("rel_diff_vs_fp32")),
                                                _f(r.get("step_s"))))
    sc = res.get("scaling", {})
    if "skipped" in sc:
        lines += ["", "Scaling: %s." % sc["skipped"]]
    else:
        lines += ["", "| model | devices | per s | efficiency (goal >= %.2f) |" % SCALING_GOAL,
                  "|---|---|---|---|"]
        for model, rows in sc.items():
            for r in rows:
                lines.append("| %s | %s | %s | %s |" % (model, r.get("devices", "-"),
                                                         _f(r.get("per_s")),
                                                         _f(r.get("efficiency"))))
    return "\n".join(lines)


def _f(v):
    return "-" if v is None else "%.3g" % v if isinstance(v, float) else str(v)


def write_docs(path, text):
    doc = ""
    if os.path.exists(path):
        with open(path) as f:
            doc = f.read()
    block = "%s\n%s\n%s" % (BEGIN, text, END)
    if BEGIN in doc and END in doc:
        doc = doc[:doc.index(BEGIN)] + block + doc[doc.index(END) + len(END):]
    else:
        doc = doc.rstrip("\n") + "\n\n" + block + "\n"
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(doc)
    os.replace(tmp, path)


def gpu_count():
    r = _py("import json, jax\ntry:\n    n = len(jax.devices('gpu'))\nexcept RuntimeError:\n"
            "    n = 0\nprint(json.dumps({'n': n, 'kind': jax.devices()[0].device_kind}))",
            timeout=120)
    return r.get("n", 0), r.get("kind", "?")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cpu-dry-run", action="store_true")
    ap.add_argument("--json", default=os.path.join(HERE, "gpu_suite.json"))
    ap.add_argument("--docs", default=os.path.join(ROOT, "docs", "performance.md"))
    ap.add_argument("--budget-min", type=float, default=11.0)
    a = ap.parse_args(argv)
    dry = a.cpu_dry_run
    n, kind = (2, "cpu (dry run)") if dry else gpu_count()
    if not n:
        print("gpu_suite: no GPU here (jax.devices('gpu') is empty): this suite runs on a "
              "machine with NVIDIA GPUs and JAX's CUDA wheels (pip install '.[cuda12]'); "
              "--cpu-dry-run checks the suite itself on CPUs", file=sys.stderr)
        return 2
    start, budget = time.monotonic(), a.budget_min * 60

    def left(share):
        return max(30, int(min(share * budget, budget - (time.monotonic() - start))))

    res = {"device": "%d x %s" % (n, kind), "date": time.strftime("%Y-%m-%d")}
    res["info"] = section_info(dry)
    res["consistency"] = _py(CONSISTENCY, timeout=left(0.05))
    res["tests"] = section_tests(dry, left(0.15))
    res["workloads"] = section_workloads(dry, left(0.35), names=["chained_dot", "lenet_train"]
                                         if dry else None)
    res["amp"] = section_amp(dry, left(0.08))
    res["first"] = section_workloads(dry, left(0.12), names=FIRST[:1] if dry else FIRST)
    res["scaling"] = section_scaling(dry, n, left(0.1))
    res["seconds"] = time.monotonic() - start
    with open(a.json, "w") as f:
        json.dump(res, f, indent=1, sort_keys=True)
    write_docs(a.docs, markdown(res))
    print(markdown(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
