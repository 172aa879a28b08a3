"""``mx.contrib.text.embedding``: token embeddings (MXNet 1.9.1's API and file formats).

A token embedding is a `Vocabulary` with a vector per index (``idx_to_vec``).  Files are
read in MXNet's text format: one token per line followed by its vector, split on
`elem_delim`; a line with a 1-element vector (a fastText header) is skipped with a warning,
a repeated token keeps its first vector, and the unknown token's vector comes from the file
if it lists it, else from `init_unknown_vec`.

GloVe and FastText read their pre-trained files from ``embedding_root/<name>/`` (default
``$MXNET_HOME/embeddings``), unpacking the archive MXNet would have downloaded when only that
is there.  xnd does not download: with neither present the constructor raises MXNetError
naming the file, the directory and the URL to fetch it from.
"""
import logging
import os
import warnings
import zipfile

from .... import base
from ... import ndarray as nd
from ...util import _readonly
from . import _constants as C
from . import vocab
# names MXNet's module holds by importing them (its users import them from here)
from ...util import is_np_array  # noqa: E402,F401
from ... import registry  # noqa: E402,F401

__all__ = ["register", "create", "get_pretrained_file_names", "GloVe", "FastText",
           "CustomEmbedding", "CompositeEmbedding"]

_REGISTRY = {}
_REPO_URL = "https://apache-mxnet.s3-accelerate.dualstack.amazonaws.com/"


def register(embedding_cls):
    """Class decorator: makes `embedding_cls` creatable by its lower-cased name."""
    assert issubclass(embedding_cls, _TokenEmbedding), \
        "Can only register subclass of %s" % _TokenEmbedding.__name__
    name = embedding_cls.__name__.lower()
    if name in _REGISTRY:
        warnings.warn("New token embedding %s.%s is overriding existing token embedding %s.%s"
                      % (embedding_cls.__module__, embedding_cls.__name__,
                         _REGISTRY[name].__module__, _REGISTRY[name].__name__), UserWarning)
    _REGISTRY[name] = embedding_cls
    return embedding_cls


def create(embedding_name, **kwargs):
    """An instance of the registered embedding `embedding_name` (case-insensitive)."""
    name = embedding_name.lower()
    assert name in _REGISTRY, \
        "%s is not registered. Please register with token embedding.register first" % name
    return _REGISTRY[name](**kwargs)


def get_pretrained_file_names(embedding_name=None):
    """The valid `pretrained_file_name` values of `embedding_name`, or a dict of them for
    every registered embedding; KeyError for an unknown name."""
    if embedding_name is not None:
        if embedding_name not in _REGISTRY:
            raise KeyError("Cannot find `embedding_name` %s. Use `get_pretrained_file_names("
                           "embedding_name=None).keys()` to get all the valid embedding names."
                           % embedding_name)
        return list(_REGISTRY[embedding_name].pretrained_file_name_sha1.keys())
    return {name: list(cls.pretrained_file_name_sha1.keys()) for name, cls in _REGISTRY.items()}


