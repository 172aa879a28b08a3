"""mx.gluon.contrib.data.sampler: IntervalSampler."""
from ...data.sampler import Sampler


class IntervalSampler(Sampler):
    """Indices 0..length-1 taken `interval` apart: 0, k, 2k, ..., then (with `rollover`)
    1, 1+k, ... until every index was visited once; without rollover only the first pass."""

    def __init__(self, length, interval, rollover=True):
        assert interval <= length, \
            f"Interval {interval} must be smaller than or equal to length {length}"
        self._length, self._interval, self._rollover = length, interval, rollover

    def __iter__(self):
        for start in range(self._interval if self._rollover else 1):
            yield from range(start, self._length, self._interval)

    def __len__(self):
        return self._length
