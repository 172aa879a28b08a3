"""mx.rnn's symbolic cells (MXNet 1.9.1's legacy RNN API), with MXNet's names.

A cell builds symbols one time step at a time (``cell(inputs, states)``) or for a whole
sequence (``cell.unroll(length, inputs, begin_state, layout, merge_outputs)``).  Names are
MXNet's: parameters ``<prefix>i2h_weight``/``i2h_bias``/``h2h_weight``/``h2h_bias`` (prefixes
``rnn_``, ``lstm_``, ``gru_``; a FusedRNNCell has one ``<prefix>parameters`` vector), step
outputs ``<prefix>t<step>_out``, begin states ``<prefix>begin_state_<n>``.  ``unpack_weights``
splits the packed gate matrices into ``<prefix>i2h<gate>_weight`` per gate (gates ``_i _f _c
_o`` for LSTM, ``_r _z _o`` for GRU, none for a plain RNN) and ``pack_weights`` joins them;
a FusedRNNCell's vector is laid out as MXNet's RNN operator reads it (every layer and
direction's i2h then h2h gate weights, then all biases in the same order).

Begin states: MXNet writes the batch size of a state as 0 and lets shape inference fill it
in from the graph.  xnd's inference runs forward only, so a zero begin state whose batch size
is 0 is built, at its first use by a step, from the step's input (zeros of the input's batch
size broadcast to the state's shape; the node keeps the begin state's name).
"""
import functools
import warnings

from ... import symbol
from .. import initializer as init
from ..gluon.rnn.rnn_cell import (check_unmodified, check_zoneout_base, zoneout_output,
                                  zoneout_states)
# names MXNet's module holds by importing them (its users import them from here)
from ...base import numeric_types, string_types  # noqa: E402,F401
from .. import ndarray  # noqa: E402,F401

__all__ = ["RNNParams", "BaseRNNCell", "RNNCell", "LSTMCell", "GRUCell", "FusedRNNCell",
           "SequentialRNNCell", "DropoutCell", "ModifierCell", "ZoneoutCell", "ResidualCell",
           "BidirectionalCell", "BaseConvRNNCell", "ConvRNNCell", "ConvLSTMCell", "ConvGRUCell"]

_GATES = {"rnn_relu": ("",), "rnn_tanh": ("",), "lstm": ("_i", "_f", "_c", "_o"),
          "gru": ("_r", "_z", "_o")}


class RNNParams:
    """Shared variables of cells: ``get(name)`` returns ``Variable(prefix + name)`` once."""

    def __init__(self, prefix=""):
        self._prefix = prefix
        self._params = {}

    def get(self, name, **kwargs):
        name = self._prefix + name
        if name not in self._params:
            self._params[name] = symbol.Variable(name, **kwargs)
        return self._params[name]


def _split_time(length, inputs, layout):
    """A (batch, time, ...) / (time, batch, ...) symbol or a list -> list of step symbols."""
    axis = layout.find("T")
    if isinstance(inputs, symbol.Symbol):
        if len(inputs.list_outputs()) != 1:
            raise ValueError("unroll doesn't allow grouped symbol as input. Please convert to "
                             "list with list(inputs) first or let unroll handle splitting.")
        return list(symbol.split(inputs, axis=axis, num_outputs=length, squeeze_axis=1)), axis
    if length is not None and len(inputs) != length:
        raise ValueError("unroll: %d inputs for length %d" % (len(inputs), length))
    return list(inputs), axis


def _merge_time(outputs, layout, merge, length=None):
    """Step outputs -> a list, or (merge) one symbol stacked along the layout's time axis."""
    axis = layout.find("T")
    if merge and not isinstance(outputs, symbol.Symbol):
        return symbol.Concat(*[symbol.expand_dims(o, axis=axis) for o in outputs], dim=axis)
    if merge is False and isinstance(outputs, symbol.Symbol):
        return list(symbol.split(outputs, axis=axis, num_outputs=length, squeeze_axis=1))
    return outputs


def _lazy_zero(state):
    """The shape of a zero begin state whose batch size is still 0, else None."""
    node = state._outputs[0][0] if len(state._outputs) == 1 else None
    if node is None or node.op is None or node.op.name != "_zeros":
        return None
    shape = node.params().get("shape")
    return tuple(shape) if shape is not None and 0 in tuple(shape) else None


