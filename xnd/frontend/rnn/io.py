"""mx.rnn.io: ``encode_sentences`` and ``BucketSentenceIter`` (MXNet 1.9.1's behaviour).

``encode_sentences`` numbers new words from ``start_label`` in order of appearance, skipping
``invalid_label`` (the vocabulary starts as ``{invalid_key: invalid_label}``); with a given
vocabulary an unknown word is an AssertionError unless ``unknown_token`` names its code.
``BucketSentenceIter`` pads each sentence with ``invalid_label`` to the smallest bucket that
holds it (default buckets: the lengths seen at least ``batch_size`` times), drops longer ones
(printing how many), and yields shuffled batches of one bucket each, labels being the data
shifted left by one step; layout 'NT' (batch major) or 'TN'.
"""
import bisect
import random

import numpy as np

from .. import ndarray as nd
from ..io import DataBatch, DataDesc, DataIter
# names MXNet's module holds by importing them (its users import them from here)
from .. import ndarray  # noqa: E402,F401

__all__ = ["encode_sentences", "BucketSentenceIter"]


def encode_sentences(sentences, vocab=None, invalid_label=-1, invalid_key="\n", start_label=0,
                     unknown_token=None):
    """Sentences (lists of words) -> (lists of codes, vocabulary dict)."""
    new_vocab = vocab is None
    if new_vocab:
        vocab = {invalid_key: invalid_label}
    nxt = start_label
    coded = []
    for sent in sentences:
        row = []
        for word in sent:
            if word not in vocab:
                assert new_vocab or unknown_token, "Unknown token %s" % word
                if nxt == invalid_label:
                    nxt += 1
                if unknown_token:
                    word = unknown_token
                vocab[word] = nxt
                nxt += 1
            row.append(vocab[word])
        coded.append(row)
    return coded, vocab


class BucketSentenceIter(DataIter):
    """Bucketed batches of encoded sentences for a BucketingModule (``bucket_key`` = length)."""

    def __init__(self, sentences, batch_size, buckets=None, invalid_label=-1, data_name="data",
                 label_name="softmax_label", dtype="float32", layout="NT"):
        super().__init__()
        if not buckets:
            counts = np.bincount([len(s) for s in sentences])
            buckets = [n for n, c in enumerate(counts) if c >= batch_size]
        buckets = sorted(buckets)
        rows = [[] for _ in buckets]
        used = [False] * len(buckets)
        ndiscard = 0
        for sent in sentences:
            b = bisect.bisect_left(buckets, len(sent))
            if b == len(buckets):
                ndiscard += 1
                continue
            used[b] = True
            buf = np.full((buckets[b],), invalid_label, dtype=dtype)
            buf[:len(sent)] = sent
            rows[b].append(buf)
        self.buckets = [b for b, u in zip(buckets, used) if u]
        self.data = [np.asarray(r, dtype=dtype) for r in rows if r]
        print("WARNING: discarded %d sentences longer than the largest bucket." % ndiscard)
        self.batch_size = batch_size
        self.data_name, self.label_name = data_name, label_name
        self.dtype = dtype
        self.invalid_label = invalid_label
        self.layout = layout
        self.major_axis = layout.find("N")
        if self.major_axis not in (0, 1):
            raise ValueError("Invalid layout %s: Must by NT (batch major) or TN (time major)"
                             % layout)
        self.default_bucket_key = max(self.buckets)
        shape = (batch_size, self.default_bucket_key) if self.major_axis == 0 else \
            (self.default_bucket_key, batch_size)
        self.provide_data = [DataDesc(name=data_name, shape=shape, layout=layout)]
        self.provide_label = [DataDesc(name=label_name, shape=shape, layout=layout)]
        self.idx = [(i, j) for i, buck in enumerate(self.data)
                    for j in range(0, len(buck) - batch_size + 1, batch_size)]
        self.curr_idx = 0
        self.nddata, self.ndlabel = [], []
        self.reset()

    def reset(self):
        self.curr_idx = 0
        random.shuffle(self.idx)
        for buck in self.data:
            np.random.shuffle(buck)
        self.nddata, self.ndlabel = [], []
        for buck in self.data:
            label = np.empty_like(buck)
            label[:, :-1] = buck[:, 1:]
            label[:, -1] = self.invalid_label
            self.nddata.append(nd.array(buck, dtype=self.dtype))
            self.ndlabel.append(nd.array(label, dtype=self.dtype))

    def next(self):
        if self.curr_idx == len(self.idx):
            raise StopIteration
        i, j = self.idx[self.curr_idx]
        self.curr_idx += 1
        data = self.nddata[i][j:j + self.batch_size]
        label = self.ndlabel[i][j:j + self.batch_size]
        if self.major_axis == 1:
            data, label = data.T, label.T
        return DataBatch([data], [label], pad=0, bucket_key=self.buckets[i],
                         provide_data=[DataDesc(name=self.data_name, shape=data.shape,
                                                layout=self.layout)],
                         provide_label=[DataDesc(name=self.label_name, shape=label.shape,
                                                 layout=self.layout)])
