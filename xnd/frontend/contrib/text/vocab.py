"""``mx.contrib.text.vocab.Vocabulary``: token <-> index maps.

Index 0 is the unknown token, then the reserved tokens in their order, then the keys of the
counter by decreasing frequency (ties in ascending key order), up to `most_freq_count` keys
with at least `min_freq` occurrences -- MXNet 1.9.1's indexing."""
import collections

from ...util import _readonly
from ._constants import UNKNOWN_IDX

__all__ = ["Vocabulary"]


class Vocabulary:
    """Indexes the unknown token, `reserved_tokens` and the keys of `counter`."""

    def __init__(self, counter=None, most_freq_count=None, min_freq=1, unknown_token="<unk>",
                 reserved_tokens=None):
        assert min_freq > 0, "`min_freq` must be set to a positive value."
        if reserved_tokens is not None:
            assert unknown_token not in set(reserved_tokens), \
                "`reserved_token` cannot contain `unknown_token`."
            assert len(set(reserved_tokens)) == len(reserved_tokens), \
                "`reserved_tokens` cannot contain duplicate reserved tokens."
        self._unknown_token = unknown_token
        self._reserved_tokens = None if reserved_tokens is None else list(reserved_tokens)
        self._idx_to_token = [unknown_token] + list(reserved_tokens or [])
        self._token_to_idx = {t: i for i, t in enumerate(self._idx_to_token)}
        if counter is not None:
            self._index_counter_keys(counter, most_freq_count, min_freq)

    def _index_counter_keys(self, counter, most_freq_count, min_freq):
        assert isinstance(counter, collections.Counter), \
            "`counter` must be an instance of collections.Counter."
        special = set(self._idx_to_token)
        cap = len(special) + (len(counter) if most_freq_count is None else most_freq_count)
        # stable sorts: by key, then by decreasing count
        ranked = sorted(sorted(counter.items(), key=lambda kv: kv[0]),
                        key=lambda kv: kv[1], reverse=True)
        for token, freq in ranked:
            if freq < min_freq or len(self._idx_to_token) == cap:
                break
            if token not in special:
                self._token_to_idx[token] = len(self._idx_to_token)
                self._idx_to_token.append(token)

    def __len__(self):
        return len(self._idx_to_token)

    token_to_idx = _readonly("_token_to_idx")
    idx_to_token = _readonly("_idx_to_token")
    unknown_token = _readonly("_unknown_token")
    reserved_tokens = _readonly("_reserved_tokens")

    def to_indices(self, tokens):
        """The index of a token, or the list of indices of a list of tokens (unknown -> 0)."""
        if not isinstance(tokens, list):
            return self._token_to_idx.get(tokens, UNKNOWN_IDX)
        return [self._token_to_idx.get(t, UNKNOWN_IDX) for t in tokens]

    def to_tokens(self, indices):
        """The token at an index, or the tokens at a list of indices; ValueError for an index
        that is not an int or is past the end."""
        single = not isinstance(indices, list)
        out = []
        for idx in [indices] if single else indices:
            if not isinstance(idx, int) or idx > len(self._idx_to_token) - 1:
                raise ValueError("Token index %d in the provided `indices` is invalid." % idx)
            out.append(self._idx_to_token[idx])
        return out[0] if single else out