def _resolve_states(states, like, batch_axis=0):
    """Begin states that still say batch 0 become zeros of ``like``'s batch size."""
    out = []
    for s in states:
        shape = _lazy_zero(s) if isinstance(s, symbol.Symbol) else None
        if shape is None:
            out.append(s)
            continue
        node = s._outputs[0][0]
        if batch_axis:                       # (T, N, C) data for fused states (L, N, H)
            col = symbol.slice_axis(symbol.slice_axis(like, axis=0, begin=0, end=1),
                                    axis=2, begin=0, end=1)
        else:                                # (N, ...) -> (N, 1, ..., 1) of the state's rank
            col = symbol.slice_axis(symbol.reshape(like, shape=(0, -1)), axis=1, begin=0, end=1)
            col = symbol.reshape(col, shape=(0,) + (1,) * (len(shape) - 1))
        fill = symbol.broadcast_to(symbol.zeros_like(col), shape=shape, name=node.name)
        fill._set_attr(**{k: v for k, v in node.attrs.items() if k.startswith("__")})
        out.append(fill)
    return out


class BaseRNNCell:
    """The cell interface: ``state_info``, ``begin_state``, ``__call__``, ``unroll``,
    ``pack_weights``/``unpack_weights``, ``params``, ``reset``."""

    def __init__(self, prefix="", params=None):
        self._own_params = params is None
        self._params = RNNParams(prefix) if params is None else params
        self._prefix = prefix
        self._modified = False
        self.reset()

    def reset(self):
        """Restart the step and begin-state counters (before building another graph)."""
        self._init_counter = -1
        self._counter = -1
        for cell in getattr(self, "_cells", ()):
            cell.reset()

    def __call__(self, inputs, states):
        raise NotImplementedError("%s cannot be stepped" % type(self).__name__)

    @property
    def params(self):
        self._own_params = False
        return self._params

    @property
    def state_info(self):
        return []

    @property
    def state_shape(self):
        return [info["shape"] for info in self.state_info]

    @property
    def _gate_names(self):
        return ()

    def begin_state(self, func=symbol.zeros, **kwargs):
        """One symbol per state, ``func(name='<prefix>begin_state_<n>', shape=..., ...)``."""
        check_unmodified(self, "DropoutCell")
        states = []
        for info in self.state_info:
            self._init_counter += 1
            if info is not None:
                kwargs.update(info)
            states.append(func(name="%sbegin_state_%d" % (self._prefix, self._init_counter),
                               **kwargs))
        return states

    def unpack_weights(self, args):
        """Packed i2h/h2h weights and biases -> one entry per gate."""
        args = dict(args)
        gates = self._gate_names
        if not gates:
            return args
        h = self._num_hidden
        for group in ("i2h", "h2h"):
            w = args.pop("%s%s_weight" % (self._prefix, group))
            b = args.pop("%s%s_bias" % (self._prefix, group))
            for j, gate in enumerate(gates):
                args["%s%s%s_weight" % (self._prefix, group, gate)] = w[j * h:(j + 1) * h].copy()
                args["%s%s%s_bias" % (self._prefix, group, gate)] = b[j * h:(j + 1) * h].copy()
        return args

    def pack_weights(self, args):
        """The reverse of ``unpack_weights``."""
        from .. import ndarray as nd
        args = dict(args)
        gates = self._gate_names
        if not gates:
            return args
        for group in ("i2h", "h2h"):
            for kind in ("weight", "bias"):
                parts = [args.pop("%s%s%s_%s" % (self._prefix, group, g, kind)) for g in gates]
                args["%s%s_%s" % (self._prefix, group, kind)] = nd.concatenate(parts)
        return args

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        """Step the cell ``length`` times; (outputs, final states)."""
        self.reset()
        steps, _ = _split_time(length, inputs, layout)
        states = self.begin_state() if begin_state is None else begin_state
        states = _resolve_states(states, steps[0]) if steps else states
        outputs = []
        for x in steps:
            out, states = self(x, states)
            outputs.append(out)
        return _merge_time(outputs, layout, merge_outputs), states

    def _get_activation(self, inputs, activation, **kwargs):
        if isinstance(activation, str):
            return symbol.Activation(inputs, act_type=activation, **kwargs)
        return activation(inputs, **kwargs)

    # the gated cells' shared step: i2h and h2h projections of the packed gates
    def _projections(self, inputs, h, n_gates, sep=""):
        self._counter += 1
        name = "%st%d_" % (self._prefix, self._counter)
        i2h = symbol.FullyConnected(data=inputs, weight=self._iW, bias=self._iB,
                                    num_hidden=self._num_hidden * n_gates,
                                    name="%s%si2h" % (name, sep))
        h2h = symbol.FullyConnected(data=h, weight=self._hW, bias=self._hB,
                                    num_hidden=self._num_hidden * n_gates,
                                    name="%s%sh2h" % (name, sep))
        return name, i2h, h2h

    def _own_weights(self, i2h_bias_init=None):
        p = self.params
        self._iW = p.get("i2h_weight")
        self._hW = p.get("h2h_weight")
        self._iB = p.get("i2h_bias") if i2h_bias_init is None else \
            p.get("i2h_bias", init=i2h_bias_init)
        self._hB = p.get("h2h_bias")


