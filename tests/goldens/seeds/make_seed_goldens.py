"""Regenerate the seed goldens with real MXNet 1.9.1.

    /work/mxref/bin/python tests/goldens/seeds/make_seed_goldens.py

Runs every snippet script ``<name>.py`` next to this file, and the bundled
tour ``xnd/examples/seed_tour.py``, under the interpreter that runs this file
(which must import the real mxnet 1.9.1), and writes the captured stdout to
``<name>.out`` (the tour's to ``seed_tour.out``).

A script whose header says ``golden: by hand`` uses something MXNet 1.9.1 does
not have (an xnd extension) or a GPU the reference build lacks: its ``.out`` is
written by hand and never overwritten here; this script only reports how MXNet
1.9.1 fails on it.
"""

import glob
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
TOUR = os.path.join(ROOT, "xnd", "examples", "seed_tour.py")
BY_HAND = "golden: by hand"


def by_hand(path):
    with open(path, encoding="utf-8") as f:
        return BY_HAND in f.read(2000)


def run(path):
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONIOENCODING="utf-8")
    return subprocess.run([sys.executable, path], cwd=os.path.dirname(path), env=env,
                          capture_output=True, text=True, encoding="utf-8", timeout=600)


def main():
    probe = subprocess.run([sys.executable, "-c", "import mxnet; print(mxnet.__version__)"],
                           capture_output=True, text=True)
    if probe.stdout.strip() != "1.9.1":
        sys.exit(f"{sys.executable} must import the real mxnet 1.9.1 "
                 f"(got {probe.stdout.strip() or probe.stderr.strip()[-300:]!r})")
    scripts = sorted(p for p in glob.glob(os.path.join(HERE, "*.py"))
                     if os.path.abspath(p) != os.path.abspath(__file__))
    failed = []
    for path in scripts + [TOUR]:
        name = os.path.splitext(os.path.basename(path))[0]
        res = run(path)
        if by_hand(path):
            last = (res.stderr.strip().splitlines() or ["(no error)"])[-1]
            print(f"{name}: by hand (MXNet 1.9.1: exit {res.returncode}, {last})")
            continue
        if res.returncode != 0:
            failed.append(name)
            print(f"{name}: FAILED under MXNet 1.9.1 (exit {res.returncode})\n{res.stderr}")
            continue
        with open(os.path.join(HERE, name + ".out"), "w", encoding="utf-8", newline="\n") as f:
            f.write(res.stdout)
        print(f"{name}: wrote {name}.out ({len(res.stdout.splitlines())} lines)")
    if failed:
        sys.exit(f"failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()
