"""`python -m xnd` (also the `xnd` console script).

    python -m xnd                      run the bundled tour, xnd/examples/seed_tour.py
    python -m xnd run SCRIPT [ARGS]    run an unmodified MXNet script on xnd
    python -m xnd info                 versions, devices, mx.context.num_gpus()
"""

import os
import runpy
import sys

USAGE = """\
usage: python -m xnd [COMMAND]

commands:
  (none)                 run the bundled tour of MXNet's NDArray (xnd/examples/seed_tour.py)
  run SCRIPT [ARGS...]   run an unmodified MXNet script: `import mxnet` gives xnd;
                         SCRIPT sees sys.argv == [SCRIPT, ARGS...] and __name__ == '__main__'
  info                   print the versions of xnd, jax, jaxlib, numpy, the JAX devices
                         and mx.context.num_gpus()
  help                   print this message
"""

TOUR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "examples", "seed_tour.py")


def run_script(path, args=()):
    """Run `path` as ``python path args...`` would, with ``import mxnet`` aliased
    to xnd.  Returns 0; SystemExit from the script propagates; an uncaught
    exception prints its traceback (from the script's frame on) and returns 1."""
    from xnd.compat import alias_mxnet

    if not os.path.exists(path):
        print(f"xnd run: can't open file {path!r}: No such file or directory", file=sys.stderr)
        return 2
    alias_mxnet()
    sys.argv = [path, *args]
    if not sys.flags.safe_path:  # as python does: the script's directory comes first
        sys.path[0:1] = [os.path.dirname(os.path.realpath(path))]
    try:
        runpy.run_path(path, run_name="__main__")
    except (SystemExit, KeyboardInterrupt):
        raise
    except BaseException as e:
        tb = e.__traceback__
        while tb is not None and (tb.tb_frame.f_code.co_filename == __file__
                                  or tb.tb_frame.f_globals.get("__name__") == "runpy"):
            tb = tb.tb_next  # start at the script's frame, as `python script.py` does
        sys.excepthook(type(e), e.with_traceback(tb), tb)
        return 1
    return 0


def info():
    import importlib.metadata as md

    import jax
    import numpy

    from xnd.compat import alias_mxnet

    mx = alias_mxnet()

    def version(dist, module=None):
        v = getattr(module, "__version__", None)
        if v:
            return v
        try:
            return md.version(dist)
        except md.PackageNotFoundError:
            return "unknown"

    xnd_version = getattr(mx, "xnd_version", None) or version("xnd")
    print("xnd", xnd_version, f"(MXNet API {getattr(mx, '__version__', '?')})")
    print("jax", version("jax", jax))
    print("jaxlib", version("jaxlib"))
    print("numpy", version("numpy", numpy))
    print("python", sys.version.split()[0])
    print("devices", ", ".join(f"{d.platform}:{d.id}" for d in jax.devices()))
    print("num_gpus", mx.context.num_gpus())
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv:
        return run_script(TOUR)
    cmd, rest = argv[0], argv[1:]
    if cmd == "run" and rest:
        return run_script(rest[0], rest[1:])
    if cmd == "info" and not rest:
        return info()
    if cmd in ("help", "-h", "--help"):
        print(USAGE, end="")
        return 0
    print(USAGE, end="", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
