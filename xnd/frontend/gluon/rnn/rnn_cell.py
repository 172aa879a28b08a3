"""Recurrent cells (gluon.rnn.RNNCell, LSTMCell, GRUCell, containers and modifiers),
with MXNet 1.9.1's parameter names (``i2h_weight``...), step-node names (``t<k>_...``)
and ``unroll`` semantics."""
import numbers

from ....ndarray import NDArray
from ..block import Block, HybridBlock
from ..nn.activations import LeakyReLU
from ..utils import _indent
# names MXNet's module holds by importing them (its users import them from here)
from ....base import numeric_types, string_types  # noqa: E402,F401
from ... import ndarray  # noqa: E402,F401
from .... import symbol  # noqa: E402,F401
from ..parameter import tensor_types  # noqa: E402,F401

__all__ = ["RecurrentCell", "HybridRecurrentCell", "RNNCell", "LSTMCell", "GRUCell",
           "SequentialRNNCell", "HybridSequentialRNNCell", "DropoutCell", "ModifierCell",
           "ZoneoutCell", "ResidualCell", "BidirectionalCell"]


def _nd():
    from ... import ndarray as nd
    return nd


def _sym():
    from .... import symbol
    return symbol


def _is_sym(x):
    return isinstance(x, _sym().Symbol)


def _as_list(obj):
    return list(obj) if isinstance(obj, (list, tuple)) else [obj]


def _call_state_func(func, name, info):
    nd = _nd()
    if func is nd.zeros or func is nd.ones or func is getattr(nd, "full", None):
        kw = {k: v for k, v in info.items() if k not in ("__layout__",)}
        shape = kw.pop("shape")
        return func(shape, **kw)
    return func(name=name, **info)


def _nc_states(batch_size, *sizes):
    """The state_info of a cell whose states are (batch, size) matrices, one per size."""
    return [{"shape": (batch_size, size), "__layout__": "NC"} for size in sizes]


def check_unmodified(cell, example):
    """A cell wrapped by a modifier cell is used through the modifier only (MXNet's message,
    which names ZoneoutCell or DropoutCell as the example); shared with mx.rnn's cells."""
    assert not cell._modified, \
        f"After applying modifier cells (e.g. {example}) the base cell cannot be called " \
        "directly. Call the modifier cell instead."


def _format_sequence(length, inputs, layout, merge, in_layout=None):
    assert inputs is not None, \
        "unroll(inputs=None) has been deprecated. Please create input variables outside unroll."
    nd, sym = _nd(), _sym()
    axis = layout.find("T")
    batch_axis = layout.find("N")
    batch_size = 0
    in_axis = in_layout.find("T") if in_layout is not None else axis
    if _is_sym(inputs):
        F = sym
        if merge is False:
            assert len(inputs.list_outputs()) == 1, \
                "unroll doesn't allow grouped symbol as input. Please convert to list with " \
                "list(inputs) first or let unroll handle splitting."
            inputs = list(sym.split(inputs, axis=in_axis, num_outputs=length, squeeze_axis=1))
    elif isinstance(inputs, NDArray):
        F = nd
        batch_size = inputs.shape[batch_axis]
        if merge is False:
            assert length is None or length == inputs.shape[in_axis]
            inputs = _as_list(nd.split(inputs, axis=in_axis, num_outputs=inputs.shape[in_axis],
                                       squeeze_axis=1))
    else:
        assert length is None or len(inputs) == length
        if _is_sym(inputs[0]):
            F = sym
        else:
            F = nd
            batch_size = inputs[0].shape[0]  # MXNet: a list of steps is batch-major
        if merge is True:
            inputs = [F.expand_dims(i, axis=axis) for i in inputs]
            inputs = F.Concat(*inputs, dim=axis)
            in_axis = axis
    if (isinstance(inputs, NDArray) or _is_sym(inputs)) and axis != in_axis:
        inputs = F.swapaxes(inputs, dim1=axis, dim2=in_axis)
    return inputs, axis, F, batch_size


