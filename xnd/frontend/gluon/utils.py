"""mx.gluon.utils: data-parallel splitting, global-norm clipping, file helpers.

Also the small shared helpers of the Gluon package (input/output flattening of
nested lists, hook handles, printing helpers).
"""
import hashlib
import os
import warnings
import weakref
from collections import OrderedDict

import numpy as np

from ... import _nest
from ...base import MXNetError
from ...ndarray import NDArray
# names MXNet's module holds by importing them (its users import them from here)
from ..util import is_np_array, is_np_shape  # noqa: E402,F401
from .. import ndarray  # noqa: E402,F401

__all__ = ["split_data", "split_and_load", "clip_global_norm", "check_sha1", "download",
           "HookHandle", "shape_is_known", "replace_file"]


def _nd():
    from .. import ndarray as nd
    return nd


def split_data(data, num_slice, batch_axis=0, even_split=True):
    """Split ``data`` into ``num_slice`` slices along ``batch_axis`` (a list, even for one)."""
    size = data.shape[batch_axis]
    if even_split and size % num_slice != 0:
        raise ValueError(
            f"data with shape {data.shape} cannot be evenly split into {num_slice} slices along "
            f"axis {batch_axis}. Use a batch size that's multiple of {num_slice} or set "
            f"even_split=False to allow uneven partitioning of data.")
    each, extras = divmod(size, num_slice)
    sizes = [each + 1] * extras + [each] * (num_slice - extras)
    bounds = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
    nd = _nd()
    if batch_axis == 0:
        return [data[int(bounds[i]):int(bounds[i + 1])] for i in range(num_slice)]
    return [nd.slice_axis(data, axis=batch_axis, begin=int(bounds[i]), end=int(bounds[i + 1]))
            for i in range(num_slice)]


def split_and_load(data, ctx_list, batch_axis=0, even_split=True):
    """Split ``data`` along ``batch_axis`` and put slice i on ``ctx_list[i]``."""
    if not isinstance(data, NDArray):
        data = _nd().array(data, ctx=ctx_list[0])
    if len(ctx_list) == 1:
        return [data.as_in_context(ctx_list[0])]
    slices = split_data(data, len(ctx_list), batch_axis, even_split)
    return [s.as_in_context(c) for s, c in zip(slices, ctx_list)]


def clip_global_norm(arrays, max_norm, check_isfinite=True):
    """Scale ``arrays`` in place so that their joint 2-norm is at most ``max_norm``.

    Returns the norm before clipping: a float, or a (1,) NDArray when
    ``check_isfinite`` is False.
    """
    assert len(arrays) > 0
    nd = _nd()
    ctx = arrays[0].context
    # (MXNet: a sparse array's squared norm from its stored values)
    sq = [nd.dot(a.reshape((-1,)), a.reshape((-1,))).as_in_context(ctx) if a.stype == "default"
          else nd.square(nd.norm(a)).reshape((1,)).as_in_context(ctx) for a in arrays]
    total = nd.sqrt(nd.add_n(*sq))
    if check_isfinite and not np.isfinite(total.asscalar()):
        warnings.warn(UserWarning("nan or inf is detected. Clipping results will be undefined."),
                      stacklevel=2)
    scale = max_norm / (total + 1e-8)
    scale = nd.min(nd.concat(scale, nd.ones((1,), ctx=ctx, dtype=scale.dtype), dim=0))
    for a in arrays:
        a *= scale.as_in_context(a.context)
    return total.asscalar() if check_isfinite else total


def check_sha1(filename, sha1_hash):
    """Whether the SHA-1 of ``filename``'s content equals ``sha1_hash`` (a prefix is enough)."""
    sha1 = hashlib.sha1()
    with open(filename, "rb") as f:
        while True:
            chunk = f.read(1 << 20)
            if not chunk:
                break
            sha1.update(chunk)
    digest = sha1.hexdigest()
    n = min(len(digest), len(sha1_hash))
    return digest[:n] == sha1_hash[:n]


def replace_file(src, dst):
    os.replace(src, dst)


def download(url, path=None, overwrite=False, sha1_hash=None, retries=5, verify_ssl=True):
    """Return the local file for ``url``. xnd never uses the network: an existing file at
    ``path`` (or the url's file name in the current directory) is returned, anything else
    is an error that says where to put the file."""
    fname = url.split("/")[-1]
    if path is None:
        target = fname
    else:
        path = os.path.expanduser(path)
        target = os.path.join(path, fname) if os.path.isdir(path) else path
    if os.path.exists(target) and not overwrite and (sha1_hash is None or
                                                      check_sha1(target, sha1_hash)):
        return target
    why = "does not exist" if not os.path.exists(target) else (
        "has a different SHA-1 than expected" if sha1_hash else "would be overwritten")
    raise MXNetError(
        f"download({url!r}): xnd does not download files (no network access). The local file "
        f"{os.path.abspath(target)!r} {why}; fetch it yourself and place it there.")


def _get_repo_url():
    """The base URL of the Gluon dataset and model repository: $MXNET_GLUON_REPO (a '/'
    appended where missing), else MXNet's S3 bucket."""
    repo_url = os.environ.get("MXNET_GLUON_REPO",
                              "https://apache-mxnet.s3-accelerate.dualstack.amazonaws.com/")
    return repo_url if repo_url[-1] == "/" else repo_url + "/"


