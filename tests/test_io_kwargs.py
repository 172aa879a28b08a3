"""The keyword arguments of MNISTIter and CSVIter against MXNet 1.9.1 goldens
(tests/make_io_kwargs_goldens.py), on locally written MNIST idx and CSV files: string
values, MXNet's num_parts split, undeclared keywords without effect, and MXNetError naming
a declared keyword whose value is bad."""
import json

import pytest

import xnd as mx
import make_io_kwargs_goldens as gen
from xnd.base import MXNetError

with open(gen.GOLDEN) as f:
    GOLD = json.load(f)
CASES = [("mnist", k) for k in gen.MNIST] + [("csv", k) for k in gen.CSV]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = str(tmp_path_factory.mktemp("iofiles"))
    gen.write_files(d)
    return d


@pytest.mark.parametrize("kind,name", CASES)
def test_iterator_keywords_match_mxnet(kind, name, files):
    kwargs, must = (gen.MNIST if kind == "mnist" else gen.CSV)[name]
    want = GOLD["%s/%s" % (kind, name)]
    if must is not None:
        with pytest.raises(MXNetError) as err:
            gen.build(mx, kind, files, kwargs)
        assert must in str(err.value)
        return
    got = gen.run(mx, kind, files, kwargs)
    assert got == want


def test_every_mnist_parameter_of_mxnet_is_accepted(files):
    # MNISTParam + PrefetcherParam of MXNet 1.9.1's src/io/iter_mnist.cc
    it = mx.io.MNISTIter(image=files + "/img", label=files + "/lab", batch_size=5,
                         shuffle=True, flat=True, seed=2, silent=True, num_parts=1,
                         part_index=0, prefetch_buffer=1, ctx="cpu", dtype="float32")
    labels = sorted(sum([b.label[0].asnumpy().tolist() for b in it], []))
    assert labels == [float(i) for i in range(10)]
    assert it.provide_data[0].shape == (5, 784)
