"""mx.io against MXNet 1.9.1 goldens: NDArrayIter batches, pads and descriptors for
every last_batch_handle (incl. shuffle with numpy's seed), DataDesc/DataBatch,
ResizeIter, PrefetchingIter, CSVIter and MNISTIter on small synthetic files."""
import importlib.util
import os
import struct

import numpy as np
import pytest

import xnd as mx
from xnd.base import MXNetError
from xnd.frontend import io

_spec = importlib.util.spec_from_file_location(
    "toolkit_loader", os.path.join(os.path.dirname(__file__), "goldens", "toolkit", "loader.py"))
L = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(L)
G = L.section("io")


def io_data(kind):
    data = np.arange(20, dtype=np.float32).reshape(10, 2)
    label = np.arange(10, dtype=np.float32) + 100
    if kind == "arr":
        return data, label
    if kind == "dict":
        return {"b": data, "a": data[:, :1] * 10}, {"lab2": label, "lab1": label * 2}
    if kind == "list":
        return [data, data * -1], [label]
    if kind == "nolabel":
        return data, None
    if kind == "nd_int":
        return mx.nd.array(data, dtype="int32"), mx.nd.array(label, dtype="int64")
    if kind == "np_int":
        return data.astype(np.int64), label.astype(np.int32)
    raise KeyError(kind)


def desc_rec(descs):
    return [[d.name, list(d.shape), np.dtype(d.dtype).name, d.layout] if isinstance(d, io.DataDesc)
            else [d[0], list(d[1])] for d in descs]


def check_batch(b, want):
    assert len(b.data) == len(want["data"])
    for got, ref in zip(b.data, want["data"]):
        ref = L.arr(ref)
        assert got.shape == ref.shape and got.dtype == ref.dtype
        np.testing.assert_array_equal(got.asnumpy(), ref)
    if want["label"] is None:
        assert b.label is None
    else:
        assert len(b.label) == len(want["label"])
        for got, ref in zip(b.label, want["label"]):
            ref = L.arr(ref)
            assert got.shape == ref.shape and got.dtype == ref.dtype
            np.testing.assert_array_equal(got.asnumpy(), ref)
    assert b.pad == want["pad"]
    if want["index"] is None:
        assert b.index is None
    else:
        assert np.asarray(b.index).tolist() == want["index"]


def check_epochs(it, epochs):
    for ep, want in enumerate(epochs):
        got = list(it)
        assert len(got) == len(want), "epoch %d: %d batches, MXNet had %d" % (ep, len(got), len(want))
        for b, w in zip(got, want):
            check_batch(b, w)
        it.reset()


@pytest.mark.parametrize("case", sorted(G["ndarrayiter"]))
def test_ndarrayiter(case):
    rec = G["ndarrayiter"][case]
    np.random.seed(11)
    data, label = io_data(rec["kind"])
    it = io.NDArrayIter(data, label, **rec["kwargs"])
    assert desc_rec(it.provide_data) == rec["provide_data"]
    assert desc_rec(it.provide_label) == rec["provide_label"]
    check_epochs(it, rec["epochs"])


def test_protocol():
    data, label = io_data("arr")
    it = io.NDArrayIter(data, label, batch_size=4)
    got = []
    while it.iter_next():
        got.append([it.getdata()[0].asnumpy().tolist(), it.getlabel()[0].asnumpy().tolist(),
                    it.getpad(), it.getindex()])
    assert got == G["protocol"]
    with pytest.raises(StopIteration):
        it.next()


def test_errors():
    with pytest.raises(AssertionError):
        io.NDArrayIter(None)
    with pytest.raises(TypeError) as e:
        io.NDArrayIter({"a": "xyz"})
    assert str(e.value) == G["errors"]["bad_type"]["message"]
    with pytest.raises(ValueError, match="last_batch_handle"):
        io.NDArrayIter(np.zeros((3, 2)), last_batch_handle="keep")


def test_datadesc_databatch():
    want = G["datadesc"]
    d = io.DataDesc("data", (2, 3))
    assert repr(d) == want["repr"]
    assert list(d) == ["data", (2, 3)] and d.name == "data" and d.shape == (2, 3)
    assert np.dtype(d.dtype).name == want["dtype"] and d.layout == want["layout"]
    assert [io.DataDesc.get_batch_axis("NCHW"), io.DataDesc.get_batch_axis("TNC"),
            io.DataDesc.get_batch_axis(None)] == want["batch_axis"]
    assert desc_rec(io.DataDesc.get_list([("a", (1, 2)), ("b", (3,))],
                                         [("a", np.int32), ("b", np.float16)])) == want["get_list"]
    name, shape = d       # unpacks like a tuple, as Module code does
    assert (name, shape) == ("data", (2, 3))
    b = io.DataBatch([mx.nd.zeros((2, 3))], [mx.nd.zeros((2,))])
    assert str(b) == G["databatch_str"]
    with pytest.raises(AssertionError):
        io.DataBatch(mx.nd.zeros((2,)))


