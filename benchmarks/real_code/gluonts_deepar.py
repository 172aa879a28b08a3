"""GluonTS 0.13 DeepAR (2 LSTM layers of 40 cells), not hybridized (a Python loop over time
steps under autograd.record) or with ``--hybridize``: 2 epochs of 10 batches on 16 synthetic
hourly series, then two prediction passes. One JSON line (_pattern_timing)."""
import sys

from _gluonts_run import CONTEXT, FREQ, PRED, run


def main():
    from gluonts.mx import DeepAREstimator
    hybridize = "--hybridize" in sys.argv[1:]

    def make(trainer):
        trainer.hybridize = hybridize
        return DeepAREstimator(freq=FREQ, prediction_length=PRED, context_length=CONTEXT,
                               batch_size=32, num_parallel_samples=50, trainer=trainer)
    run("gluonts_deepar" + ("_hybrid" if hybridize else ""), make)


if __name__ == "__main__":
    main()