class _TokenEmbedding(vocab.Vocabulary):
    """Base of the token embeddings: a vocabulary plus ``idx_to_vec`` (an NDArray)."""

    pretrained_file_name_sha1 = {}

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._vec_len = None
        self._idx_to_vec = None

    # ---- pre-trained files ---------------------------------------------------------------
    @classmethod
    def _get_download_file_name(cls, pretrained_file_name):
        return pretrained_file_name

    @classmethod
    def _get_pretrained_file_url(cls, pretrained_file_name):
        repo = os.environ.get("MXNET_GLUON_REPO", _REPO_URL)
        return "{}gluon/embeddings/{}/{}".format(repo, cls.__name__.lower(),
                                                 cls._get_download_file_name(pretrained_file_name))

    @classmethod
    def _get_pretrained_file(cls, embedding_root, pretrained_file_name):
        """The local path of `pretrained_file_name`, unpacked from its archive when only the
        archive is there."""
        folder = os.path.join(os.path.expanduser(embedding_root), cls.__name__.lower())
        path = os.path.join(folder, pretrained_file_name)
        if os.path.isfile(path):
            return path
        url = cls._get_pretrained_file_url(pretrained_file_name)
        archive = os.path.join(folder, os.path.basename(url))
        if archive != path and os.path.isfile(archive) and zipfile.is_zipfile(archive):
            with zipfile.ZipFile(archive) as zf:
                zf.extractall(folder)
            if os.path.isfile(path):
                return path
        raise base.MXNetError(
            "%s: the pre-trained embedding file %r is not in %s, and xnd does not download "
            "files. Fetch %s and place it (or the file unpacked from it) in that directory."
            % (cls.__name__, pretrained_file_name, folder, url))

    @classmethod
    def _check_pretrained_file_names(cls, pretrained_file_name):
        name = cls.__name__.lower()
        if pretrained_file_name not in cls.pretrained_file_name_sha1:
            raise KeyError("Cannot find pretrained file %s for token embedding %s. Valid "
                           "pretrained files for embedding %s: %s"
                           % (pretrained_file_name, name, name,
                              ", ".join(cls.pretrained_file_name_sha1.keys())))

    def _load_embedding(self, pretrained_file_path, elem_delim, init_unknown_vec,
                        encoding="utf8"):
        path = os.path.expanduser(pretrained_file_path)
        if not os.path.isfile(path):
            raise ValueError("`pretrained_file_path` must be a valid path to the pre-trained "
                             "token embedding file.")
        logging.info("Loading pre-trained token embedding vectors from %s", path)
        vec_len, rows, seen, unknown_vec = None, [], set(), None
        with open(path, "r", encoding=encoding) as f:
            for line_num, line in enumerate(f, 1):
                elems = line.rstrip().split(elem_delim)
                assert len(elems) > 1, (
                    "At line %d of the pre-trained text embedding file: the data format of the "
                    "pre-trained token embedding file %s is unexpected." % (line_num, path))
                token, vec = elems[0], [float(e) for e in elems[1:]]
                if token == self.unknown_token and unknown_vec is None:
                    unknown_vec = vec
                    seen.add(token)
                elif token in seen:
                    warnings.warn("At line %d of the pre-trained token embedding file: the "
                                  "embedding vector for token %s has been loaded and a duplicate "
                                  "embedding for the  same token is seen and skipped."
                                  % (line_num, token))
                elif len(vec) == 1:
                    warnings.warn("At line %d of the pre-trained text embedding file: token %s "
                                  "with 1-dimensional vector %s is likely a header and is "
                                  "skipped." % (line_num, token, vec))
                else:
                    if vec_len is None:
                        vec_len = len(vec)
                    else:
                        assert len(vec) == vec_len, (
                            "At line %d of the pre-trained token embedding file: the dimension "
                            "of token %s is %d but the dimension of previous tokens is %d. "
                            "Dimensions of all the tokens must be the same."
                            % (line_num, token, len(vec), vec_len))
                    rows.append(vec)
                    self._token_to_idx[token] = len(self._idx_to_token)
                    self._idx_to_token.append(token)
                    seen.add(token)
        self._vec_len = vec_len
        first = unknown_vec if unknown_vec is not None else [0.0] * vec_len
        self._idx_to_vec = nd.array([first] + rows)
        if unknown_vec is None:
            self._idx_to_vec[C.UNKNOWN_IDX] = init_unknown_vec(shape=vec_len)

    # ---- indexing from a vocabulary ------------------------------------------------------
    def _index_tokens_from_vocabulary(self, vocabulary):
        self._token_to_idx = dict(vocabulary.token_to_idx)
        self._idx_to_token = list(vocabulary.idx_to_token)
        self._unknown_token = vocabulary.unknown_token
        self._reserved_tokens = (None if vocabulary.reserved_tokens is None
                                 else list(vocabulary.reserved_tokens))

    def _set_idx_to_vec_by_embeddings(self, token_embeddings, vocab_len, vocab_idx_to_token):
        """Concatenate, per token of the vocabulary, the vectors of `token_embeddings`; row 0
        takes each embedding's own unknown vector."""
        parts = []
        for embed in token_embeddings:
            rest = embed.get_vecs_by_tokens(list(vocab_idx_to_token[1:])) if vocab_len > 1 \
                else nd.zeros((0, embed.vec_len))
            parts.append(nd.concat(embed.idx_to_vec[0:1], rest.reshape((-1, embed.vec_len)),
                                   dim=0))
        self._idx_to_vec = nd.concat(*parts, dim=1) if len(parts) > 1 else parts[0]
        self._vec_len = sum(e.vec_len for e in token_embeddings)

    def _build_embedding_for_vocabulary(self, vocabulary):
        if vocabulary is not None:
            assert isinstance(vocabulary, vocab.Vocabulary), \
                "The argument `vocabulary` must be an instance of " \
                "mxnet.contrib.text.vocab.Vocabulary."
            self._set_idx_to_vec_by_embeddings([self], len(vocabulary), vocabulary.idx_to_token)
            self._index_tokens_from_vocabulary(vocabulary)

    vec_len = _readonly("_vec_len")
    idx_to_vec = _readonly("_idx_to_vec")

    def get_vecs_by_tokens(self, tokens, lower_case_backup=False):
        """The vector of a token (1-D) or of a list of tokens (2-D); unknown tokens get row 0.
        With `lower_case_backup`, a token not found is looked up lower-cased."""
        single = not isinstance(tokens, list)
        tokens = [tokens] if single else tokens
        t2i = self._token_to_idx
        if lower_case_backup:
            idx = [t2i[t] if t in t2i else t2i.get(t.lower(), C.UNKNOWN_IDX) for t in tokens]
        else:
            idx = [t2i.get(t, C.UNKNOWN_IDX) for t in tokens]
        vecs = nd.Embedding(nd.array(idx), self._idx_to_vec, input_dim=self._idx_to_vec.shape[0],
                            output_dim=self._idx_to_vec.shape[1])
        return vecs[0] if single else vecs

    def update_token_vectors(self, tokens, new_vectors):
        """Overwrite the vectors of known `tokens` with the rows of `new_vectors`; ValueError
        for an unknown token (the unknown token must be named as such)."""
        assert self._idx_to_vec is not None, "The property `idx_to_vec` has not been properly set."
        if not isinstance(tokens, list) or len(tokens) == 1:
            assert isinstance(new_vectors, nd.NDArray) and len(new_vectors.shape) in (1, 2), \
                "`new_vectors` must be a 1-D or 2-D NDArray if `tokens` is a singleton."
            tokens = tokens if isinstance(tokens, list) else [tokens]
            if len(new_vectors.shape) == 1:
                new_vectors = nd.expand_dims(new_vectors, axis=0)
        else:
            assert isinstance(new_vectors, nd.NDArray) and len(new_vectors.shape) == 2, \
                "`new_vectors` must be a 2-D NDArray if `tokens` is a list of multiple strings."
        assert new_vectors.shape == (len(tokens), self.vec_len), \
            "The length of new_vectors must be equal to the number of tokens and the width of" \
            "new_vectors must be equal to the dimension of embeddings of the glossary."
        indices = []
        for token in tokens:
            if token not in self._token_to_idx:
                raise ValueError("Token %s is unknown. To update the embedding vector for an "
                                 "unknown token, please specify it explicitly as the "
                                 "`unknown_token` %s in `tokens`. This is to avoid unintended "
                                 "updates." % (token, self._idx_to_token[C.UNKNOWN_IDX]))
            indices.append(self._token_to_idx[token])
        self._idx_to_vec[nd.array(indices)] = new_vectors


