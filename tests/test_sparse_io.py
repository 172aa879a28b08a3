"""Sparse input/output against MXNet 1.9.1 goldens (tests/make_sparse_io_goldens.py):
nd.save / nd.load of csr and row_sparse arrays byte for byte, NDArrayIter over csr
arrays, LibSVMIter's batches."""
import os
import re

import numpy as np
import pytest

import mxnet as mx
from xnd import serialization
from xnd.base import MXNetError

from golden_files import read

META, GOLD = read("sparse_io")


def _case_arrays(case):
    info = META["params"][case]
    out = {}
    for a in info["arrays"]:
        key, stype = a["key"], a["stype"]
        p = f"{case}.{key}"
        if stype == "csr":
            x = mx.nd.sparse.csr_matrix((GOLD[p + ".data"], GOLD[p + ".indices"],
                                         GOLD[p + ".indptr"]), shape=tuple(a["shape"]),
                                        dtype=a["dtype"])
        elif stype == "row_sparse":
            x = mx.nd.sparse.row_sparse_array((GOLD[p + ".data"], GOLD[p + ".indices"]),
                                              shape=tuple(a["shape"]), dtype=a["dtype"])
        else:
            x = mx.nd.array(GOLD[p + ".dense"], dtype=a["dtype"])
        out[key] = x
    return out if info["named"] else [out[k] for k in sorted(out)]


@pytest.mark.parametrize("case", sorted(META["params"]))
def test_save_writes_mxnet_bytes(case, tmp_path):
    path = str(tmp_path / "f.params")
    mx.nd.save(path, _case_arrays(case))
    with open(path, "rb") as f:
        assert f.read() == GOLD[f"{case}.params"].tobytes()


@pytest.mark.parametrize("case", sorted(META["params"]))
def test_load_mxnet_file(case, tmp_path):
    path = str(tmp_path / "f.params")
    with open(path, "wb") as f:
        f.write(GOLD[f"{case}.params"].tobytes())
    loaded = mx.nd.load(path)
    info = META["params"][case]
    got = loaded if info["named"] else dict(enumerate(loaded))
    assert [str(k) for k in got] == [str(a["key"]) for a in info["arrays"]]
    for a in info["arrays"]:
        x, p = got[a["key"]], f"{case}.{a['key']}"
        assert x.stype == a["stype"] and x.shape == tuple(a["shape"])
        assert np.dtype(x.dtype) == np.dtype(a["dtype"])
        np.testing.assert_array_equal(x.asnumpy(), GOLD[p + ".dense"])
        if a["stype"] != "default":
            for comp in ("data", "indices") + (("indptr",) if a["stype"] == "csr" else ()):
                got_c = getattr(x, comp).asnumpy()
                assert got_c.dtype == GOLD[f"{p}.{comp}"].dtype
                np.testing.assert_array_equal(got_c, GOLD[f"{p}.{comp}"])
    # and the buffer form, and a second round trip, give the same bytes
    again = mx.nd.load_frombuffer(GOLD[f"{case}.params"].tobytes())
    mx.nd.save(path, again)
    with open(path, "rb") as f:
        assert f.read() == GOLD[f"{case}.params"].tobytes()


def test_plain_loads_densifies_sparse_records():
    """serialization.loads without sparse=True keeps giving dense values (optimizer
    states and pickles use it)."""
    arrs = serialization.loads(GOLD["mixed_dict.params"].tobytes())
    for k in ("a", "b", "c"):
        assert isinstance(arrs[k], np.ndarray)
        np.testing.assert_array_equal(arrs[k], GOLD[f"mixed_dict.{k}.dense"])


def test_np_shape_refuses_sparse(tmp_path):
    path = str(tmp_path / "np.params")
    with mx.np_shape(True):
        with pytest.raises(MXNetError, match="only allow serializing ndarray of default "
                                             "storage type in np shape semantics"):
            mx.nd.save(path, [mx.nd.zeros((2, 2)).tostype("csr")])
    assert not os.path.exists(path)
    assert "only allow serializing ndarray of default storage type" in META["np_shape_error"]


def test_corrupt_sparse_record_raises(tmp_path):
    raw = bytearray(GOLD["csr_f32_list.params"].tobytes())
    raw[-16:-8] = (2 ** 40).to_bytes(8, "little")   # the last column index (before K), out of range
    with pytest.raises(MXNetError, match="column index out of range"):
        mx.nd.load_frombuffer(bytes(raw))
    with pytest.raises(MXNetError, match="truncated"):
        mx.nd.load_frombuffer(bytes(raw[:-11]))
