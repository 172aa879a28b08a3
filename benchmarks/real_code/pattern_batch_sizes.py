"""Pattern 3 of issue 40: a hybridized MLP trained on batches of sizes 32, 17, 5, 9 (a
dataset's last batch is another size), then inference outside ``record`` on four sizes it has
not seen.  A plain MXNet script: runs on MXNet 1.9.1 and on xnd.  Prints one JSON line
(_pattern_timing.Stages.report)."""
import mxnet as mx
from mxnet import gluon

from _pattern_nets import set_params, train_predict_report
from _pattern_timing import Stages

FEATURES, CLASSES = 64, 10
TRAIN_SIZES = (32, 17, 5, 9)
PREDICT_SIZES = (3, 12, 25, 50)
STEADY_SIZES = (32, 32, 32)


def build():
    net = gluon.nn.HybridSequential()
    with net.name_scope():
        net.add(gluon.nn.Dense(128, activation="relu", in_units=FEATURES),
                gluon.nn.Dense(64, activation="relu", in_units=128),
                gluon.nn.Dense(CLASSES, in_units=64))
    net.initialize(mx.init.Zero())
    set_params(net, 11)
    net.hybridize()
    return net


def main():
    train_predict_report(Stages("pattern_batch_sizes"), build(), {"learning_rate": 0.05}, 5,
                         (FEATURES,), CLASSES, TRAIN_SIZES, PREDICT_SIZES, STEADY_SIZES)


if __name__ == "__main__":
    main()