def test_resize_iter():
    data, label = io_data("arr")
    check_epochs(io.ResizeIter(io.NDArrayIter(data, label, batch_size=4), 5), G["resize"])
    check_epochs(io.ResizeIter(io.NDArrayIter(data, label, batch_size=4), 2, reset_internal=False),
                 G["resize_noreset"])


def test_prefetching_iter():
    data, label = io_data("arr")
    it = io.PrefetchingIter([io.NDArrayIter(data, label, batch_size=4),
                             io.NDArrayIter(data * 2, label, batch_size=4, data_name="d2",
                                            label_name="l2")])
    assert desc_rec(it.provide_data) == G["prefetch"]["provide_data"]
    assert desc_rec(it.provide_label) == G["prefetch"]["provide_label"]
    assert it.batch_size == 4
    check_epochs(it, G["prefetch"]["epochs"])
    it = io.PrefetchingIter(io.NDArrayIter(data, label, batch_size=4),
                            rename_data=[{"data": "x"}], rename_label=[{"softmax_label": "y"}])
    assert desc_rec(it.provide_data) == G["prefetch_rename"]["provide_data"]
    assert desc_rec(it.provide_label) == G["prefetch_rename"]["provide_label"]


def test_user_dataiter_subclass():
    class Counter(io.DataIter):
        def __init__(self):
            super().__init__(batch_size=2)
            self.i = 0

        def reset(self):
            self.i = 0

        def iter_next(self):
            self.i += 1
            return self.i <= 3

        def getdata(self):
            return [mx.nd.full((2, 1), self.i)]

        def getlabel(self):
            return [mx.nd.zeros((2,))]

        def getpad(self):
            return 0
    it = Counter()
    got = [b.data[0].asnumpy()[0, 0] for b in it]
    assert got == [1, 2, 3]
    it.reset()
    assert next(iter(it)).index is None


# ---- CSV / MNIST ----------------------------------------------------------------------------
def write_csv_mnist(d):
    np.savetxt(os.path.join(d, "d.csv"), np.arange(10).reshape(5, 2), delimiter=",", fmt="%g")
    np.savetxt(os.path.join(d, "d6.csv"), np.arange(12).reshape(4, 3) * 0.5, delimiter=",", fmt="%g")
    np.savetxt(os.path.join(d, "l.csv"), np.arange(5) + 100, delimiter=",", fmt="%g")
    np.savetxt(os.path.join(d, "l2.csv"), np.arange(10).reshape(5, 2) - 3, delimiter=",", fmt="%g")
    n = 7
    imgs = (np.arange(n * 28 * 28) % 251).astype(np.uint8).reshape(n, 28, 28)
    labs = (np.arange(n) * 3 % 10).astype(np.uint8)
    with open(os.path.join(d, "img"), "wb") as f:
        f.write(struct.pack(">iiii", 2051, n, 28, 28))
        f.write(imgs.tobytes())
    with open(os.path.join(d, "lab"), "wb") as f:
        f.write(struct.pack(">ii", 2049, n))
        f.write(labs.tobytes())


CSV_CASES = {
    "round": {"data_csv": "d.csv", "data_shape": (2,), "label_csv": "l.csv", "batch_size": 2},
    "noround": {"data_csv": "d.csv", "data_shape": (2,), "label_csv": "l.csv", "batch_size": 2,
                "round_batch": False},
    "nolabel_3d": {"data_csv": "d.csv", "data_shape": (1, 2), "batch_size": 3},
    "exact": {"data_csv": "d6.csv", "data_shape": (3,), "batch_size": 2},
    "big_batch": {"data_csv": "d.csv", "data_shape": (2,), "batch_size": 7},
    "labshape": {"data_csv": "d.csv", "data_shape": (2,), "label_csv": "l2.csv",
                 "label_shape": (2,), "batch_size": 2},
}


@pytest.mark.parametrize("case", sorted(CSV_CASES))
def test_csviter(case, tmp_path):
    write_csv_mnist(str(tmp_path))
    kw = dict(CSV_CASES[case])
    kw["data_csv"] = str(tmp_path / kw["data_csv"])
    if "label_csv" in kw:
        kw["label_csv"] = str(tmp_path / kw["label_csv"])
    want = G["csv"][case]
    if "error" in want:
        with pytest.raises(MXNetError, match="number of input must be bigger than batch size"):
            list(io.CSVIter(**kw))
        return
    it = io.CSVIter(**kw)
    assert desc_rec(it.provide_data) == want["provide_data"]
    assert desc_rec(it.provide_label) == want["provide_label"]
    check_epochs(it, want["epochs"])