def _mask_sequence_variable_length(F, data, length, valid_length, time_axis, merge):
    assert valid_length is not None
    if not (isinstance(data, NDArray) or _is_sym(data)):
        data = F.stack(*data, axis=time_axis)
    outputs = F.SequenceMask(data, sequence_length=valid_length, use_sequence_length=True,
                             axis=time_axis)
    if not merge:
        outputs = _as_list(F.split(outputs, num_outputs=length, axis=time_axis,
                                   squeeze_axis=True))
    return outputs


def _reverse_sequences(sequences, unroll_step, valid_length=None):
    if valid_length is None:
        return list(reversed(sequences))
    F = _sym() if _is_sym(sequences[0]) else _nd()
    reversed_sequences = F.SequenceReverse(F.stack(*sequences, axis=0),
                                           sequence_length=valid_length,
                                           use_sequence_length=True)
    steps = F.split(reversed_sequences, axis=0, num_outputs=unroll_step, squeeze_axis=True)
    # a Symbol of several outputs is one object: its steps are its outputs
    return list(steps) if _is_sym(steps) else _as_list(steps)


def _get_begin_state(cell, F, begin_state, inputs, batch_size, time_axis=None):
    if begin_state is None:
        if F is _nd():
            ctx = inputs.context if isinstance(inputs, NDArray) else inputs[0].context
            dtype = inputs.dtype if isinstance(inputs, NDArray) else inputs[0].dtype
            begin_state = cell.begin_state(func=_nd().zeros, batch_size=batch_size, ctx=ctx,
                                           dtype=dtype)
        else:
            # MXNet makes zeros of shape (0, H) and lets shape inference fill the batch; xnd
            # evaluates graphs with concrete shapes, so the zeros are derived from the input
            x0 = inputs if _is_sym(inputs) and len(inputs.list_outputs()) == 1 else inputs[0]
            if x0 is inputs and time_axis is not None:
                # a whole sequence (a stack unrolls its cells on it): one step's (N, C)
                x0 = F.squeeze(F.slice_axis(x0, axis=time_axis, begin=0, end=1), axis=time_axis)
            base = F.zeros_like(F.slice_axis(x0, axis=-1, begin=0, end=1))
            begin_state = []
            for info in cell.state_info(0):
                shape = info["shape"]
                if len(shape) > 2 and info.get("__layout__", "").find("N") == 0:
                    begin_state.append(_batch_first_zeros(F, x0, shape))
                    continue
                st = F.broadcast_axis(base, axis=len(shape) - 1, size=shape[-1])
                for ax, d in enumerate(shape[:-2]):
                    st = F.broadcast_axis(F.expand_dims(st, axis=ax), axis=ax, size=d)
                begin_state.append(st)
    return begin_state


def _batch_first_zeros(F, x0, shape):
    """Symbolic zeros of a batch-first state shape of any rank (the convolutional cells'
    (0, C, *spatial)), the batch size taken from the step input ``x0``'s first axis: x0's
    (N, 1) column of zeros, reshaped to (N, 1, ..., 1) and broadcast (0 keeps the batch)."""
    column = F.zeros_like(F.slice_axis(F.reshape(x0, shape=(0, -1)), axis=1, begin=0, end=1))
    column = F.reshape(column, shape=(0,) + (1,) * (len(shape) - 1))
    return F.broadcast_to(column, shape=(0,) + tuple(shape[1:]))