_GLOVE_ARCHIVES = {"42B": "glove.42B.300d.zip", "6B": "glove.6B.zip",
                   "840B": "glove.840B.300d.zip", "twitter": "glove.twitter.27B.zip"}


def _default_root():
    return os.path.join(base.data_dir(), "embeddings")


@register
class GloVe(_TokenEmbedding):
    """GloVe vectors (https://nlp.stanford.edu/projects/glove/) read from a local file in
    GloVe's text format (space separated)."""

    pretrained_file_name_sha1 = dict.fromkeys(C.GLOVE_FILES)

    @classmethod
    def _get_download_file_name(cls, pretrained_file_name):
        # the archive is named by the corpus, the file's second dotted part
        return _GLOVE_ARCHIVES[pretrained_file_name.split(".")[1]]

    def __init__(self, pretrained_file_name="glove.840B.300d.txt", embedding_root=None,
                 init_unknown_vec=nd.zeros, vocabulary=None, **kwargs):
        GloVe._check_pretrained_file_names(pretrained_file_name)
        super().__init__(**kwargs)
        path = GloVe._get_pretrained_file(embedding_root or _default_root(), pretrained_file_name)
        self._load_embedding(path, " ", init_unknown_vec)
        if vocabulary is not None:
            self._build_embedding_for_vocabulary(vocabulary)


