"""mx.gluon.contrib.data.text: the WikiText-2 and WikiText-103 language-model data sets.

Each sample is ``(data, label)``: `seq_len` token indices and the same sequence shifted by
one, with '<eos>' after every line and a Vocabulary built from the segment's own token
counts (or the one given), as MXNet 1.9.1 builds them. The token files are read from
`root` (``wiki.train.tokens``, ``wiki.valid.tokens``, ``wiki.test.tokens``, or the
unpacked ``wikitext-*-v1.zip`` there); xnd never downloads them (DownloadError names the
missing file)."""
import os
import shutil
import zipfile

import numpy as np

from .....base import data_dir
from ....contrib import text as _text
from ...data.dataset import Dataset
from .... import ndarray as _nd
from ....test_utils import DownloadError
from ....util import _readonly
# names MXNet's module holds by importing them (its users import them from here)
from ...utils import check_sha1, download  # noqa: E402,F401
from .... import ndarray as nd  # noqa: E402,F401

EOS_TOKEN = "<eos>"


class _WikiText(Dataset):
    _archive = None
    _default_dir = None

    def __init__(self, root=None, segment="train", vocab=None, seq_len=35):
        files = {"train": "wiki.train.tokens", "validation": "wiki.valid.tokens",
                 "test": "wiki.test.tokens"}
        if segment not in files:
            raise ValueError(f"segment must be one of {sorted(files)}, got {segment!r}")
        self._root = os.path.expanduser(root or os.path.join(data_dir(), "datasets",
                                                             self._default_dir))
        self._segment, self._seq_len = segment, seq_len
        self._vocab, self._counter = vocab, None
        self._get_data(files[segment])

    vocabulary = _readonly("_vocab")
    frequencies = _readonly("_counter")

    def _locate(self, name):
        path = os.path.join(self._root, name)
        if os.path.exists(path):
            return path
        archive = os.path.join(self._root, self._archive)
        if os.path.exists(archive):  # unpack flat, as MXNet does after its download
            with zipfile.ZipFile(archive) as zf:
                for member in zf.namelist():
                    base = os.path.basename(member)
                    if base:
                        with zf.open(member) as src, open(os.path.join(self._root, base),
                                                          "wb") as dst:
                            shutil.copyfileobj(src, dst)
            if os.path.exists(path):
                return path
        raise DownloadError(f"{type(self).__name__}: {path!r} is not on disk and xnd does not "
                            f"download data sets; put {name} (or {self._archive}) in "
                            f"{self._root!r}")

    def _get_data(self, name):
        with open(self._locate(name), encoding="utf8") as f:
            content = f.read()
        if self._counter is None:
            self._counter = _text.utils.count_tokens_from_str(content)
        if self._vocab is None:
            self._vocab = _text.vocab.Vocabulary(counter=self._counter,
                                                 reserved_tokens=[EOS_TOKEN])
        lines = [line.split() + [EOS_TOKEN] for line in
                 (x.strip() for x in content.splitlines()) if line.split()]
        ids = np.array(self._vocab.to_indices([t for line in lines for t in line if t]),
                       dtype=np.int32)
        data, label = ids[:-1], ids[1:]
        n = len(data) // self._seq_len * self._seq_len
        self._data = _nd.array(data[:n], dtype=np.int32).reshape((-1, self._seq_len))
        self._label = _nd.array(label[:n], dtype=np.int32).reshape((-1, self._seq_len))

    def __getitem__(self, idx):
        return self._data[idx], self._label[idx]

    def __len__(self):
        return len(self._label)


class WikiText2(_WikiText):
    """WikiText-2 (root defaults to $MXNET_HOME/datasets/wikitext-2)."""
    _archive, _default_dir = "wikitext-2-v1.zip", "wikitext-2"


class WikiText103(_WikiText):
    """WikiText-103 (root defaults to $MXNET_HOME/datasets/wikitext-103)."""
    _archive, _default_dir = "wikitext-103-v1.zip", "wikitext-103"