def _nc_states(n, h):
    return [{"shape": (0, h), "__layout__": "NC"} for _ in range(n)]


class _GatedCell(BaseRNNCell):
    """RNNCell, LSTMCell, GRUCell: ``_num_states`` (batch, num_hidden) states and packed
    gate weights named by ``_gate_names``."""
    _num_states, _gate_names = 1, ("",)

    def __init__(self, num_hidden, prefix, params, i2h_bias_init=None):
        super().__init__(prefix=prefix, params=params)
        self._num_hidden = num_hidden
        self._own_weights(i2h_bias_init)

    @property
    def state_info(self):
        return _nc_states(self._num_states, self._num_hidden)


class RNNCell(_GatedCell):
    """h' = activation(W_i x + b_i + W_h h + b_h)."""

    def __init__(self, num_hidden, activation="tanh", prefix="rnn_", params=None):
        super().__init__(num_hidden, prefix, params)
        self._activation = activation

    def __call__(self, inputs, states):
        states = _resolve_states(states, inputs)
        name, i2h, h2h = self._projections(inputs, states[0], 1)
        out = self._get_activation(i2h + h2h, self._activation, name="%sout" % name)
        return out, [out]


class LSTMCell(_GatedCell):
    """LSTM; ``forget_bias`` initializes the forget gate's slice of ``i2h_bias`` (LSTMBias)."""
    _num_states, _gate_names = 2, ["_i", "_f", "_c", "_o"]

    def __init__(self, num_hidden, prefix="lstm_", params=None, forget_bias=1.0):
        super().__init__(num_hidden, prefix, params, init.LSTMBias(forget_bias=forget_bias))

    def __call__(self, inputs, states):
        states = _resolve_states(states, inputs)
        name, i2h, h2h = self._projections(inputs, states[0], 4)
        g = symbol.SliceChannel(i2h + h2h, num_outputs=4, name="%sslice" % name)
        acts = [symbol.Activation(g[k], act_type=a, name="%s%s" % (name, s))
                for k, (a, s) in enumerate((("sigmoid", "i"), ("sigmoid", "f"), ("tanh", "c"),
                                            ("sigmoid", "o")))]
        i, f, c, o = acts
        next_c = symbol._internal._plus(f * states[1], i * c, name="%sstate" % name)
        next_h = symbol._internal._mul(o, symbol.Activation(next_c, act_type="tanh"),
                                       name="%sout" % name)
        return next_h, [next_h, next_c]


