"""gluon.model_zoo.vision against MXNet 1.9.1: parameter names and shapes of every
architecture (so MXNet's published .params files load), shapes after inference, and the
outputs of a few networks from seeded weights."""
import json
import os

import numpy as np
import pytest

import xnd as mx
from xnd.frontend import initializer
from xnd.frontend.gluon.model_zoo import vision

import make_gluon_goldens as cases

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "goldens", "gluon", "gluon.json")) as _f:
    GOLD = json.load(_f)["zoo"]
NPZ = np.load(os.path.join(HERE, "goldens", "gluon", "gluon.npz"), allow_pickle=False)


@pytest.mark.parametrize("name", cases.ZOO_NAMES)
def test_zoo_parameter_names(name):
    gold = GOLD[name]
    net = vision.get_model(name)
    pre = net.prefix
    assert pre.rstrip("0123456789_") == gold["prefix"].rstrip("0123456789_")
    assert [[k[len(pre):], list(p.shape)] for k, p in net.collect_params().items()] == \
        gold["params"]
    assert sorted(net._collect_params_with_prefix()) == gold["structural"]
    if name in cases.ZOO_INFER:
        net.infer_shape(mx.nd.zeros(cases.ZOO_INFER[name]))
        assert [[k[len(pre):], list(p.shape)] for k, p in net.collect_params().items()] == \
            gold["inferred"]


@pytest.mark.parametrize("name", sorted(cases.ZOO_FORWARD))
def test_zoo_forward(name):
    seed_index = sorted(cases.ZOO_FORWARD).index(name)
    net = vision.get_model(name, classes=10)
    net.initialize(initializer.Zero())  # every value is set below
    net.hybridize()
    x = mx.nd.array(NPZ[f"zoo/{name}/in"])
    net(x)
    params = net._collect_params_with_prefix()
    for k, v in cases.seeded_params(net, 4100 + seed_index).items():
        params[k].set_data(mx.nd.array(v))
    np.testing.assert_allclose(net(x).asnumpy(), NPZ[f"zoo/{name}/out"], rtol=1e-4, atol=1e-4)
