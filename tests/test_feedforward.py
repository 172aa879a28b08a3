"""mx.model.FeedForward against MXNet 1.9.1 goldens (tests/make_feedforward_goldens.py):
training with SGD from fixed weights, predict/score, NumPy input with roll_over and
epoch_size, create/save/load, and MXNet's errors for bad input."""
import json
import os
import pickle
import warnings

import numpy as np
import pytest

import xnd as mx
import make_feedforward_goldens as gen

GOLD = os.path.join(gen.GOLDEN_DIR, "cases")
with open(GOLD + ".json") as f:
    META = json.load(f)
ARRAYS = np.load(GOLD + ".npz")


@pytest.mark.parametrize("name", sorted(gen.CASES))
def test_case_matches_mxnet(name, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        results = gen.CASES[name](mx, str(tmp_path))
    arrays = gen.encode(results)[1]
    results = dict(results)
    assert [n for n, _ in META[name]] == list(results)
    for key, enc in META[name]:
        if enc["t"] == "array":
            want = ARRAYS[name + "/" + key]
            have = arrays[key]
            assert have.shape == want.shape and str(have.dtype) == enc["dtype"], key
            np.testing.assert_allclose(have, want, rtol=1e-5, atol=1e-6, err_msg=key)
        else:
            want, have = enc["value"], results[key]
            if isinstance(want, float):
                assert have == pytest.approx(want, rel=1e-6, abs=1e-7), key
            else:
                assert have == want, key


def _model(**kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return mx.model.FeedForward(gen._net(mx), arg_params=gen._params(mx), **kw)


def test_deprecation_warning_and_defaults():
    with pytest.warns(DeprecationWarning, match="FeedForward has been deprecated"):
        m = mx.model.FeedForward(gen._net(mx))
    assert m.ctx == [mx.cpu()] and m.numpy_batch_size == 128 and m.begin_epoch == 0
    assert isinstance(m.initializer, mx.init.Uniform) and m.initializer.scale == 0.01


def test_duplicate_argument_names_rejected():
    d = mx.sym.Variable("data")
    w = mx.sym.Variable("w")
    net = mx.sym.FullyConnected(d, weight=w, num_hidden=2, no_bias=True, name="a")
    net = mx.sym.FullyConnected(net, weight=mx.sym.Variable("w"), num_hidden=2, no_bias=True,
                                name="b")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(ValueError, match='duplicated argument name "w"'):
            mx.model.FeedForward(net)


def test_allow_extra_params_drops_unknown_names():
    params = gen._params(mx)
    params["unused"] = mx.nd.ones((2,))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        m = mx.model.FeedForward(gen._net(mx), arg_params=params, allow_extra_params=True)
    assert sorted(m.arg_params) == sorted(gen._params(mx))


def test_missing_params_use_initializer_and_pickle(tmp_path):
    x, y = gen._data()
    params = gen._params(mx)
    del params["fc2_bias"], params["fc2_weight"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        m = mx.model.FeedForward(gen._net(mx), num_epoch=1, arg_params=params,
                                 initializer=mx.init.Constant(0.5), learning_rate=0.0)
        m.fit(mx.io.NDArrayIter(x, y, batch_size=4))
    # MXNet 1.9.1: the legacy name-based call gives a bias zeros and a weight Constant's value
    np.testing.assert_array_equal(m.arg_params["fc2_bias"].asnumpy(), np.zeros(3))
    np.testing.assert_array_equal(m.arg_params["fc2_weight"].asnumpy(), np.full((3, 5), 0.5))
    np.testing.assert_array_equal(m.arg_params["fc1_weight"].asnumpy(),
                                  params["fc1_weight"].asnumpy())
    pred = m.predict(x)
    m2 = pickle.loads(pickle.dumps(m))
    assert m2._pred_exec is None
    np.testing.assert_array_equal(m2.predict(x), pred)


def test_fit_without_num_epoch_and_predict_without_params():
    x, y = gen._data()
    with pytest.raises(ValueError, match="num_epoch"):
        _model().fit(x, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        bare = mx.model.FeedForward(gen._net(mx))
    with pytest.raises(ValueError, match="no parameters"):
        bare.predict(x)
