"""mx.gluon.contrib.rnn.rnn_cell: VariationalDropoutCell, LSTMPCell and dynamic_unroll
(MXNet 1.9.1)."""
from ...rnn.rnn_cell import (BidirectionalCell, HybridRecurrentCell, ModifierCell,
                             SequentialRNNCell, _format_sequence, _get_begin_state,
                             _mask_sequence_variable_length, _nc_states)
from ...parameter import tensor_types  # noqa: F401  (MXNet's module imports it)


class VariationalDropoutCell(ModifierCell):
    """Dropout with one mask per sequence (Gal & Ghahramani 2016) on the inputs, the first
    state and the outputs of `base_cell`. Stepping by hand draws the masks at the first
    step and keeps them until ``reset()``; ``unroll`` without state dropout drops whole
    time axes of the merged inputs/outputs in one Dropout each, as MXNet does."""

    def __init__(self, base_cell, drop_inputs=0., drop_states=0., drop_outputs=0.):
        if drop_states and isinstance(base_cell, BidirectionalCell):
            raise AssertionError("BidirectionalCell doesn't support variational state dropout. "
                                 "Please add VariationalDropoutCell to the cells underneath "
                                 "instead.")
        if drop_states and isinstance(base_cell, SequentialRNNCell) and \
                getattr(base_cell, "_bidirectional", False):
            raise AssertionError("Bidirectional SequentialRNNCell doesn't support variational "
                                 "state dropout. Please add VariationalDropoutCell to the cells "
                                 "underneath instead.")
        super().__init__(base_cell)
        self.drop_inputs, self.drop_states, self.drop_outputs = drop_inputs, drop_states, drop_outputs
        self._clear_masks()

    def _clear_masks(self):
        self.drop_inputs_mask = self.drop_states_mask = self.drop_outputs_mask = None

    def _alias(self):
        return "vardrop"

    def reset(self):
        super().reset()
        self._clear_masks()

    @staticmethod
    def _mask(F, like, p):
        return F.Dropout(F.ones_like(like), p=p)

    def hybrid_forward(self, F, inputs, states):
        if self.drop_states and self.drop_states_mask is None:
            self.drop_states_mask = self._mask(F, states[0], self.drop_states)
        if self.drop_inputs and self.drop_inputs_mask is None:
            self.drop_inputs_mask = self._mask(F, inputs, self.drop_inputs)
        if self.drop_states:
            states = [states[0] * self.drop_states_mask] + list(states[1:])
        if self.drop_inputs:
            inputs = inputs * self.drop_inputs_mask
        output, next_states = self.base_cell(inputs, states)
        if self.drop_outputs:
            if self.drop_outputs_mask is None:
                self.drop_outputs_mask = self._mask(F, output, self.drop_outputs)
            output = output * self.drop_outputs_mask
        return output, next_states

    def __repr__(self):
        return f"{self.__class__.__name__}(p_out = {self.drop_outputs}, " \
               f"p_state = {self.drop_states})"

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None,
               valid_length=None):
        if self.drop_states:  # the state mask must be applied step by step
            return super().unroll(length, inputs, begin_state, layout, merge_outputs,
                                  valid_length=valid_length)
        self.reset()
        inputs, axis, F, batch_size = _format_sequence(length, inputs, layout, True)
        # the zero states come from this cell (the modified base cell refuses begin_state)
        states = _get_begin_state(self, F, begin_state, inputs, batch_size, axis)
        if self.drop_inputs:
            inputs = F.Dropout(inputs, p=self.drop_inputs, axes=(axis,))
        outputs, states = self.base_cell.unroll(length, inputs, states, layout,
                                                merge_outputs=True, valid_length=valid_length)
        if self.drop_outputs:
            outputs = F.Dropout(outputs, p=self.drop_outputs, axes=(axis,))
        if merge_outputs is None:
            merge_outputs = not isinstance(outputs, (list, tuple))
        outputs, _, _, _ = _format_sequence(length, outputs, layout, merge_outputs)
        if valid_length is not None:
            outputs = _mask_sequence_variable_length(F, outputs, length, valid_length, axis,
                                                     merge_outputs)
        return outputs, states