def _get_repo_file_url(namespace, filename):
    """The URL of ``filename`` under ``namespace`` in the Gluon repository."""
    return f"{_get_repo_url()}{namespace}/{filename}"


def shape_is_known(shape):
    """Whether every dimension of ``shape`` is known (not 0 / -1)."""
    if shape is None or len(shape) == 0:
        return False
    return all(d > 0 for d in shape)


class HookHandle:
    """Removes a forward (pre-)hook: ``handle.detach()`` or ``with handle:``."""

    def __init__(self):
        self._hooks_dict_ref = None
        self._id = None

    def attach(self, hooks_dict, hook):
        assert not self._hooks_dict_ref, "The same handle cannot be attached twice."
        self._id = id(hook)
        hooks_dict[self._id] = hook
        self._hooks_dict_ref = weakref.ref(hooks_dict)

    def detach(self):
        hooks_dict = self._hooks_dict_ref() if self._hooks_dict_ref else None
        if hooks_dict is not None and self._id in hooks_dict:
            del hooks_dict[self._id]

    def __getstate__(self):
        return (self._hooks_dict_ref(), self._id)

    def __setstate__(self, state):
        if state[0] is None:
            self._hooks_dict_ref = weakref.ref(OrderedDict())
        else:
            self._hooks_dict_ref = weakref.ref(state[0])
        self._id = state[1]

    def __enter__(self):
        return self

    def __exit__(self, ptype, value, trace):
        self.detach()


def _indent(s_, num_spaces):
    lines = s_.split("\n")
    if len(lines) == 1:
        return s_
    first = lines.pop(0)
    return "\n".join([first] + [" " * num_spaces + line for line in lines])


def _brief_print_list(lst, limit=7):
    """'a', 'b', ..., 'z': at most ``limit`` names."""
    lst = list(lst)
    if len(lst) > limit:
        return _brief_print_list(lst[:limit // 2], limit) + ", ..., " + \
            _brief_print_list(lst[-limit // 2:], limit)
    return ", ".join(f"'{i}'" for i in lst)


# ---- nested inputs/outputs <-> flat lists (MXNet's _flatten/_regroup formats) ----------------
def _gluon_leaf(x):
    from ...symbol import Symbol
    if isinstance(x, NDArray):
        return [x], 0
    if isinstance(x, Symbol):
        length = len(x.list_outputs())
        return [x], length if length > 1 else 0
    return ([None], -1) if x is None else None


def _flatten(args, inout_str):
    """(flat list, format): NDArray/Symbol -> 0, None -> -1, list/tuple -> [fmt...]."""
    return _nest.flatten(args, _gluon_leaf, lambda x: ValueError(
        f"When hybridized, the {inout_str} of HybridBlock must be (nested) list of Symbol or "
        f"NDArray, but got {x} of type {type(x)}"))


def _none_only(arg):
    if arg is not None:
        raise ValueError("We do not support passing types that are not None when the initial "
                         "HybridBlock has received NoneType and has been hybridized. Received "
                         f"arg = {arg}, fmt = -1.")


def _regroup(args, fmt):
    """Inverse of ``_flatten``: the nested structure."""
    if not isinstance(fmt, int) and not isinstance(args, (list, tuple)):
        raise ValueError("When hybridized, the output of HybridBlock must be (nested) list "
                         f"of Symbol or NDArray, but got {args} of type {type(args)}")
    return _nest.regroup(args, fmt, _none_only)[0]


_MIXED_SYMBOLS = (
    "Found both classic symbol (mx.sym.Symbol) and numpy symbol (mx.sym.np._Symbol) in outputs. "
    "This will prevent you from building a computation graph by grouping them since different "
    "types of symbols are not allowed to be grouped in Gluon to form a computation graph. You "
    "will need to convert them to the same type of symbols, either classic or numpy following "
    "this rule: if you want numpy ndarray output(s) from the computation graph, please convert "
    "all the classic symbols in the list to numpy symbols by calling `as_np_ndarray()` on each "
    "of them; if you want classic ndarray output(s) from the computation graph, please convert "
    "all the numpy symbols in the list to classic symbols by calling `as_nd_ndarray()` on each "
    "of them.")


def _check_same_symbol_type(symbols):
    """Whether a traced block's outputs are numpy-faced Symbols; a mix of the two faces is
    MXNet's TypeError (they cannot be grouped into one graph)."""
    from ..numpy._symbol import _Symbol
    is_np = isinstance(symbols[0], _Symbol)
    if any(isinstance(s, _Symbol) != is_np for s in symbols[1:]):
        raise TypeError(_MIXED_SYMBOLS)
    return is_np


def _check_all_np_ndarrays(out):
    """In numpy mode a Block's outputs must be ``mx.np.ndarray``s.  (Symbols are checked when
    a hybridized block groups them, `_check_same_symbol_type`: xnd's shape inference traces
    blocks on classic Symbols in numpy mode too.)"""
    from ..numpy.multiarray import ndarray
    if isinstance(out, NDArray) and not isinstance(out, ndarray):
        raise TypeError("Block's output ndarrays/symbols must be of type `mxnet.numpy.ndarray` "
                        f"or `mxnet.symbol.numpy._Symbol`, while got output type {type(out)}")
    if isinstance(out, (list, tuple)):
        for o in out:
            _check_all_np_ndarrays(o)