def test_csv_missing(tmp_path):
    with pytest.raises(MXNetError, match="nonexist.csv"):
        io.CSVIter(data_csv=str(tmp_path / "nonexist.csv"), data_shape=(2,), batch_size=2)
    (tmp_path / "bad.csv").write_text("1,2\n3\n")
    with pytest.raises(MXNetError, match="line 2"):
        io.CSVIter(data_csv=str(tmp_path / "bad.csv"), data_shape=(2,), batch_size=1)


@pytest.mark.parametrize("case", ["plain", "flat", "exact"])
def test_mnistiter(case, tmp_path):
    write_csv_mnist(str(tmp_path))
    kw = {"plain": {"batch_size": 3, "shuffle": False},
          "flat": {"batch_size": 3, "shuffle": False, "flat": True},
          "exact": {"batch_size": 7, "shuffle": False}}[case]
    it = io.MNISTIter(image=str(tmp_path / "img"), label=str(tmp_path / "lab"), silent=True, **kw)
    want = G["mnist"][case]
    assert desc_rec(it.provide_data) == want["provide_data"]
    assert desc_rec(it.provide_label) == want["provide_label"]
    check_epochs(it, want["epochs"])


def test_mnist_shuffle_and_errors(tmp_path):
    write_csv_mnist(str(tmp_path))
    it = io.MNISTIter(image=str(tmp_path / "img"), label=str(tmp_path / "lab"), batch_size=2,
                      silent=True)
    labels = sorted(sum([b.label[0].asnumpy().tolist() for b in it], []))
    assert len(labels) == len(G["mnist"]["shuffle_labels_sorted"]) == 6
    assert set(labels) <= set((np.arange(7) * 3 % 10).astype(float).tolist())
    it2 = io.MNISTIter(image=str(tmp_path / "img"), label=str(tmp_path / "lab"), batch_size=2,
                       silent=True)
    assert labels == sorted(sum([b.label[0].asnumpy().tolist() for b in it2], []))  # seeded
    with pytest.raises(MXNetError, match="No such file"):
        io.MNISTIter(image=str(tmp_path / "nonexist"), label=str(tmp_path / "lab"))
    with pytest.raises(MXNetError, match="magic"):
        io.MNISTIter(image=str(tmp_path / "lab"), label=str(tmp_path / "lab"))


def test_unsupported_iterators():
    with pytest.raises(MXNetError, match="RecordIO"):
        io.ImageRecordIter(path_imgrec="x.rec", data_shape=(3, 32, 32), batch_size=2)


def test_ndarrayiter_compiles_once_per_batch_shape():
    """Batches are device slices with a traced start: one kernel per (array, batch size),
    not one per batch."""
    x = np.random.RandomState(0).rand(2000, 13).astype(np.float32)
    it = io.NDArrayIter(x, np.zeros(2000, np.float32), batch_size=100)
    before = io._slice_kernel._cache_size()
    for _ in range(2):
        assert sum(1 for _ in it) == 20
        it.reset()
    assert io._slice_kernel._cache_size() - before <= 2      # data + label
    b = next(iter(it))
    b.data[0][:] = -1           # a batch is a copy (as MXNet's slice_axis): the source is intact
    assert next(iter(io.NDArrayIter(x, batch_size=100))).data[0].asnumpy().min() >= 0
    assert it.data[0][1].asnumpy().min() >= 0


def test_ndarrayiter_labels_longer_than_the_data_give_their_first_rows():
    """MXNet 1.9.1 sizes an NDArrayIter by its first data array: longer label arrays give
    their first rows (MXNet's test_sample_weight_loss scores data[10:] against the first ten
    labels), and a shorter one fails at the batch that reaches past it, naming slice_axis."""
    data = mx.nd.array(np.arange(30, dtype=np.float32).reshape(10, 3))
    it = io.NDArrayIter(data, {"label": mx.nd.arange(20), "w": mx.nd.arange(20) * 2},
                        batch_size=5)
    batches = list(it)
    assert len(batches) == 2 and [b.label[0].shape for b in batches] == [(5,), (5,)]
    np.testing.assert_array_equal(batches[1].label[0].asnumpy(), [5, 6, 7, 8, 9])
    np.testing.assert_array_equal(batches[1].label[1].asnumpy(), [10, 12, 14, 16, 18])
    it = io.NDArrayIter(mx.nd.ones((20, 3)), {"label": mx.nd.arange(10)}, batch_size=10)
    first = next(iter(it))
    np.testing.assert_array_equal(first.label[0].asnumpy(), np.arange(10))
    with pytest.raises(mx.base.MXNetError, match="slice_axis: Invalid end for end=20 as "
                                                 "axis_size is 10"):
        next(it)