class RecurrentCell(Block):
    """Abstract base class of RNN cells."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._modified = False
        self.reset()

    def reset(self):
        """Reset before re-using the cell for another graph."""
        self._init_counter = -1
        self._counter = -1
        for cell in self._children.values():
            cell.reset()

    def state_info(self, batch_size=0):
        raise NotImplementedError()

    def begin_state(self, batch_size=0, func=None, **kwargs):
        """Initial states (zeros by default) for a batch of ``batch_size``."""
        check_unmodified(self, "ZoneoutCell")
        if func is None:
            func = _nd().zeros
        states = []
        for info in self.state_info(batch_size):
            self._init_counter += 1
            info = dict(info) if info is not None else {}
            info.update(kwargs)
            states.append(_call_state_func(func, f"{self._prefix}begin_state_{self._init_counter}",
                                           info))
        return states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None,
               valid_length=None):
        """Run ``length`` steps; returns (outputs, final states)."""
        self.reset()
        inputs, axis, F, batch_size = _format_sequence(length, inputs, layout, False)
        begin_state = _get_begin_state(self, F, begin_state, inputs, batch_size)
        states = begin_state
        outputs, all_states = [], []
        for i in range(length):
            output, states = self(inputs[i], states)
            outputs.append(output)
            if valid_length is not None:
                all_states.append(states)
        if valid_length is not None:
            states = [F.SequenceLast(F.stack(*ele, axis=0), sequence_length=valid_length,
                                     use_sequence_length=True, axis=0)
                      for ele in zip(*all_states)]
            outputs = _mask_sequence_variable_length(F, outputs, length, valid_length, axis, True)
        outputs, _, _, _ = _format_sequence(length, outputs, layout, merge_outputs)
        return outputs, states

    def _get_activation(self, F, inputs, activation, **kwargs):
        func = {"tanh": F.tanh, "relu": F.relu, "sigmoid": F.sigmoid,
                "softsign": F.softsign}.get(activation) if isinstance(activation, str) else None
        if func:
            return func(inputs, **kwargs)
        if isinstance(activation, str):
            return F.Activation(inputs, act_type=activation, **kwargs)
        if isinstance(activation, LeakyReLU):
            return F.LeakyReLU(inputs, act_type="leaky", slope=activation._alpha, **kwargs)
        return activation(inputs, **kwargs)

    def forward(self, inputs, states):
        self._counter += 1
        return super().forward(inputs, states)


class HybridRecurrentCell(RecurrentCell, HybridBlock):
    """RecurrentCell that supports hybridize."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError


def _cell_repr(self, with_activation=False):
    shape = self.i2h_weight.shape
    mapping = "{0} -> {1}".format(shape[1] if shape[1] else None, shape[0])
    if with_activation:
        return f"{self.__class__.__name__}({mapping}, {self._activation})"
    return f"{self.__class__.__name__}({mapping})"


