"""Pattern 2 of issue 40's reproducers: twelve training steps of a small hybridized
convolutional net on one batch shape, then two inference batches.  On xnd the first steps run
on cheap tiers and a later one switches to the optimized program (issue 40: one step stalled
1.3 s).  A plain MXNet script: runs on MXNet 1.9.1 and on xnd.  Prints one JSON line
(_pattern_timing.Stages.report)."""
import mxnet as mx
from mxnet import gluon

from _pattern_nets import set_params, train_predict_report
from _pattern_timing import Stages

BATCH, SHAPE, CLASSES = 16, (1, 28, 28), 10
TRAIN_STEPS, PREDICT_STEPS, STEADY_STEPS = 12, 2, 3


def build():
    nn = gluon.nn
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Conv2D(8, 3, padding=1, in_channels=1), nn.BatchNorm(in_channels=8),
                nn.Activation("relu"), nn.MaxPool2D(2),
                nn.Conv2D(16, 3, padding=1, in_channels=8), nn.Activation("relu"),
                nn.MaxPool2D(2), nn.Flatten(), nn.Dense(10, in_units=16 * 7 * 7))
    net.initialize(mx.init.Zero())
    set_params(net, 13)
    net.hybridize()
    return net


def main():
    train_predict_report(Stages("pattern_conv_steps"), build(),
                         {"learning_rate": 0.05, "momentum": 0.9}, 3, SHAPE, CLASSES,
                         (BATCH,) * TRAIN_STEPS, (BATCH,) * PREDICT_STEPS,
                         (BATCH,) * STEADY_STEPS)


if __name__ == "__main__":
    main()