class LSTMPCell(HybridRecurrentCell):
    """LSTM with a projected recurrent state (Sak et al. 2014): r_t = W_hr h_t feeds the
    next step's gates and is the output; states are [r, c] of sizes (projection_size,
    hidden_size). Gate order i, f, c, o as in LSTMCell; parameters i2h/h2h/h2r_weight,
    i2h/h2h_bias."""

    def __init__(self, hidden_size, projection_size, i2h_weight_initializer=None,
                 h2h_weight_initializer=None, h2r_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", input_size=0,
                 prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._hidden_size, self._input_size = hidden_size, input_size
        self._projection_size = projection_size
        n = 4 * hidden_size
        get = self.params.get
        self.i2h_weight = get("i2h_weight", shape=(n, input_size), init=i2h_weight_initializer,
                              allow_deferred_init=True)
        self.h2h_weight = get("h2h_weight", shape=(n, projection_size),
                              init=h2h_weight_initializer, allow_deferred_init=True)
        self.h2r_weight = get("h2r_weight", shape=(projection_size, hidden_size),
                              init=h2r_weight_initializer, allow_deferred_init=True)
        self.i2h_bias = get("i2h_bias", shape=(n,), init=i2h_bias_initializer,
                            allow_deferred_init=True)
        self.h2h_bias = get("h2h_bias", shape=(n,), init=h2h_bias_initializer,
                            allow_deferred_init=True)

    def state_info(self, batch_size=0):
        return _nc_states(batch_size, self._projection_size, self._hidden_size)

    def _alias(self):
        return "lstmp"

    def __repr__(self):
        shape, proj = self.i2h_weight.shape, self.h2r_weight.shape
        return f"{self.__class__.__name__}({shape[1] or None} -> {shape[0]} -> {proj[0]})"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, h2r_weight, i2h_bias,
                       h2h_bias):
        p = f"t{self._counter}_"
        n = 4 * self._hidden_size
        gates = F.FullyConnected(data=inputs, weight=i2h_weight, bias=i2h_bias, num_hidden=n,
                                 name=p + "i2h") + \
            F.FullyConnected(data=states[0], weight=h2h_weight, bias=h2h_bias, num_hidden=n,
                             name=p + "h2h")
        g = F.SliceChannel(gates, num_outputs=4, name=p + "slice")
        i, f, o = (F.Activation(g[k], act_type="sigmoid", name=p + s)
                   for k, s in ((0, "i"), (1, "f"), (3, "o")))
        c_in = F.Activation(g[2], act_type="tanh", name=p + "c")
        next_c = F.elemwise_add(f * states[1], i * c_in, name=p + "state")
        hidden = F.elemwise_mul(o, F.Activation(next_c, act_type="tanh"), name=p + "hidden")
        next_r = F.FullyConnected(data=hidden, num_hidden=self._projection_size,
                                  weight=h2r_weight, no_bias=True, name=p + "out")
        return next_r, [next_r, next_c]


def dynamic_unroll(cell, inputs, begin_state, drop_inputs=0, drop_outputs=0, layout="TNC",
                   valid_length=None):
    """Run ``cell`` over the time axis of ``inputs`` with ``F.contrib.foreach`` (MXNet
    1.9.1's contrib.rnn.rnn_cell.dynamic_unroll): eagerly a Python loop, symbolically (a
    hybridized block) one ``_foreach`` node, a ``lax.scan`` whatever the sequence length.

    ``layout`` 'TNC' or 'NTC' (the time axis is moved to the front and back). With
    ``valid_length`` (batch,), a sample's states stop changing after its last valid step
    (an iteration counter rides along as an extra state) and its padded outputs are zeros.
    Dropout on inputs/outputs shares one mask along ``axes=(time axis,)`` as MXNet's does
    (the axis of ``layout``, even after the inputs were moved to time-major)."""
    inputs, axis, F, _ = _format_sequence(0, inputs, layout, True)
    axes = None
    if axis != 0:
        axes = list(range(len(layout)))
        axes[0], axes[axis] = axes[axis], axes[0]
        inputs = F.transpose(inputs, axes=axes)
    states = begin_state
    if drop_inputs:
        inputs = F.Dropout(inputs, p=drop_inputs, axes=(axis,))
    if valid_length is None:
        def loop_body(step_inputs, states):
            return cell(step_inputs, states)
    else:
        states = list(states) + [F.zeros((1,))]

        def loop_body(step_inputs, states):
            cell_states, iter_no = states[:-1], states[-1]
            out, new_states = cell(step_inputs, cell_states)
            valid = F.broadcast_greater(valid_length, iter_no)
            new_states = [F.where(valid, new, old) for new, old in zip(new_states, cell_states)]
            return out, new_states + [iter_no + 1]
    outputs, states = F.contrib.foreach(loop_body, inputs, states)
    if drop_outputs:
        outputs = F.Dropout(outputs, p=drop_outputs, axes=(axis,))
    if axes is not None:
        outputs = F.transpose(outputs, axes=axes)
    if valid_length is None:
        return outputs, states
    outputs = F.SequenceMask(outputs, sequence_length=valid_length, use_sequence_length=True,
                             axis=axis)
    return outputs, states[:-1]  # the iteration counter is not a state of the cell
