"""``mx.contrib.io``: ``DataLoaderIter``, a Gluon DataLoader as a Module ``DataIter``."""
from .. import ndarray as nd
from ..io import DataDesc, DataIter

__all__ = ["DataLoaderIter"]


class DataLoaderIter(DataIter):
    """Iterates over `loader`'s ``(data, label)`` batches as DataBatches named `data_name`
    and `label_name`, cast to `dtype`.  The batch size is the first batch's; a shorter last
    batch is padded up to it (``pad`` says by how much; the padding rows are zeros, where
    MXNet leaves them uninitialised)."""

    def __init__(self, loader, data_name="data", label_name="softmax_label", dtype="float32"):
        super().__init__()
        self._loader = loader
        data, label = next(iter(loader))
        self.batch_size = data.shape[0]
        self.dtype = dtype
        self.provide_data = [DataDesc(data_name, data.shape, dtype)]
        self.provide_label = [DataDesc(label_name, label.shape, dtype)]
        self._current_batch = None
        self._iter = None
        self.reset()

    def reset(self):
        self._iter = iter(self._loader)

    def iter_next(self):
        self._current_batch = next(self._iter, None)
        return self._current_batch is not None

    def _padded(self, arr):
        arr = arr.astype(self.dtype)
        n = arr.shape[0]
        if n == self.batch_size:
            return [arr]
        out = nd.zeros((self.batch_size,) + tuple(arr.shape[1:]), dtype=self.dtype)
        out[:n] = arr
        return [out]

    def getdata(self):
        return self._padded(self._current_batch[0])

    def getlabel(self):
        return self._padded(self._current_batch[1])

    def getpad(self):
        return self.batch_size - self._current_batch[0].shape[0]

    def getindex(self):
        return None
