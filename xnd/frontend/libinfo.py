"""``mx.libinfo`` (MXNet's ``mxnet/libinfo.py``): where MXNet's shared library, C headers and
TVM-op config are.  xnd ships none of them (it runs on JAX/XLA), so the search (the
``MXNET_LIBRARY_PATH`` / ``MXNET_INCLUDE_PATH`` / ``MXNET_CONF_PATH`` variables first, as on
MXNet) finds a file only where the user points to one, and otherwise raises MXNet's
RuntimeError listing the places looked at (a build of tools against libmxnet.so cannot
work with xnd)."""
import logging
import os

_HERE = os.path.dirname(os.path.abspath(__file__))


def _from_env(var, check):
    path = os.environ.get(var)
    if not path:
        return None
    if not check(path):
        logging.warning("%s '%s' doesn't exist", var, path)
        return None
    if not os.path.isabs(path):
        logging.warning("%s should be an absolute path, instead of: %s", var, path)
        return None
    return path


def find_lib_path(prefix="libmxnet"):
    """[path of the library `prefix`.so]; RuntimeError when there is none."""
    found = _from_env("MXNET_LIBRARY_PATH", os.path.isfile)
    if found:
        return [found]
    dirs = [p.strip() for p in os.environ.get("LD_LIBRARY_PATH", "").split(":") if p.strip()]
    candidates = [os.path.join(d, prefix + ".so") for d in dirs + [_HERE]]
    paths = [p for p in candidates if os.path.isfile(p)]
    if not paths:
        raise RuntimeError("Cannot find the MXNet library.\nList of candidates:\n" +
                           "\n".join(candidates))
    return paths


def find_include_path():
    """The directory of MXNet's C headers; RuntimeError when there is none."""
    found = _from_env("MXNET_INCLUDE_PATH", os.path.isdir)
    if found:
        return found
    path = os.path.join(_HERE, "include/")
    if os.path.isdir(path):
        return path
    raise RuntimeError(f"Cannot find the MXNet include path in either {path}\n")


def find_conf_path(prefix="tvmop"):
    """[path of the TVM-op config `prefix`.conf]; RuntimeError when there is none."""
    found = _from_env("MXNET_CONF_PATH", os.path.isfile)
    if found:
        return found
    path = os.path.join(_HERE, prefix + ".conf")
    if not os.path.isfile(path):
        raise RuntimeError("Cannot find the TVM op config.\nList of candidates:\n" + path)
    return [path]
