"""GluonTS 0.13.9's MXNet models on xnd: SimpleFeedForward and DeepAR, the training network's
loss and one Adam step from MXNet's initial weights on a batch made by the library's own
pipeline, against MXNet 1.9.1 (tests/make_thirdparty_goldens.py); then the estimator's own
train() and predict() end to end."""
import numpy as np
import pytest

import mxnet as mx
import golden_files
import thirdparty_cases as C

ESTIMATORS = {"sff": C.sff_estimator, "deepar": C.deepar_estimator}


@pytest.mark.parametrize("name,hybridize", [("sff", True), ("sff", False), ("deepar", False),
                                           ("deepar", True)])
def test_training_network_step(name, hybridize):
    meta, g = golden_files.read("thirdparty", name)
    estimator = ESTIMATORS[name]()
    batch = C.ts_batch(estimator)
    assert sorted(batch) == meta["batch"]
    for k, v in batch.items():  # the library's numpy pipeline gives MXNet's batch
        np.testing.assert_array_equal(v, g["batch/" + k], err_msg=k)
    net, args = C.ts_network(mx, estimator, batch, hybridize)
    C.load_params(mx, net, g)
    out = C.ts_step(mx, net, args)
    for k in ("loss0", "loss"):
        assert out[k].shape == g[k].shape and out[k].dtype == g[k].dtype
        np.testing.assert_allclose(out[k], g[k], rtol=1e-4, atol=1e-5, err_msg=k)
    for k, v in C.params_of(net).items():
        np.testing.assert_allclose(v, g["after/" + k], rtol=1e-4, atol=1e-5, err_msg=k)


@pytest.mark.parametrize("name", ["sff", "deepar"])
def test_estimator_train_and_predict(name):
    from gluonts.model.forecast import SampleForecast
    mx.random.seed(0)
    np.random.seed(0)
    predictor = ESTIMATORS[name](epochs=1).train(C.ts_dataset())
    forecasts = list(predictor.predict(C.ts_dataset()))
    assert len(forecasts) == 5
    for f in forecasts:
        assert isinstance(f, SampleForecast)
        assert f.samples.shape == (10, C.TS_PRED) and f.samples.dtype == np.float32
        assert np.isfinite(f.samples).all()