class _GatedCell(HybridRecurrentCell):
    """RNNCell, LSTMCell, GRUCell: ``_gates`` packed gates, ``_num_states`` (batch, hidden)
    states, names aliased ``_cell_alias``; LSTMCell's and GRUCell's signature."""
    _gates, _num_states, _cell_alias = 1, 1, "rnn"

    def __init__(self, hidden_size, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", input_size=0,
                 prefix=None, params=None, activation="tanh", recurrent_activation="sigmoid"):
        super().__init__(prefix=prefix, params=params)
        self._make_params(hidden_size, input_size, i2h_weight_initializer,
                          h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer)
        self._activation = activation
        self._recurrent_activation = recurrent_activation

    def state_info(self, batch_size=0):
        return _nc_states(batch_size, *[self._hidden_size] * self._num_states)

    def _alias(self):
        return self._cell_alias

    def __repr__(self):
        return _cell_repr(self)

    def _make_params(self, hidden_size, input_size, i2h_weight_initializer,
                     h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer):
        ng = self._gates
        self._hidden_size = hidden_size
        self._input_size = input_size
        self.i2h_weight = self.params.get("i2h_weight", shape=(ng * hidden_size, input_size),
                                          init=i2h_weight_initializer, allow_deferred_init=True)
        self.h2h_weight = self.params.get("h2h_weight", shape=(ng * hidden_size, hidden_size),
                                          init=h2h_weight_initializer, allow_deferred_init=True)
        self.i2h_bias = self.params.get("i2h_bias", shape=(ng * hidden_size,),
                                        init=i2h_bias_initializer, allow_deferred_init=True)
        self.h2h_bias = self.params.get("h2h_bias", shape=(ng * hidden_size,),
                                        init=h2h_bias_initializer, allow_deferred_init=True)

    def _fc(self, F, prefix, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        n = self._gates * self._hidden_size
        i2h = F.FullyConnected(data=inputs, weight=i2h_weight, bias=i2h_bias, num_hidden=n,
                               name=prefix + "i2h")
        h2h = F.FullyConnected(data=states[0], weight=h2h_weight, bias=h2h_bias, num_hidden=n,
                               name=prefix + "h2h")
        return i2h, h2h


class RNNCell(_GatedCell):
    """Elman RNN cell: ``h' = act(W_i x + b_i + W_h h + b_h)``."""

    def __init__(self, hidden_size, activation="tanh", i2h_weight_initializer=None,
                 h2h_weight_initializer=None, i2h_bias_initializer="zeros",
                 h2h_bias_initializer="zeros", input_size=0, prefix=None, params=None):
        super().__init__(hidden_size, i2h_weight_initializer, h2h_weight_initializer,
                         i2h_bias_initializer, h2h_bias_initializer, input_size, prefix, params,
                         activation)

    def __repr__(self):
        return _cell_repr(self, True)

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = f"t{self._counter}_"
        i2h, h2h = self._fc(F, prefix, inputs, states, i2h_weight, h2h_weight, i2h_bias,
                            h2h_bias)
        plus = F.elemwise_add(i2h, h2h, name=prefix + "plus0")
        output = self._get_activation(F, plus, self._activation, name=prefix + "out")
        return output, [output]


class LSTMCell(_GatedCell):
    """LSTM cell (gates in MXNet's order i, f, g, o)."""

    _gates, _num_states, _cell_alias = 4, 2, "lstm"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = f"t{self._counter}_"
        i2h, h2h = self._fc(F, prefix, inputs, states, i2h_weight, h2h_weight, i2h_bias,
                            h2h_bias)
        gates = F.elemwise_add(i2h, h2h, name=prefix + "plus0")
        sl = F.SliceChannel(gates, num_outputs=4, name=prefix + "slice")
        ra = self._recurrent_activation
        in_gate = self._get_activation(F, sl[0], ra, name=prefix + "i")
        forget_gate = self._get_activation(F, sl[1], ra, name=prefix + "f")
        in_transform = self._get_activation(F, sl[2], self._activation, name=prefix + "c")
        out_gate = self._get_activation(F, sl[3], ra, name=prefix + "o")
        next_c = F.elemwise_add(F.elemwise_mul(forget_gate, states[1], name=prefix + "mul0"),
                                F.elemwise_mul(in_gate, in_transform, name=prefix + "mul1"),
                                name=prefix + "state")
        next_h = F.elemwise_mul(out_gate,
                                self._get_activation(F, next_c, self._activation,
                                                     name=prefix + "activation0"),
                                name=prefix + "out")
        return next_h, [next_h, next_c]


class GRUCell(_GatedCell):
    """GRU cell (gates r, z, n as in MXNet / cuDNN)."""

    _gates, _cell_alias = 3, "gru"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = f"t{self._counter}_"
        prev_h = states[0]
        i2h, h2h = self._fc(F, prefix, inputs, states, i2h_weight, h2h_weight, i2h_bias,
                            h2h_bias)
        i2h_r, i2h_z, i2h = F.SliceChannel(i2h, num_outputs=3, name=prefix + "i2h_slice")
        h2h_r, h2h_z, h2h = F.SliceChannel(h2h, num_outputs=3, name=prefix + "h2h_slice")
        ra = self._recurrent_activation
        reset_gate = self._get_activation(F, F.elemwise_add(i2h_r, h2h_r, name=prefix + "plus0"),
                                          ra, name=prefix + "r_act")
        update_gate = self._get_activation(F, F.elemwise_add(i2h_z, h2h_z, name=prefix + "plus1"),
                                           ra, name=prefix + "z_act")
        next_h_tmp = self._get_activation(
            F, F.elemwise_add(i2h, F.elemwise_mul(reset_gate, h2h, name=prefix + "mul0"),
                              name=prefix + "plus2"),
            self._activation, name=prefix + "h_act")
        ones = F.ones_like(update_gate, name=prefix + "ones_like0")
        next_h = F.elemwise_add(
            F.elemwise_mul(F.elemwise_sub(ones, update_gate, name=prefix + "minus0"), next_h_tmp,
                           name=prefix + "mul1"),
            F.elemwise_mul(update_gate, prev_h, name=prefix + "mul20"), name=prefix + "out")
        return next_h, [next_h]


def _seq_repr(self):
    modstr = "\n".join(f"({i}): {_indent(repr(m), 2)}" for i, m in self._children.items())
    return f"{self.__class__.__name__}(\n{modstr}\n)"


class _ChildStates:
    """States of a cell made of child cells: the children's, concatenated in order."""
    _modifier_example = "ZoneoutCell"  # named in MXNet's message, which differs per class

    def state_info(self, batch_size=0):
        out = []
        for c in self._children.values():
            out.extend(c.state_info(batch_size))
        return out

    def begin_state(self, **kwargs):
        check_unmodified(self, self._modifier_example)
        out = []
        for c in self._children.values():
            out.extend(c.begin_state(**kwargs))
        return out


class _SequentialMixin(_ChildStates):
    """SequentialRNNCell and HybridSequentialRNNCell: a stack of cells, stepped in order."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    __repr__ = _seq_repr

    def __call__(self, inputs, states):
        self._counter += 1
        return self._step(inputs, states)

    def add(self, cell):
        """Append a cell to the stack."""
        self.register_child(cell)

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None,
               valid_length=None):
        self.reset()
        inputs, axis, F, batch_size = _format_sequence(length, inputs, layout, None)
        num_cells = len(self._children)
        begin_state = _get_begin_state(self, F, begin_state, inputs, batch_size, axis)
        p = 0
        next_states = []
        for i, cell in enumerate(self._children.values()):
            n = len(cell.state_info())
            states = begin_state[p:p + n]
            p += n
            inputs, states = cell.unroll(length, inputs=inputs, begin_state=states, layout=layout,
                                         merge_outputs=None if i < num_cells - 1 else
                                         merge_outputs, valid_length=valid_length)
            next_states.extend(states)
        return inputs, next_states

    def _step(self, inputs, states):
        next_states = []
        p = 0
        for cell in self._children.values():
            assert not isinstance(cell, BidirectionalCell)
            n = len(cell.state_info())
            state = states[p:p + n]
            p += n
            inputs, state = cell(inputs, state)
            next_states.append(state)
        return inputs, sum(next_states, [])

    def __getitem__(self, i):
        return self._children[str(i)]

    def __len__(self):
        return len(self._children)


class SequentialRNNCell(_SequentialMixin, RecurrentCell):
    """Stacks cells; ``unroll`` runs them layer after layer."""

    def hybrid_forward(self, *args, **kwargs):
        raise NotImplementedError


class HybridSequentialRNNCell(_SequentialMixin, HybridRecurrentCell):
    """Stacks hybrid cells."""

    def hybrid_forward(self, F, inputs, states):
        return self._step(inputs, states)


class DropoutCell(HybridRecurrentCell):
    """Applies Dropout to the input (no state)."""

    def __init__(self, rate, axes=(), prefix=None, params=None):
        super().__init__(prefix, params)
        assert isinstance(rate, numbers.Number), "rate must be a number"
        self._rate = rate
        self._axes = axes

    def __repr__(self):
        return f"{self.__class__.__name__}(rate={self._rate}, axes={self._axes})"

    def state_info(self, batch_size=0):
        return []

    def _alias(self):
        return "dropout"

    def hybrid_forward(self, F, inputs, states):
        if self._rate > 0:
            inputs = F.Dropout(data=inputs, p=self._rate, axes=self._axes,
                               name=f"t{self._counter}_fwd")
        return inputs, states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None,
               valid_length=None):
        self.reset()
        inputs, _, F, _ = _format_sequence(length, inputs, layout, merge_outputs)
        if isinstance(inputs, NDArray) or _is_sym(inputs):
            return self.hybrid_forward(F, inputs, begin_state if begin_state else [])
        return super().unroll(length, inputs, begin_state=begin_state, layout=layout,
                              merge_outputs=merge_outputs, valid_length=None)


class ModifierCell(HybridRecurrentCell):
    """Base class of cells that modify another cell (Zoneout, Residual)."""

    def __init__(self, base_cell):
        assert not base_cell._modified, \
            f"Cell {base_cell.name} is already modified. One cell cannot be modified twice"
        base_cell._modified = True
        super().__init__(prefix=base_cell.prefix + self._alias(), params=None)
        self.base_cell = base_cell

    @property
    def params(self):
        return self.base_cell.params

    def state_info(self, batch_size=0):
        return self.base_cell.state_info(batch_size)

    def begin_state(self, func=None, **kwargs):
        check_unmodified(self, "DropoutCell")
        self.base_cell._modified = False
        begin = self.base_cell.begin_state(func=func, **kwargs)
        self.base_cell._modified = True
        return begin

    def hybrid_forward(self, F, inputs, states):
        raise NotImplementedError

    def __repr__(self):
        return f"{self.__class__.__name__}({self.base_cell})"


class ZoneoutCell(ModifierCell):
    """Zoneout on outputs and states."""

    def __init__(self, base_cell, zoneout_outputs=0.0, zoneout_states=0.0):
        check_zoneout_base(base_cell, BidirectionalCell)
        super().__init__(base_cell)
        self.zoneout_outputs = zoneout_outputs
        self.zoneout_states = zoneout_states
        self._prev_output = None

    def __repr__(self):
        return (f"{self.__class__.__name__}(p_out={self.zoneout_outputs}, "
                f"p_state={self.zoneout_states}, {self.base_cell})")

    def _alias(self):
        return "zoneout"

    def reset(self):
        super().reset()
        self._prev_output = None

    def hybrid_forward(self, F, inputs, states):
        next_output, next_states = self.base_cell(inputs, states)
        output = zoneout_output(F, next_output, self._prev_output, self.zoneout_outputs)
        states = zoneout_states(F, next_states, states, self.zoneout_states)
        self._prev_output = output
        return output, states


def check_zoneout_base(base_cell, bidirectional):
    """ZoneoutCell steps its base cell, which a BidirectionalCell cannot do (MXNet's message);
    shared with mx.rnn's ZoneoutCell."""
    assert not isinstance(base_cell, bidirectional), \
        "BidirectionalCell doesn't support zoneout since it doesn't support step. Please " \
        "add ZoneoutCell to the cells underneath instead."


def _zoneout_mask(F, p, like):
    return F.Dropout(F.ones_like(like), p=p)


def zoneout_output(F, output, prev_output, p):
    """One zoneout step of a cell's output (Gluon's and mx.rnn's ZoneoutCell): each unit keeps
    its new value where a Dropout mask of ones is nonzero, else its previous one (the first
    previous output is zeros); rate 0 keeps the new output without drawing a mask."""
    if prev_output is None:
        prev_output = F.zeros_like(output)
    if p == 0.0:
        return output
    return F.where(_zoneout_mask(F, p, output), output, prev_output)


def zoneout_states(F, new_states, old_states, p):
    """The same step for the states (old_states: the states the step began with)."""
    if p == 0.0:
        return new_states
    return [F.where(_zoneout_mask(F, p, new_s), new_s, old_s)
            for new_s, old_s in zip(new_states, old_states)]


class ResidualCell(ModifierCell):
    """Adds the input to the base cell's output."""

    def hybrid_forward(self, F, inputs, states):
        output, states = self.base_cell(inputs, states)
        output = F.elemwise_add(output, inputs, name=f"t{self._counter}_fwd")
        return output, states

    def _alias(self):
        return "residual"

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None,
               valid_length=None):
        self.reset()
        self.base_cell._modified = False
        outputs, states = self.base_cell.unroll(length, inputs=inputs, begin_state=begin_state,
                                                layout=layout, merge_outputs=merge_outputs,
                                                valid_length=valid_length)
        self.base_cell._modified = True
        merge_outputs = isinstance(outputs, NDArray) or _is_sym(outputs) \
            if merge_outputs is None else merge_outputs
        inputs, axis, F, _ = _format_sequence(length, inputs, layout, merge_outputs)
        if valid_length is not None:
            inputs = _mask_sequence_variable_length(F, inputs, length, valid_length, axis,
                                                    merge_outputs)
        if merge_outputs:
            outputs = F.elemwise_add(outputs, inputs)
        else:
            outputs = [F.elemwise_add(i, j) for i, j in zip(outputs, inputs)]
        return outputs, states


class BidirectionalCell(_ChildStates, HybridRecurrentCell):
    """Runs ``l_cell`` forward and ``r_cell`` backward over the sequence (unroll only)."""

    def __init__(self, l_cell, r_cell, output_prefix="bi_"):
        super().__init__(prefix="", params=None)
        self.register_child(l_cell, "l_cell")
        self.register_child(r_cell, "r_cell")
        self._output_prefix = output_prefix

    def __call__(self, inputs, states):
        raise NotImplementedError("Bidirectional cannot be stepped. Please use unroll")

    def __repr__(self):
        return (f"{self.__class__.__name__}(forward={self._children['l_cell']}, "
                f"backward={self._children['r_cell']})")

    _modifier_example = "DropoutCell"

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None,
               valid_length=None):
        self.reset()
        inputs, axis, F, batch_size = _format_sequence(length, inputs, layout, False)
        reversed_inputs = list(_reverse_sequences(inputs, length, valid_length))
        begin_state = _get_begin_state(self, F, begin_state, inputs, batch_size)
        states = begin_state
        l_cell, r_cell = self._children.values()
        nl = len(l_cell.state_info(batch_size))
        l_outputs, l_states = l_cell.unroll(length, inputs=inputs, begin_state=states[:nl],
                                            layout=layout, merge_outputs=merge_outputs,
                                            valid_length=valid_length)
        r_outputs, r_states = r_cell.unroll(length, inputs=reversed_inputs,
                                            begin_state=states[nl:], layout=layout,
                                            merge_outputs=False, valid_length=valid_length)
        reversed_r_outputs = _reverse_sequences(r_outputs, length, valid_length)
        if merge_outputs is None:
            merge_outputs = isinstance(l_outputs, NDArray) or _is_sym(l_outputs)
            l_outputs, _, _, _ = _format_sequence(None, l_outputs, layout, merge_outputs)
            reversed_r_outputs, _, _, _ = _format_sequence(None, reversed_r_outputs, layout,
                                                           merge_outputs)
        if merge_outputs:
            if not (isinstance(reversed_r_outputs, NDArray) or _is_sym(reversed_r_outputs)):
                reversed_r_outputs = F.stack(*reversed_r_outputs, axis=axis)
            outputs = F.concat(l_outputs, reversed_r_outputs, dim=2,
                               name=f"{self._output_prefix}out")
        else:
            outputs = [F.concat(l_o, r_o, dim=1, name=f"{self._output_prefix}t{i}")
                       for i, (l_o, r_o) in enumerate(zip(l_outputs, reversed_r_outputs))]
        if valid_length is not None:
            outputs = _mask_sequence_variable_length(F, outputs, length, valid_length, axis,
                                                     merge_outputs)
        return outputs, l_states + r_states
