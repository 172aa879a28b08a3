"""`python -m xnd` (also the `xnd` console script).

    python -m xnd                      the demo: train, checkpoint and reload two legacy-style
                                       MXNet scripts (xnd/examples/lenet_module.py, gluon_trainer.py)
    python -m xnd demo [--epochs N]    the same, with N epochs each
    python -m xnd run [--no-numpy-compat] SCRIPT [ARGS]
                                       run an unmodified MXNet script on xnd (numpy 1 aliases
                                       restored where numpy lacks them: xnd/porting/numpy1.py)
    python -m xnd check PATH...        static porting report of the MXNet APIs a code base uses
    python -m xnd coverage [--markdown] [-o FILE]   what xnd implements (docs/coverage.md)
    python -m xnd info                 versions, devices, mx.context.num_gpus(), numpy
                                       compatibility, compilation cache (entries, size),
                                       which mxnet imports, the tier table (xnd/tiers)
    python -m xnd launch -n N CMD...   a multi-process job (MXNet's and Horovod's launcher variables)
    python -m xnd tour                 the tour of MXNet's NDArray (xnd/examples/seed_tour.py)
"""

import os
import runpy
import sys
import time

USAGE = """\
usage: python -m xnd [COMMAND]

commands:
  (none)                 the demo: trains a LeNet-like network on the bundled 8x8 digits with
                         Module.fit, then the same task with a Gluon Trainer loop; each script
                         checkpoints, reloads and checks the reloaded accuracy
  demo [--epochs N]      the same demo, N epochs per script
  run SCRIPT [ARGS...]   run an unmodified MXNet script: `import mxnet` gives xnd;
                         SCRIPT sees sys.argv == [SCRIPT, ARGS...] and __name__ == '__main__';
                         the numpy 1 aliases the installed numpy lacks (np.float, np.int,
                         np.bool, np.object, np.str, np.long, np.unicode, np.asscalar) are
                         restored; `run --no-numpy-compat SCRIPT` (or XND_NUMPY_COMPAT=0) does not
  check [--json] [--unknown] PATH...
                         static porting report: parses (never runs) the .py files and .ipynb
                         notebooks under PATH and sorts every MXNet API they use into
                         supported / unsupported / unknown; exit status 1 if anything is unsupported;
                         also lists numpy-1-only calls (np.float, np.fromstring binary mode, ...)
  coverage [--markdown] [-o FILE]
                         what xnd implements, from its operator registry and module table
                         (docs/coverage.md is `coverage --markdown -o docs/coverage.md`)
  info                   print the versions of xnd, jax, jaxlib, numpy, the JAX devices,
                         mx.context.num_gpus(), the numpy compatibility mode, the persistent
                         compilation cache (directory, entries, size), which package
                         `import mxnet` gives, and the tier table (xnd/tiers/README.md)
  launch -n N [-H HOSTS] [--launcher local|ssh] CMD...
                         start N processes of one job with MXNet's launcher variables
                         (DMLC_*, kvstore='dist_sync') and Horovod's (HOROVOD_*), their output
                         prefixed with the rank; all end when one fails (xnd/launch.py)
  tour                   run the tour of MXNet's NDArray (xnd/examples/seed_tour.py)
  help                   print this message
"""

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "examples")
TOUR = os.path.join(EXAMPLES, "seed_tour.py")
DEMOS = [
    (os.path.join(EXAMPLES, "lenet_module.py"), "a LeNet-like symbol trained with Module.fit"),
    (os.path.join(EXAMPLES, "gluon_trainer.py"), "a HybridSequential network trained with gluon.Trainer"),
]


class _FirstMxnetImport:
    """A meta-path finder for a script run by `run_script`: at the script's first ``import
    mxnet`` it re-reads the MXNET_* variables (a script sets them just before that import, as
    MXNet reads them there, while xnd was imported earlier, to run this command), makes
    ``mxnet`` mean xnd, and steps aside."""

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] == "horovod":   # Horovod's MXNet API, unless one is installed
            from xnd import compat
            return None if compat.installed_horovod() else \
                compat.HorovodFinder().find_spec(name, path, target)
        if name.partition(".")[0] != "mxnet":
            return None
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        from xnd import compat, engine

        engine.configure()
        from xnd.tiers import table   # (MXNET_ENFORCE_DETERMINISM, XND_LOG_COMPILES, ...)
        table.read()
        real = compat.installed_mxnet()
        if real is not None:   # a real MXNet beside xnd: say which one the script gets
            print(f"xnd run: `import mxnet` gives xnd; the MXNet installed at {real} is "
                  "not used", file=sys.stderr)
        compat.alias_mxnet()
        # alias_mxnet() registered `name`; left in sys.modules, the import system would load
        # that module's own spec again (a second run of xnd/__init__.py, without the bound
        # submodules): hand it the alias spec, whose loader returns the module as it is.
        sys.modules.pop(name, None)
        return compat.MxnetFinder().find_spec(name, path, target)