class GRUCell(_GatedCell):
    """GRU (reset gate applied to the h2h candidate, as MXNet's cuDNN-compatible form)."""
    _gate_names = ["_r", "_z", "_o"]

    def __init__(self, num_hidden, prefix="gru_", params=None):
        super().__init__(num_hidden, prefix, params)

    def __call__(self, inputs, states):
        states = _resolve_states(states, inputs)
        h = states[0]
        name, i2h, h2h = self._projections(inputs, h, 3, sep="_")
        i_r, i_z, i_n = symbol.SliceChannel(i2h, num_outputs=3, name="%s_i2h_slice" % name)
        h_r, h_z, h_n = symbol.SliceChannel(h2h, num_outputs=3, name="%s_h2h_slice" % name)
        r = symbol.Activation(i_r + h_r, act_type="sigmoid", name="%s_r_act" % name)
        z = symbol.Activation(i_z + h_z, act_type="sigmoid", name="%s_z_act" % name)
        n = symbol.Activation(i_n + r * h_n, act_type="tanh", name="%s_h_act" % name)
        out = symbol._internal._plus((1. - z) * n, z * h, name="%sout" % name)
        return out, [out]


class FusedRNNCell(BaseRNNCell):
    """The RNN operator over a whole sequence (modes rnn_relu, rnn_tanh, lstm, gru), with
    one packed ``<prefix>parameters`` vector (initialized by ``mx.init.FusedRNN``)."""

    def __init__(self, num_hidden, num_layers=1, mode="lstm", bidirectional=False, dropout=0.,
                 get_next_state=False, forget_bias=1.0, prefix=None, params=None):
        super().__init__(prefix="%s_" % mode if prefix is None else prefix, params=params)
        self._num_hidden = num_hidden
        self._num_layers = num_layers
        self._mode = mode
        self._bidirectional = bidirectional
        self._dropout = dropout
        self._get_next_state = get_next_state
        self._directions = ["l", "r"] if bidirectional else ["l"]
        self._parameter = self.params.get("parameters", init=init.FusedRNN(
            None, num_hidden, num_layers, mode, bidirectional, forget_bias))

    @property
    def state_info(self):
        n = 2 if self._mode == "lstm" else 1
        return [{"shape": (len(self._directions) * self._num_layers, 0, self._num_hidden),
                 "__layout__": "LNC"} for _ in range(n)]

    @property
    def _gate_names(self):
        return list(_GATES[self._mode])

    def _pieces(self, num_input):
        """(name, offset, shape) of every piece of the packed vector, in the operator's order."""
        h, d, pos, out = self._num_hidden, len(self._directions), 0, []
        for kind in ("weight", "bias"):
            for layer in range(self._num_layers):
                n_in = num_input if layer == 0 else d * h
                for direction in self._directions:
                    for group, cols in (("i2h", n_in), ("h2h", h)):
                        for gate in self._gate_names:
                            shape = (h, cols) if kind == "weight" else (h,)
                            out.append(("%s%s%d_%s%s_%s" % (self._prefix, direction, layer,
                                                            group, gate, kind), pos, shape))
                            pos += h * cols if kind == "weight" else h
        return out, pos

    def _num_input(self, size):
        h, d, m, L = self._num_hidden, len(self._directions), len(self._gate_names), \
            self._num_layers
        return size // d // h // m - (L - 1) * (h + d * h + 2) - h - 2

    def unpack_weights(self, args):
        args = dict(args)
        arr = args.pop(self._parameter.name)
        pieces, total = self._pieces(self._num_input(arr.size))
        assert total == arr.size, "Invalid parameters size for FusedRNNCell"
        for name, pos, shape in pieces:
            size = shape[0] * (shape[1] if len(shape) > 1 else 1)
            args[name] = arr[pos:pos + size].reshape(shape).copy()
        return args

    def pack_weights(self, args):
        from .. import ndarray as nd
        args = dict(args)
        w0 = args["%sl0_i2h%s_weight" % (self._prefix, self._gate_names[0])]
        pieces, total = self._pieces(w0.shape[1])
        flat = [args.pop(name).reshape((-1,)) for name, _, _ in pieces]
        args[self._parameter.name] = nd.concatenate(flat).astype(w0.dtype)
        assert args[self._parameter.name].size == total
        return args

    def __call__(self, inputs, states):
        raise NotImplementedError("FusedRNNCell cannot be stepped. Please use unroll")

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        self.reset()
        axis = layout.find("T")
        if not isinstance(inputs, symbol.Symbol):
            inputs = _merge_time(list(inputs), layout, True)
        if axis == 1:
            warnings.warn("NTC layout detected. Consider using TNC for FusedRNNCell for faster "
                          "speed")
            inputs = symbol.swapaxes(inputs, dim1=0, dim2=1)
        elif axis != 0:
            raise ValueError("Unsupported layout %s" % layout)
        states = self.begin_state() if begin_state is None else begin_state
        states = _resolve_states(states, inputs, batch_axis=1)
        kw = {"state": states[0]}
        if self._mode == "lstm":
            kw["state_cell"] = states[1]
        rnn = symbol.RNN(data=inputs, parameters=self._parameter, state_size=self._num_hidden,
                         num_layers=self._num_layers, bidirectional=self._bidirectional,
                         p=self._dropout, state_outputs=self._get_next_state, mode=self._mode,
                         name=self._prefix + "rnn", **kw)
        if self._get_next_state:
            n = 2 if self._mode == "lstm" else 1
            outputs, states = rnn[0], [rnn[k] for k in range(1, 1 + n)]
            for s in states:
                s._set_attr(__layout__="LNC")
        else:
            outputs, states = rnn, []
        if axis == 1:
            outputs = symbol.swapaxes(outputs, dim1=0, dim2=1)
        if merge_outputs is False:
            outputs = list(symbol.split(outputs, axis=axis, num_outputs=length, squeeze_axis=1))
        return outputs, states

    def unfuse(self):
        """The same network as a SequentialRNNCell of step cells (same parameter names after
        ``unpack_weights``)."""
        make = {"rnn_relu": lambda p: RNNCell(self._num_hidden, activation="relu", prefix=p),
                "rnn_tanh": lambda p: RNNCell(self._num_hidden, activation="tanh", prefix=p),
                "lstm": lambda p: LSTMCell(self._num_hidden, prefix=p),
                "gru": lambda p: GRUCell(self._num_hidden, prefix=p)}[self._mode]
        stack = SequentialRNNCell()
        for i in range(self._num_layers):
            if self._bidirectional:
                stack.add(BidirectionalCell(make("%sl%d_" % (self._prefix, i)),
                                            make("%sr%d_" % (self._prefix, i)),
                                            output_prefix="%sbi_l%d_" % (self._prefix, i)))
            else:
                stack.add(make("%sl%d_" % (self._prefix, i)))
            if self._dropout > 0 and i != self._num_layers - 1:
                stack.add(DropoutCell(self._dropout, prefix="%s_dropout%d_" % (self._prefix, i)))
        return stack