@register
class FastText(_TokenEmbedding):
    """fastText vectors (https://fasttext.cc/) read from a local ``.vec`` file (its header
    line is skipped)."""

    pretrained_file_name_sha1 = dict.fromkeys(C.FASTTEXT_FILES)

    @classmethod
    def _get_download_file_name(cls, pretrained_file_name):
        return ".".join(pretrained_file_name.split(".")[:-1]) + ".zip"

    def __init__(self, pretrained_file_name="wiki.simple.vec", embedding_root=None,
                 init_unknown_vec=nd.zeros, vocabulary=None, **kwargs):
        FastText._check_pretrained_file_names(pretrained_file_name)
        super().__init__(**kwargs)
        path = FastText._get_pretrained_file(embedding_root or _default_root(),
                                             pretrained_file_name)
        self._load_embedding(path, " ", init_unknown_vec)
        if vocabulary is not None:
            self._build_embedding_for_vocabulary(vocabulary)


class CustomEmbedding(_TokenEmbedding):
    """Vectors from a user's file: ``token<d>v1<d>v2...`` per line, ``<d>`` = `elem_delim`."""

    def __init__(self, pretrained_file_path, elem_delim=" ", encoding="utf8",
                 init_unknown_vec=nd.zeros, vocabulary=None, **kwargs):
        super().__init__(**kwargs)
        self._load_embedding(pretrained_file_path, elem_delim, init_unknown_vec, encoding)
        if vocabulary is not None:
            self._build_embedding_for_vocabulary(vocabulary)


class CompositeEmbedding(_TokenEmbedding):
    """The tokens of `vocabulary`, each with the concatenation of its vectors in
    `token_embeddings` (one embedding or a list)."""

    def __init__(self, vocabulary, token_embeddings):
        assert isinstance(vocabulary, vocab.Vocabulary), \
            "The argument `vocabulary` must be an instance of " \
            "mxnet.contrib.text.indexer.Vocabulary."
        if not isinstance(token_embeddings, list):
            token_embeddings = [token_embeddings]
        for embed in token_embeddings:
            assert isinstance(embed, _TokenEmbedding), \
                "The argument `token_embeddings` must be an instance or a list of instances " \
                "of `mxnet.contrib.text.embedding.TextEmbedding` whose embedding vectors will " \
                "beloaded or concatenated-then-loaded to map to the indexed tokens."
        vocab.Vocabulary.__init__(self)
        self._index_tokens_from_vocabulary(vocabulary)
        self._set_idx_to_vec_by_embeddings(token_embeddings, len(self), self.idx_to_token)