def run_script(path, args=(), numpy_compat=True):
    """Run `path` as ``python path args...`` would, with ``import mxnet`` aliased
    to xnd, and (``numpy_compat``, unless ``XND_NUMPY_COMPAT=0``) the numpy 1 aliases the
    installed numpy lacks restored (xnd/porting/numpy1.py).  Returns 0; SystemExit from the
    script propagates; an uncaught exception prints its traceback (from the script's frame
    on) and returns 1."""
    if not os.path.exists(path):
        print(f"xnd run: can't open file {path!r}: No such file or directory", file=sys.stderr)
        return 2
    from xnd.porting import numpy1
    if numpy_compat and numpy1.enabled():
        numpy1.restore_aliases()
    if sys.modules.get("mxnet") is None:
        sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _FirstMxnetImport)]
        sys.meta_path.insert(0, _FirstMxnetImport())
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


def _exit_code(e):
    code = e.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def demo(args=()):
    """Run the bundled demo scripts one after the other (a failing one does not stop the next);
    returns 0, or the first failure's exit status."""
    args = list(args)
    if args and not (len(args) == 2 and args[0] == "--epochs" and args[1].isdigit()):
        print("usage: python -m xnd demo [--epochs N]", file=sys.stderr)
        return 2
    saved_argv, saved_path = list(sys.argv), list(sys.path)
    failed = 0
    for i, (script, what) in enumerate(DEMOS, start=1):
        print(f"== xnd demo {i}/{len(DEMOS)}: {os.path.basename(script)}: {what} ==", flush=True)
        tic = time.time()
        try:
            status = run_script(script, args)
        except SystemExit as e:
            status = _exit_code(e)
        finally:
            sys.argv, sys.path[:] = saved_argv, saved_path
        sys.stdout.flush()
        if status:
            print(f"xnd demo: {os.path.basename(script)} failed (exit status {status})\n",
                  file=sys.stderr, flush=True)
            failed = failed or status
            continue
        print(f"== {os.path.basename(script)} done in {time.time() - tic:.1f} s ==\n", flush=True)
    return failed


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
    print("devices", ", ".join(f"{d.platform}:{d.id}" + ("" if d.platform == "cpu" else
                                                          f" ({d.device_kind})")
                               for d in jax.devices()))
    print("num_gpus", mx.context.num_gpus())
    from xnd.porting import numpy1
    print("numpy compat", numpy1.mode())
    print("compilation cache", _cache_state())
    print("mxnet", _which_mxnet())
    print("horovod", _which_horovod())
    from xnd.tiers import info as tiers_info
    print("\n".join(tiers_info.table_lines()))
    return 0


def _cache_state():
    """JAX's persistent compilation cache as xnd set it up (or JAX's own setting)."""
    from xnd import _compat_jax
    from xnd.tiers import info as tiers_info
    path = _compat_jax.config_value("jax_compilation_cache_dir")
    if path:
        return f"on, {tiers_info.cache_line(path)}"
    if not _compat_jax.PERSISTENT_CACHE:
        return (f"off (jax {_compat_jax.v_str(_compat_jax.JAX_VERSION)} crashes running "
                "programs loaded from it; xnd turns it on from jax 0.5 on)")
    return "off"


def _which_mxnet():
    """Which package a plain `import mxnet` gives in this interpreter, and why."""
    from xnd import compat
    real = compat.installed_mxnet()
    if real is not None:
        return (f"a real MXNet is installed at {real}: a plain `import mxnet` loads it; "
                "`python -m xnd run` and xnd.compat.alias_mxnet() give xnd")
    how = ("the xnd-mxnet.pth bootstrap" if compat.bootstrap_installed()
           else "`python -m xnd run` or xnd.compat.alias_mxnet() (no xnd-mxnet.pth here)")
    return f"xnd ({os.path.dirname(os.path.abspath(compat.__file__))}), through {how}"


def _which_horovod():
    """Which package a plain `import horovod` gives in this interpreter."""
    from xnd import compat
    real = compat.installed_horovod()
    if real is not None:
        return f"a real Horovod is installed at {real}: `import horovod` loads it"
    if compat.bootstrap_installed():
        return "xnd's Horovod MXNet API on jax.distributed (xnd/horovod), through xnd-mxnet.pth"
    return ("xnd's Horovod MXNet API (xnd/horovod) under `python -m xnd run`; "
            "no xnd-mxnet.pth here")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv:
        return demo()
    cmd, rest = argv[0], argv[1:]
    if cmd == "run":
        compat = True
        if rest and rest[0] == "--no-numpy-compat":
            compat, rest = False, rest[1:]
        if rest:
            return run_script(rest[0], rest[1:], **({} if compat else {"numpy_compat": False}))
    if cmd == "demo":
        return demo(rest)
    if cmd == "launch":
        from xnd import launch
        return launch.main(rest)
    if cmd == "check":
        from xnd.porting import check
        return check.main(rest)
    if cmd == "coverage":
        from xnd.porting import coverage
        return coverage.main(rest)
    if cmd == "info" and not rest:
        return info()
    if cmd == "tour" and not rest:
        return run_script(TOUR)
    if cmd in ("help", "-h", "--help"):
        print(USAGE, end="")
        return 0
    print(USAGE, end="", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