init._FUSED_RNN_CELL[0] = FusedRNNCell  # what mx.init.FusedRNN unpacks its vector with


class _Container(BaseRNNCell):
    """Cells holding child cells: states are the children's, concatenated."""

    def _adopt(self, cell):
        if self._override_cell_params:
            assert cell._own_params, \
                "Either specify params for %s or child cells, not both." % type(self).__name__
            cell.params._params.update(self.params._params)
        self.params._params.update(cell.params._params)

    @property
    def state_info(self):
        return [info for c in self._cells for info in c.state_info]

    def begin_state(self, **kwargs):
        check_unmodified(self, "ZoneoutCell")
        return [s for c in self._cells for s in c.begin_state(**kwargs)]

    def unpack_weights(self, args):
        for c in self._cells:
            args = c.unpack_weights(args)
        return args

    def pack_weights(self, args):
        for c in self._cells:
            args = c.pack_weights(args)
        return args


class SequentialRNNCell(_Container):
    """Cells stacked: each one's output is the next one's input."""

    def __init__(self, params=None):
        super().__init__(prefix="", params=params)
        self._override_cell_params = params is not None
        self._cells = []

    def add(self, cell):
        self._cells.append(cell)
        self._adopt(cell)

    def __call__(self, inputs, states):
        self._counter += 1
        pos, new_states = 0, []
        for cell in self._cells:
            assert not isinstance(cell, BidirectionalCell)
            n = len(cell.state_info)
            inputs, st = cell(inputs, states[pos:pos + n])
            pos += n
            new_states.extend(st)
        return inputs, new_states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        self.reset()
        states = self.begin_state() if begin_state is None else begin_state
        pos, new_states, last = 0, [], len(self._cells) - 1
        for i, cell in enumerate(self._cells):
            n = len(cell.state_info)
            inputs, st = cell.unroll(length, inputs=inputs, begin_state=states[pos:pos + n],
                                     layout=layout, merge_outputs=merge_outputs if i == last
                                     else None)
            pos += n
            new_states.extend(st)
        return inputs, new_states


