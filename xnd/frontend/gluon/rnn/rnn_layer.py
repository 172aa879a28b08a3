"""Fused recurrent layers (gluon.rnn.RNN, LSTM, GRU) on the registry's RNN operator, with
MXNet 1.9.1's parameter names (``l0_i2h_weight``, ``r0_h2h_bias``...)."""
import re

from ....ndarray import NDArray
from ..block import HybridBlock
# names MXNet's module holds by importing them (its users import them from here)
from ...util import is_np_array  # noqa: E402,F401
from ... import ndarray  # noqa: E402,F401
from .... import symbol  # noqa: E402,F401
from ..parameter import tensor_types  # noqa: E402,F401
from . import rnn_cell  # noqa: E402,F401

__all__ = ["RNN", "LSTM", "GRU"]


def _nd():
    from ... import ndarray as nd
    return nd


class _RNNLayer(HybridBlock):
    """Multi-layer (bi)directional RNN over the fused ``RNN`` op."""

    def __init__(self, hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                 i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                 h2h_bias_initializer, mode, projection_size, h2r_weight_initializer,
                 lstm_state_clip_min, lstm_state_clip_max, lstm_state_clip_nan, dtype,
                 use_sequence_length=False, **kwargs):
        super().__init__(**kwargs)
        assert layout in ("TNC", "NTC"), f"Invalid layout {layout}; must be one of ['TNC' or 'NTC']"
        self._hidden_size = hidden_size
        self._projection_size = projection_size if projection_size else None
        self._num_layers = num_layers
        self._mode = mode
        self._layout = layout
        self._dropout = dropout
        self._dir = 2 if bidirectional else 1
        self._input_size = input_size
        self._i2h_weight_initializer = i2h_weight_initializer
        self._h2h_weight_initializer = h2h_weight_initializer
        self._i2h_bias_initializer = i2h_bias_initializer
        self._h2h_bias_initializer = h2h_bias_initializer
        self._h2r_weight_initializer = h2r_weight_initializer
        self._lstm_state_clip_min = lstm_state_clip_min
        self._lstm_state_clip_max = lstm_state_clip_max
        self._lstm_state_clip_nan = lstm_state_clip_nan
        self._dtype = dtype
        self._use_sequence_length = use_sequence_length
        self.skip_states = None
        self._gates = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}[mode]
        ng, ni, nh = self._gates, input_size, hidden_size
        npj = self._projection_size
        for i in range(num_layers):
            for j in ["l", "r"][:self._dir]:
                self._register_param(f"{j}{i}_i2h_weight", (ng * nh, ni), i2h_weight_initializer,
                                     dtype)
                self._register_param(f"{j}{i}_h2h_weight", (ng * nh, npj or nh),
                                     h2h_weight_initializer, dtype)
                self._register_param(f"{j}{i}_i2h_bias", (ng * nh,), i2h_bias_initializer, dtype)
                self._register_param(f"{j}{i}_h2h_bias", (ng * nh,), h2h_bias_initializer, dtype)
                if npj:
                    self._register_param(f"{j}{i}_h2r_weight", (npj, nh), h2r_weight_initializer,
                                         dtype)
            ni = (npj or nh) * self._dir

    def _unfuse(self):
        """The same network as a HybridSequentialRNNCell of cells (BidirectionalCell pairs,
        DropoutCell between layers), sharing this layer's Parameters by name."""
        assert not self._projection_size, "_unfuse does not support projection layer yet!"
        assert not self._lstm_state_clip_min and not self._lstm_state_clip_max, \
            "_unfuse does not support state clipping yet!"
        from . import rnn_cell
        cls, extra = {"rnn_relu": (rnn_cell.RNNCell, {"activation": "relu"}),
                      "rnn_tanh": (rnn_cell.RNNCell, {"activation": "tanh"}),
                      "lstm": (rnn_cell.LSTMCell, {}), "gru": (rnn_cell.GRUCell, {})}[self._mode]
        stack = rnn_cell.HybridSequentialRNNCell(prefix=self.prefix, params=self.params)
        with stack.name_scope():
            ni = self._input_size
            for i in range(self._num_layers):
                def cell(side, ni=ni):
                    return cls(self._hidden_size, prefix=f"{side}{i}_", input_size=ni,
                               i2h_weight_initializer=self._i2h_weight_initializer,
                               h2h_weight_initializer=self._h2h_weight_initializer,
                               i2h_bias_initializer=self._i2h_bias_initializer,
                               h2h_bias_initializer=self._h2h_bias_initializer, **extra)
                stack.add(rnn_cell.BidirectionalCell(cell("l"), cell("r")) if self._dir == 2
                          else cell("l"))
                if self._dropout > 0 and i != self._num_layers - 1:
                    stack.add(rnn_cell.DropoutCell(self._dropout))
                ni = self._hidden_size * self._dir
        return stack

    def _register_param(self, name, shape, init, dtype):
        p = self.params.get(name, shape=shape, init=init, allow_deferred_init=True, dtype=dtype)
        setattr(self, name, p)
        return p

    def __repr__(self):
        s = f"{self.__class__.__name__}({{mapping}}, {self._layout}"
        if self._num_layers != 1:
            s += f", num_layers={self._num_layers}"
        if self._dropout != 0:
            s += f", dropout={self._dropout}"
        if self._dir == 2:
            s += ", bidirectional"
        s += ")"
        shape = self.l0_i2h_weight.shape
        return s.format(mapping="{0} -> {1}".format(shape[1] if shape[1] else None,
                                                    shape[0] // self._gates))

    def _collect_params_with_prefix(self, prefix=""):
        if prefix:
            prefix += "."
        pattern = re.compile(r"(l|r)(\d)_(i2h|h2h|h2r)_(weight|bias)\Z")

        def convert_key(m, bidirectional):  # MXNet's (older, unfused) structural names
            d, layer, g, t = [m.group(i) for i in range(1, 5)]
            if bidirectional:
                return f"_unfused.{layer}.{d}_cell.{g}_{t}"
            return f"_unfused.{layer}.{g}_{t}"
        bidirectional = any(pattern.match(k).group(1) == "r" for k in self._reg_params)
        ret = {prefix + convert_key(pattern.match(key), bidirectional): val
               for key, val in self._reg_params.items()}
        for name, child in self._children.items():
            ret.update(child._collect_params_with_prefix(prefix + name))
        return ret

    def state_info(self, batch_size=0):
        raise NotImplementedError

    def cast(self, dtype):
        super().cast(dtype)
        self._dtype = dtype

    def begin_state(self, batch_size=0, func=None, **kwargs):
        """Initial states (zeros) for a batch of ``batch_size``."""
        nd = _nd()
        func = func or nd.zeros
        states = []
        for i, info in enumerate(self.state_info(batch_size)):
            info = dict(info) if info is not None else {}
            info.update(kwargs)
            if func in (nd.zeros, nd.ones):
                shape = info.pop("shape")
                info.pop("__layout__", None)
                states.append(func(shape, **info))
            else:
                states.append(func(name=f"{self.prefix}h0_{i}", **info))
        return states

    def infer_shape(self, inputs, *args):
        """Input-size dependent weight shapes from the input's feature size."""
        assert inputs.ndim == 3, \
            "Input data should be rank-3 tensor of dim [sequence length, batch size, input size]"
        step = self._projection_size or self._hidden_size
        ni = inputs.shape[2]
        for i in range(self._num_layers):
            for j in ["l", "r"][:self._dir]:
                getattr(self, f"{j}{i}_i2h_weight").shape = (self._gates * self._hidden_size, ni)
            ni = step * self._dir

    def __call__(self, inputs, states=None, sequence_length=None, **kwargs):
        self.skip_states = states is None
        if states is None:
            if isinstance(inputs, NDArray):
                batch_size = inputs.shape[self._layout.find("N")]
                states = self.begin_state(batch_size, ctx=inputs.context, dtype=inputs.dtype)
            else:
                states = self._sym_begin_state(inputs)
        if isinstance(states, NDArray):
            states = [states]
        if self._use_sequence_length:
            return super().__call__(inputs, states, sequence_length, **kwargs)
        return super().__call__(inputs, states, **kwargs)

    def _sym_begin_state(self, inputs):
        """Zero states for a Symbol input (MXNet leaves the batch size 0 for shape
        inference; xnd derives the zeros from the input so the graph has concrete shapes)."""
        from .... import symbol as F
        t_ax, n_ax = self._layout.find("T"), self._layout.find("N")
        x = F.slice_axis(inputs, axis=t_ax, begin=0, end=1)
        x = F.slice_axis(x, axis=2, begin=0, end=1)
        if n_ax == 0:
            x = F.swapaxes(x, dim1=0, dim2=1)
        base = F.zeros_like(x)  # (1, N, 1)
        states = []
        for info in self.state_info(0):
            lnc = info["shape"]
            st = F.broadcast_axis(base, axis=(0, 2), size=(lnc[0], lnc[2]))
            states.append(st)
        return states

    def hybrid_forward(self, F, inputs, states, sequence_length=None, **kwargs):
        if F is _nd():
            batch_size = inputs.shape[self._layout.find("N")]
            for state, info in zip(states, self.state_info(batch_size)):
                if state.shape != info["shape"]:
                    raise ValueError(f"Invalid recurrent state shape. Expecting "
                                     f"{info['shape']}, got {state.shape}.")
        out = self._forward_kernel(F, inputs, states, sequence_length, **kwargs)
        return out[0] if self.skip_states else out

    def _forward_kernel(self, F, inputs, states, sequence_length, **kwargs):
        if self._layout == "NTC":
            inputs = F.swapaxes(inputs, dim1=0, dim2=1)
        gates = ["i2h", "h2h", "h2r"] if self._projection_size else ["i2h", "h2h"]
        params = [F.reshape(kwargs[f"{d}{layer}_{g}_{t}"], shape=(-1,))
                  for t in ["weight", "bias"]
                  for layer in range(self._num_layers)
                  for d in ["l", "r"][:self._dir]
                  for g in gates
                  if g != "h2r" or t != "bias"]
        params = F.concat(*params, dim=0)
        rnn_args = list(states) + ([sequence_length] if self._use_sequence_length else [])
        rnn = F.RNN(inputs, params, *rnn_args, use_sequence_length=self._use_sequence_length,
                    state_size=self._hidden_size, projection_size=self._projection_size,
                    num_layers=self._num_layers, bidirectional=self._dir == 2, p=self._dropout,
                    state_outputs=True, mode=self._mode,
                    lstm_state_clip_min=self._lstm_state_clip_min,
                    lstm_state_clip_max=self._lstm_state_clip_max,
                    lstm_state_clip_nan=self._lstm_state_clip_nan)
        n_out = 3 if self._mode == "lstm" else 2
        if not isinstance(rnn, (list, tuple)) and len(rnn) < n_out:
            rnn = _all_outputs(rnn, n_out)
        if self._mode == "lstm":
            outputs, states = rnn[0], [rnn[1], rnn[2]]
        else:
            outputs, states = rnn[0], [rnn[1]]
        if self._layout == "NTC":
            outputs = F.swapaxes(outputs, dim1=0, dim2=1)
        return outputs, states


def _all_outputs(sym, n):
    """The ``n`` outputs of an RNN symbol node. (The registry's RNN op declares one output
    whatever ``state_outputs`` says, so the symbol exposes only the first; the node computes
    all of them.)"""
    from ....symbol import Symbol
    node = sym._outputs[0][0]
    return [Symbol([(node, i)]) for i in range(n)]


class RNN(_RNNLayer):
    """Multi-layer Elman RNN (``activation`` relu or tanh)."""

    def __init__(self, hidden_size, num_layers=1, activation="relu", layout="TNC", dropout=0,
                 bidirectional=False, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", input_size=0,
                 dtype="float32", **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                         i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, "rnn_" + activation, None, None, None, None,
                         False, dtype, **kwargs)

    def state_info(self, batch_size=0):
        return [{"shape": (self._num_layers * self._dir, batch_size, self._hidden_size),
                 "__layout__": "LNC", "dtype": self._dtype}]


class LSTM(_RNNLayer):
    """Multi-layer LSTM (optionally with a projection, LSTMP)."""

    def __init__(self, hidden_size, num_layers=1, layout="TNC", dropout=0, bidirectional=False,
                 input_size=0, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros",
                 projection_size=None, h2r_weight_initializer=None, state_clip_min=None,
                 state_clip_max=None, state_clip_nan=False, dtype="float32", **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                         i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, "lstm", projection_size, h2r_weight_initializer,
                         state_clip_min, state_clip_max, state_clip_nan, dtype, **kwargs)

    def state_info(self, batch_size=0):
        h = self._projection_size or self._hidden_size
        return [{"shape": (self._num_layers * self._dir, batch_size, h), "__layout__": "LNC",
                 "dtype": self._dtype},
                {"shape": (self._num_layers * self._dir, batch_size, self._hidden_size),
                 "__layout__": "LNC", "dtype": self._dtype}]


class GRU(_RNNLayer):
    """Multi-layer GRU."""

    def __init__(self, hidden_size, num_layers=1, layout="TNC", dropout=0, bidirectional=False,
                 input_size=0, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", dtype="float32",
                 **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                         i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, "gru", None, None, None, None, False, dtype,
                         **kwargs)

    def state_info(self, batch_size=0):
        return [{"shape": (self._num_layers * self._dir, batch_size, self._hidden_size),
                 "__layout__": "LNC", "dtype": self._dtype}]
