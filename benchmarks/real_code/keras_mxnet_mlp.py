"""keras-mxnet 2.2.4.3 (Keras with its MXNet backend): an MLP ``fit`` for 2 epochs (the
``train`` stage, one call per epoch), then ``predict`` on four batch sizes (one call each).
One JSON line (_pattern_timing).

keras-mxnet predates Python 3.10, where ``collections.Iterable`` and friends moved to
``collections.abc`` only: they are restored here before ``import keras``, on both engines."""
import collections
import collections.abc
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
warnings.filterwarnings("ignore")
os.environ["KERAS_BACKEND"] = "mxnet"
for _name in ("Iterable", "Mapping", "MutableMapping", "Sequence", "Callable"):
    setattr(collections, _name, getattr(collections.abc, _name))

from _pattern_timing import Stages  # noqa: E402

FEATURES, CLASSES, SAMPLES = 20, 5, 512


def main():
    import keras
    from keras.layers import Dense
    from keras.models import Sequential
    st = Stages("keras_mxnet_mlp")
    rs = np.random.RandomState(0)
    x = rs.normal(size=(SAMPLES, FEATURES)).astype(np.float32)
    y = keras.utils.to_categorical(rs.randint(0, CLASSES, SAMPLES), CLASSES)
    model = Sequential([Dense(64, activation="relu", input_shape=(FEATURES,)),
                        Dense(64, activation="relu"),
                        Dense(CLASSES, activation="softmax")])
    weights = [rs.uniform(-0.2, 0.2, w.shape).astype(np.float32) for w in model.get_weights()]
    model.set_weights(weights)
    model.compile(optimizer=keras.optimizers.SGD(lr=0.05), loss="categorical_crossentropy")
    steady = []
    for _ in range(2):
        with st.call("train") as c:
            model.fit(x, y, batch_size=32, epochs=1, verbose=0, shuffle=False)
        steady.append(c.cpu_s)
    checksum = 0.0
    for n in (7, 32, 100, 512):
        with st.call("predict"):
            checksum += float(model.predict(x[:n], batch_size=32).sum())
    checksum += float(sum(w.sum() for w in model.get_weights()))
    st.report(checksum, steady[1:])


if __name__ == "__main__":
    main()