class DropoutCell(BaseRNNCell):
    """Dropout on the inputs; no states."""

    def __init__(self, dropout, prefix="dropout_", params=None):
        super().__init__(prefix, params)
        assert isinstance(dropout, (int, float)), "dropout probability must be a number"
        self.dropout = dropout

    def __call__(self, inputs, states):
        if self.dropout > 0:
            inputs = symbol.Dropout(data=inputs, p=self.dropout)
        return inputs, states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        self.reset()
        if isinstance(inputs, symbol.Symbol) and merge_outputs is not False:
            return self(inputs, [])
        return super().unroll(length, inputs, begin_state=begin_state, layout=layout,
                              merge_outputs=merge_outputs)


class ModifierCell(BaseRNNCell):
    """Wraps a base cell (which must then not be used directly)."""

    def __init__(self, base_cell):
        super().__init__()
        base_cell._modified = True
        self.base_cell = base_cell

    @property
    def params(self):
        self._own_params = False
        return self.base_cell.params

    @property
    def state_info(self):
        return self.base_cell.state_info

    def begin_state(self, init_sym=symbol.zeros, **kwargs):
        check_unmodified(self, "DropoutCell")
        self.base_cell._modified = False
        try:
            return self.base_cell.begin_state(init_sym, **kwargs)
        finally:
            self.base_cell._modified = True

    def unpack_weights(self, args):
        return self.base_cell.unpack_weights(args)

    def pack_weights(self, args):
        return self.base_cell.pack_weights(args)


class ZoneoutCell(ModifierCell):
    """Zoneout: while training, keep each output/state unit's previous value with
    probability ``zoneout_outputs``/``zoneout_states``."""

    def __init__(self, base_cell, zoneout_outputs=0., zoneout_states=0.):
        assert not isinstance(base_cell, FusedRNNCell), \
            "FusedRNNCell doesn't support zoneout. Please unfuse first."
        check_zoneout_base(base_cell, BidirectionalCell)
        super().__init__(base_cell)
        self.zoneout_outputs = zoneout_outputs
        self.zoneout_states = zoneout_states
        self.prev_output = None

    def reset(self):
        super().reset()
        self.prev_output = None

    def __call__(self, inputs, states):
        out, new_states = self.base_cell(inputs, states)
        out = zoneout_output(symbol, out, self.prev_output, self.zoneout_outputs)
        if self.zoneout_states != 0.:  # the begin states are resolved only when they are used
            new_states = zoneout_states(symbol, new_states, _resolve_states(states, inputs),
                                        self.zoneout_states)
        self.prev_output = out
        return out, new_states


class ResidualCell(ModifierCell):
    """Output = base cell output + input (``<output>_plus_residual``)."""

    def __call__(self, inputs, states):
        out, states = self.base_cell(inputs, states)
        return symbol.elemwise_add(out, inputs, name="%s_plus_residual" % out.name), states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        self.reset()
        self.base_cell._modified = False
        try:
            outputs, states = self.base_cell.unroll(length, inputs=inputs,
                                                    begin_state=begin_state, layout=layout,
                                                    merge_outputs=merge_outputs)
        finally:
            self.base_cell._modified = True
        merged = isinstance(outputs, symbol.Symbol) if merge_outputs is None else merge_outputs
        if merged:
            if not isinstance(inputs, symbol.Symbol):
                inputs = _merge_time(list(inputs), layout, True)
            return symbol.elemwise_add(outputs, inputs,
                                       name="%s_plus_residual" % outputs.name), states
        steps, _ = _split_time(length, inputs, layout)
        return [symbol.elemwise_add(o, x, name="%s_plus_residual" % o.name)
                for o, x in zip(outputs, steps)], states


