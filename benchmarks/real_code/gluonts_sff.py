"""GluonTS 0.13 SimpleFeedForward (hybridized, the library's default): 2 epochs of 10 batches
on 16 synthetic hourly series, then two prediction passes. One JSON line (_pattern_timing)."""
from _gluonts_run import CONTEXT, PRED, run


def main():
    from gluonts.mx import SimpleFeedForwardEstimator
    run("gluonts_sff", lambda trainer: SimpleFeedForwardEstimator(
        prediction_length=PRED, context_length=CONTEXT, num_hidden_dimensions=[40, 40],
        batch_size=32, trainer=trainer))


if __name__ == "__main__":
    main()
