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

import iter_sequences
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


# ---- LibSVMIter ----------------------------------------------------------------------------
@pytest.fixture
def svm_dir(tmp_path):
    for name, text in META["files"].items():
        with open(tmp_path / name, "w", newline="") as f:
            f.write(text)
    return tmp_path


def _make(kwargs, d):
    kw = {k: tuple(v) if isinstance(v, list) else v for k, v in kwargs.items()}
    for k in ("data_libsvm", "label_libsvm"):
        if k in kw:
            kw[k] = str(d / kw[k])
    return mx.io.LibSVMIter(**kw)


def _check_part(prefix, x, stype):
    assert x.stype == stype
    if stype == "csr":
        for comp in ("indptr", "indices", "data"):
            got, want = getattr(x, comp).asnumpy(), GOLD[f"{prefix}.{comp}"]
            assert got.dtype == want.dtype, (prefix, comp)
            np.testing.assert_array_equal(got, want, err_msg=f"{prefix}.{comp}")
    else:
        got = x.asnumpy()
        assert got.dtype == GOLD[prefix + ".dense"].dtype
        np.testing.assert_array_equal(got, GOLD[prefix + ".dense"])


@pytest.mark.parametrize("case", sorted(META["libsvm"]))
def test_libsvm_batches(case, svm_dir):
    info = META["libsvm"][case]
    it = _make(info["kwargs"], svm_dir)
    assert [[d.name, list(d.shape)] for d in it.provide_data] == info["provide_data"]
    assert [[d.name, list(d.shape)] for d in it.provide_label] == info["provide_label"]
    assert it.provide_data[0].dtype == np.float32
    for ep, batches in enumerate(info["epochs"]):
        if ep == len(info["epochs"]) - 1 and info["error"]:
            with pytest.raises(MXNetError, match=re.escape(info["error"].split("Check failed: ")[-1])):
                list(it)
            return
        got = list(it)
        assert len(got) == len(batches), (case, ep)
        for i, (b, want) in enumerate(zip(got, batches)):
            p = f"{case}.{ep}.{i}"
            assert b.pad == want["pad"] and [list(b.data[0].shape), list(b.label[0].shape)] == \
                want["shapes"]
            _check_part(p + ".x", b.data[0], want["data_stype"])
            _check_part(p + ".y", b.label[0], want["label_stype"])
            assert b.index.dtype == np.uint64
            np.testing.assert_array_equal(b.index, GOLD[p + ".index"])
        it.reset()


@pytest.mark.parametrize("case", sorted(META["libsvm_sequences"]))
def test_libsvm_reset_after_read_ahead(case, svm_dir):
    """Where reset() leaves the iterator depends on MXNet's prefetcher read-ahead."""
    info = META["libsvm_sequences"][case]
    assert iter_sequences.replay(_make(info["kwargs"], svm_dir), info["ops"]) == info["indices"]


@pytest.mark.parametrize("case", sorted(META["libsvm_errors"]))
def test_libsvm_errors(case, svm_dir):
    info = META["libsvm_errors"][case]
    msg = info["error"]
    msg = msg.split("Check failed: ")[-1] if "Check failed" in msg else msg.split("MXNetError: ")[-1]
    msg = msg.rstrip(" :")
    with pytest.raises(MXNetError, match=re.escape(msg)):
        for b in _make(info["kwargs"], svm_dir):
            b.data[0].asnumpy()


def test_libsvm_index_beyond_shape(svm_dir):
    """An index >= data_shape raises (MXNet makes an invalid CSR array; docs/porting.md)."""
    with pytest.raises(MXNetError, match="feature index 2 on line 1 is out of range"):
        mx.io.LibSVMIter(data_libsvm=str(svm_dir / "d.t"), data_shape=(2,), batch_size=2)


# ---- NDArrayIter over csr arrays ---------------------------------------------------------
_DNS = np.array([[0, 1, 0], [2, 0, 3], [0, 0, 0], [4, 5, 0], [0, 0, 6]], np.float32)


@pytest.mark.parametrize("handle", ["pad", "roll_over"])
def test_ndarrayiter_csr_needs_discard(handle):
    csr = mx.nd.array(_DNS).tostype("csr")
    for data, label in ((csr, _DNS), (_DNS, csr)):
        with pytest.raises(NotImplementedError, match="only supports ``CSRNDArray`` with "
                                                      "`last_batch_handle` set to `discard`"):
            mx.io.NDArrayIter(data, label, 2, last_batch_handle=handle)


def test_ndarrayiter_csr_batches():
    csr = mx.nd.array(_DNS).tostype("csr")
    it = mx.io.NDArrayIter(csr, csr, 2, last_batch_handle="discard")
    got = list(it)
    assert len(got) == 2
    for i, b in enumerate(got):
        assert b.data[0].stype == "csr" and b.label[0].stype == "csr" and b.pad == 0
        np.testing.assert_array_equal(b.data[0].asnumpy(), _DNS[2 * i:2 * i + 2])
        np.testing.assert_array_equal(b.label[0].asnumpy(), _DNS[2 * i:2 * i + 2])
    np.testing.assert_array_equal(got[1].data[0].indptr.asnumpy(), [0, 0, 2])
    np.testing.assert_array_equal(got[1].data[0].indices.asnumpy(), [0, 1])
    np.testing.assert_array_equal(got[1].data[0].data.asnumpy(), [4, 5])


def test_ndarrayiter_csr_shuffle_gathers_rows():
    csr = mx.nd.array(_DNS).tostype("csr")
    np.random.seed(3)
    it = mx.io.NDArrayIter({"c": csr, "d": _DNS}, np.arange(5), 2, shuffle=True,
                           last_batch_handle="discard")
    np.random.seed(3)
    order = np.arange(5)
    np.random.shuffle(order)        # MXNet shuffles the row index with numpy's generator
    for i, b in enumerate(it):
        rows = order[2 * i:2 * i + 2]
        c, d = b.data
        assert c.stype == "csr"
        c.check_format(True)
        np.testing.assert_array_equal(c.asnumpy(), _DNS[rows])
        np.testing.assert_array_equal(d.asnumpy(), _DNS[rows])
        np.testing.assert_array_equal(b.label[0].asnumpy(), rows)