class BidirectionalCell(_Container):
    """A forward and a backward cell over the sequence; outputs concatenated per step
    (``<output_prefix>t<i>``, or ``<output_prefix>out`` merged)."""

    def __init__(self, l_cell, r_cell, params=None, output_prefix="bi_"):
        super().__init__("", params=params)
        self._output_prefix = output_prefix
        self._override_cell_params = params is not None
        if self._override_cell_params:
            assert l_cell._own_params and r_cell._own_params, \
                "Either specify params for BidirectionalCell or child cells, not both."
        for c in (l_cell, r_cell):
            self._adopt(c) if self._override_cell_params else \
                self.params._params.update(c.params._params)
        self._cells = [l_cell, r_cell]

    def __call__(self, inputs, states):
        raise NotImplementedError("Bidirectional cannot be stepped. Please use unroll")

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        self.reset()
        steps, axis = _split_time(length, inputs, layout)
        states = self.begin_state() if begin_state is None else begin_state
        left, right = self._cells
        nl = len(left.state_info)
        l_out, l_st = left.unroll(length, inputs=steps, begin_state=states[:nl], layout=layout,
                                  merge_outputs=merge_outputs)
        r_out, r_st = right.unroll(length, inputs=list(reversed(steps)),
                                   begin_state=states[nl:], layout=layout,
                                   merge_outputs=merge_outputs)
        if merge_outputs is None:
            merge_outputs = isinstance(l_out, symbol.Symbol) and isinstance(r_out, symbol.Symbol)
            if not merge_outputs:
                def as_list(o):
                    return list(symbol.SliceChannel(o, axis=axis, num_outputs=length,
                                                    squeeze_axis=1)) \
                        if isinstance(o, symbol.Symbol) else o
                l_out, r_out = as_list(l_out), as_list(r_out)
        if merge_outputs:
            outputs = symbol.Concat(l_out, symbol.reverse(r_out, axis=axis), dim=2,
                                    name="%sout" % self._output_prefix)
        else:
            outputs = [symbol.Concat(lo, ro, dim=1, name="%st%d" % (self._output_prefix, i))
                       for i, (lo, ro) in enumerate(zip(l_out, reversed(r_out)))]
        return outputs, [l_st, r_st]


class BaseConvRNNCell(BaseRNNCell):
    """Convolutional cells: i2h and h2h are Convolutions (h2h keeps the spatial size: odd
    kernels, 'same' padding); the state shape is the i2h convolution's output on
    ``input_shape`` with batch 0."""

    def __init__(self, input_shape, num_hidden, h2h_kernel, h2h_dilate, i2h_kernel, i2h_stride,
                 i2h_pad, i2h_dilate, i2h_weight_initializer, h2h_weight_initializer,
                 i2h_bias_initializer, h2h_bias_initializer, activation, prefix="",
                 params=None, conv_layout="NCHW"):
        super().__init__(prefix=prefix, params=params)
        assert h2h_kernel[0] % 2 == 1 and h2h_kernel[1] % 2 == 1, \
            "Only support odd number, get h2h_kernel= %s" % str(h2h_kernel)
        self._h2h = dict(kernel=h2h_kernel, dilate=h2h_dilate, stride=(1, 1),
                         pad=tuple(d * (k - 1) // 2 for d, k in zip(h2h_dilate, h2h_kernel)))
        self._i2h = dict(kernel=i2h_kernel, stride=i2h_stride, pad=i2h_pad, dilate=i2h_dilate)
        self._num_hidden = num_hidden
        self._input_shape = input_shape
        self._conv_layout = conv_layout
        self._activation = activation
        probe = symbol.Convolution(data=symbol.Variable("data"), num_filter=num_hidden,
                                   layout=conv_layout, **self._i2h)
        self._state_shape = (0,) + tuple(probe.infer_shape(data=input_shape)[1][0][1:])
        p = self.params
        self._iW = p.get("i2h_weight", init=i2h_weight_initializer)
        self._hW = p.get("h2h_weight", init=h2h_weight_initializer)
        self._iB = p.get("i2h_bias", init=i2h_bias_initializer)
        self._hB = p.get("h2h_bias", init=h2h_bias_initializer)

    @property
    def _num_gates(self):
        return len(self._gate_names)

    @property
    def state_info(self):
        return [{"shape": self._state_shape, "__layout__": self._conv_layout}
                for _ in range(self._num_states)]

    _num_states = 2

    def _conv_forward(self, inputs, states):
        self._counter += 1
        name = "%st%d_" % (self._prefix, self._counter)
        n = self._num_hidden * self._num_gates
        i2h = symbol.Convolution(name="%si2h" % name, data=inputs, num_filter=n,
                                 weight=self._iW, bias=self._iB, layout=self._conv_layout,
                                 **self._i2h)
        h2h = symbol.Convolution(name="%sh2h" % name, data=states[0], num_filter=n,
                                 weight=self._hW, bias=self._hB, layout=self._conv_layout,
                                 **self._h2h)
        return name, i2h, h2h


_LEAKY = functools.partial(symbol.LeakyReLU, act_type="leaky", slope=0.2)


def _conv_defaults(prefix):
    return dict(h2h_kernel=(3, 3), h2h_dilate=(1, 1), i2h_kernel=(3, 3), i2h_stride=(1, 1),
                i2h_pad=(1, 1), i2h_dilate=(1, 1), i2h_weight_initializer=None,
                h2h_weight_initializer=None, i2h_bias_initializer="zeros",
                h2h_bias_initializer="zeros", activation=_LEAKY, prefix=prefix, params=None,
                conv_layout="NCHW")


class _ConvCell(BaseConvRNNCell):
    """ConvRNNCell, ConvLSTMCell, ConvGRUCell: MXNet's defaults (prefix ``_conv_prefix``)
    under any keyword the caller leaves out."""

    def __init__(self, input_shape, num_hidden, **kwargs):
        super().__init__(input_shape, num_hidden,
                         **{**_conv_defaults(self._conv_prefix), **kwargs})


class ConvRNNCell(_ConvCell):
    """h' = activation(conv_i(x) + conv_h(h)); activation default LeakyReLU(slope=0.2)."""
    _num_states, _conv_prefix, _gate_names = 1, "ConvRNN_", ("",)

    def __call__(self, inputs, states):
        states = _resolve_states(states, inputs)
        name, i2h, h2h = self._conv_forward(inputs, states)
        out = self._get_activation(i2h + h2h, self._activation, name="%sout" % name)
        return out, [out]


class ConvLSTMCell(_ConvCell):
    """Convolutional LSTM (the candidate and the output use ``activation``)."""
    _conv_prefix, _gate_names = "ConvLSTM_", ["_i", "_f", "_c", "_o"]

    def __call__(self, inputs, states):
        states = _resolve_states(states, inputs)
        name, i2h, h2h = self._conv_forward(inputs, states)
        g = symbol.SliceChannel(i2h + h2h, num_outputs=4, axis=self._conv_layout.find("C"),
                                name="%sslice" % name)
        i = symbol.Activation(g[0], act_type="sigmoid", name="%si" % name)
        f = symbol.Activation(g[1], act_type="sigmoid", name="%sf" % name)
        c = self._get_activation(g[2], self._activation, name="%sc" % name)
        o = symbol.Activation(g[3], act_type="sigmoid", name="%so" % name)
        next_c = symbol._internal._plus(f * states[1], i * c, name="%sstate" % name)
        next_h = symbol._internal._mul(o, self._get_activation(next_c, self._activation),
                                       name="%sout" % name)
        return next_h, [next_h, next_c]


class ConvGRUCell(_ConvCell):
    """Convolutional GRU (the candidate uses ``activation``)."""
    _num_states, _conv_prefix, _gate_names = 1, "ConvGRU_", ["_r", "_z", "_o"]

    def __call__(self, inputs, states):
        states = _resolve_states(states, inputs)
        name, i2h, h2h = self._conv_forward(inputs, states)
        i_r, i_z, i_n = symbol.SliceChannel(i2h, num_outputs=3, name="%s_i2h_slice" % name)
        h_r, h_z, h_n = symbol.SliceChannel(h2h, num_outputs=3, name="%s_h2h_slice" % name)
        r = symbol.Activation(i_r + h_r, act_type="sigmoid", name="%s_r_act" % name)
        z = symbol.Activation(i_z + h_z, act_type="sigmoid", name="%s_z_act" % name)
        n = self._get_activation(i_n + r * h_n, self._activation, name="%s_h_act" % name)
        out = symbol._internal._plus((1. - z) * n, z * states[0], name="%sout" % name)
        return out, [out]
