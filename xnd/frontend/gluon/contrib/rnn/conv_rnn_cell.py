"""mx.gluon.contrib.rnn.conv_rnn_cell: convolutional RNN, LSTM and GRU cells in 1, 2 and 3
spatial dimensions (MXNet 1.9.1's Conv{1,2,3}D{RNN,LSTM,GRU}Cell).

The gated cells of gluon.rnn with each FullyConnected replaced by a Convolution. As in
MXNet: the i2h convolution has the user's kernel, pad and dilation (stride 1), so a state
has the i2h output's spatial size; the h2h convolution pads by ``dilate * (kernel - 1) // 2``
so it keeps that size, which is why only odd h2h kernels are allowed. Weights are
(gates * hidden_channels, in_channels, *kernel) for channel-first layouts and
(gates * hidden_channels, *kernel, in_channels) for channel-last ones; the gates are sliced
along the layout's channel axis. Parameter names (``i2h_weight``...), step-node names
(``t<k>_i2h``, ``t<k>_out``...) and the aliases (``conv_rnn``, ``conv_lstm``, ``conv_gru``)
are MXNet's, and so are the state layouts ((batch, hidden_channels, *spatial) or
(batch, *spatial, hidden_channels)).

One generic cell (`_ConvRNNBase`) holds the shapes and the two convolutions; each kind
(`_ConvRNNCell`, `_ConvLSTMCell`, `_ConvGRUCell`) adds its gate arithmetic, and a public
class only fixes the number of spatial dimensions."""
from .....base import numeric_types
from ...rnn.rnn_cell import HybridRecurrentCell

__all__ = ["Conv1DRNNCell", "Conv2DRNNCell", "Conv3DRNNCell",
           "Conv1DLSTMCell", "Conv2DLSTMCell", "Conv3DLSTMCell",
           "Conv1DGRUCell", "Conv2DGRUCell", "Conv3DGRUCell"]

_DEFAULT_LAYOUTS = {1: "NCW", 2: "NCHW", 3: "NCDHW"}


def _conv_out_size(dims, kernel, pad, dilate):
    """The i2h convolution's output size per spatial dimension (stride 1); an unknown (0)
    input size stays unknown, as MXNet's _get_conv_out_size leaves it."""
    return tuple(x + 2 * p - d * (k - 1) if x else 0
                 for x, k, p, d in zip(dims, kernel, pad, dilate))


class _ConvRNNBase(HybridRecurrentCell):
    """The shapes, parameters and convolutions shared by every convolutional cell.

    Subclasses set ``_dims`` (spatial dimensions), ``_gates`` (gate blocks stacked in the
    weights), ``_num_states`` and ``_cell_alias``, and write ``_step``. ``i2h_pad``,
    ``i2h_dilate``, ``h2h_dilate``: an int or a tuple of ``_dims`` ints; an int is repeated
    (the defaults 0, 1, 1 are MXNet's (0,)*d, (1,)*d, (1,)*d); ``conv_layout`` None is the
    channel-first layout of ``_dims`` (MXNet's default)."""
    _dims, _gates, _num_states, _cell_alias = 0, 1, 1, "conv_rnn"

    def __init__(self, input_shape, hidden_channels, i2h_kernel, h2h_kernel, i2h_pad=0,
                 i2h_dilate=1, h2h_dilate=1, i2h_weight_initializer=None,
                 h2h_weight_initializer=None, i2h_bias_initializer="zeros",
                 h2h_bias_initializer="zeros", conv_layout=None, activation="tanh",
                 prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        dims = self._dims
        conv_layout = conv_layout or _DEFAULT_LAYOUTS[dims]
        self._hidden_channels, self._input_shape = hidden_channels, input_shape
        self._conv_layout, self._activation = conv_layout, activation
        specs = (i2h_kernel, i2h_pad, i2h_dilate, h2h_kernel, h2h_dilate)
        assert all(isinstance(s, int) or len(s) == dims for s in specs), \
            f"For {dims}D convolution, the convolution settings can only be either int or " \
            f"list/tuple of length {dims}"
        (self._i2h_kernel, self._i2h_pad, self._i2h_dilate, self._h2h_kernel,
         self._h2h_dilate) = (tuple(s) if not isinstance(s, numeric_types) else (s,) * dims
                              for s in specs)
        self._stride = (1,) * dims
        assert all(k % 2 == 1 for k in self._h2h_kernel), \
            f"Only support odd number, get h2h_kernel= {h2h_kernel}"
        # 'same' padding of the recurrent convolution keeps the state's spatial size
        self._h2h_pad = tuple(d * (k - 1) // 2 for d, k in zip(self._h2h_dilate,
                                                                self._h2h_kernel))
        self._channel_axis = conv_layout.find("C")
        first = self._channel_axis == 1
        # input_shape excludes the batch axis: channels at channel_axis - 1
        in_channels = input_shape[self._channel_axis - 1]
        spatial = tuple(input_shape[1:] if first else input_shape[:-1])
        out_size = _conv_out_size(spatial, self._i2h_kernel, self._i2h_pad, self._i2h_dilate)
        self._state_shape = (hidden_channels,) + out_size if first \
            else out_size + (hidden_channels,)
        n = hidden_channels * self._gates

        def weight_shape(channels, kernel):
            return (n, channels) + kernel if first else (n,) + kernel + (channels,)
        get = self.params.get
        self.i2h_weight = get("i2h_weight", shape=weight_shape(in_channels, self._i2h_kernel),
                              init=i2h_weight_initializer, allow_deferred_init=True)
        self.h2h_weight = get("h2h_weight",
                              shape=weight_shape(hidden_channels, self._h2h_kernel),
                              init=h2h_weight_initializer, allow_deferred_init=True)
        self.i2h_bias = get("i2h_bias", shape=(n,), init=i2h_bias_initializer,
                            allow_deferred_init=True)
        self.h2h_bias = get("h2h_bias", shape=(n,), init=h2h_bias_initializer,
                            allow_deferred_init=True)

    def state_info(self, batch_size=0):
        return [{"shape": (batch_size,) + self._state_shape, "__layout__": self._conv_layout}
                for _ in range(self._num_states)]

    def _alias(self):
        return self._cell_alias

    def __repr__(self):
        shape = self.i2h_weight.shape
        in_channels = shape[1 if self._channel_axis == 1 else -1]
        return f"{self.__class__.__name__}({in_channels or None} -> {shape[0]}, " \
               f"{self._activation}, {self._conv_layout})"

    def _conv(self, F, data, weight, bias, kernel, pad, dilate, name):
        return F.Convolution(data=data, num_filter=self._hidden_channels * self._gates,
                             kernel=kernel, stride=self._stride, pad=pad, dilate=dilate,
                             weight=weight, bias=bias, layout=self._conv_layout, name=name)

    def _slice(self, F, x, name):
        return F.SliceChannel(x, num_outputs=self._gates, name=name, axis=self._channel_axis)

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = f"t{self._counter}_"
        i2h = self._conv(F, inputs, i2h_weight, i2h_bias, self._i2h_kernel, self._i2h_pad,
                         self._i2h_dilate, prefix + "i2h")
        h2h = self._conv(F, states[0], h2h_weight, h2h_bias, self._h2h_kernel, self._h2h_pad,
                         self._h2h_dilate, prefix + "h2h")
        return self._step(F, prefix, i2h, h2h, states)

    def _step(self, F, prefix, i2h, h2h, states):
        raise NotImplementedError


class _ConvRNNCell(_ConvRNNBase):
    """h' = act(W * x + b_i + R * h + b_h)."""

    def _step(self, F, prefix, i2h, h2h, states):
        output = self._get_activation(F, i2h + h2h, self._activation, name=prefix + "out")
        return output, [output]


class _ConvLSTMCell(_ConvRNNBase):
    """Convolutional LSTM (Shi et al. 2015), gates i, f, c, o as in MXNet: sigmoid gates,
    ``activation`` on the candidate and on the new cell state; states [h, c]."""
    _gates, _num_states, _cell_alias = 4, 2, "conv_lstm"

    def _step(self, F, prefix, i2h, h2h, states):
        g = self._slice(F, i2h + h2h, prefix + "slice")
        in_gate, forget_gate, out_gate = (
            F.Activation(g[k], act_type="sigmoid", name=prefix + s)
            for k, s in ((0, "i"), (1, "f"), (3, "o")))
        in_transform = self._get_activation(F, g[2], self._activation, name=prefix + "c")
        next_c = F.elemwise_add(forget_gate * states[1], in_gate * in_transform,
                                name=prefix + "state")
        next_h = F.elemwise_mul(out_gate, self._get_activation(F, next_c, self._activation),
                                name=prefix + "out")
        return next_h, [next_h, next_c]


class _ConvGRUCell(_ConvRNNBase):
    """Convolutional GRU, gates r, z, n as in MXNet's GRUCell: the reset gate scales the
    recurrent convolution (bias included) of the candidate; h' = (1 - z) n + z h."""
    _gates, _cell_alias = 3, "conv_gru"

    def _step(self, F, prefix, i2h, h2h, states):
        i2h_r, i2h_z, i2h = self._slice(F, i2h, prefix + "i2h_slice")
        h2h_r, h2h_z, h2h = self._slice(F, h2h, prefix + "h2h_slice")
        reset_gate = F.Activation(i2h_r + h2h_r, act_type="sigmoid", name=prefix + "r_act")
        update_gate = F.Activation(i2h_z + h2h_z, act_type="sigmoid", name=prefix + "z_act")
        next_h_tmp = self._get_activation(F, i2h + reset_gate * h2h, self._activation,
                                          name=prefix + "h_act")
        next_h = F.elemwise_add((1. - update_gate) * next_h_tmp, update_gate * states[0],
                                name=prefix + "out")
        return next_h, [next_h]


class Conv1DRNNCell(_ConvRNNCell):
    """1-D convolutional RNN cell; input_shape (C, W) for 'NCW' (the default)."""
    _dims = 1


class Conv2DRNNCell(_ConvRNNCell):
    """2-D convolutional RNN cell; input_shape (C, H, W) for 'NCHW' (the default)."""
    _dims = 2


class Conv3DRNNCell(_ConvRNNCell):
    """3-D convolutional RNN cell; input_shape (C, D, H, W) for 'NCDHW' (the default)."""
    _dims = 3


class Conv1DLSTMCell(_ConvLSTMCell):
    """1-D convolutional LSTM cell; input_shape (C, W) for 'NCW' (the default)."""
    _dims = 1


class Conv2DLSTMCell(_ConvLSTMCell):
    """2-D convolutional LSTM cell; input_shape (C, H, W) for 'NCHW' (the default)."""
    _dims = 2


class Conv3DLSTMCell(_ConvLSTMCell):
    """3-D convolutional LSTM cell; input_shape (C, D, H, W) for 'NCDHW' (the default)."""
    _dims = 3


class Conv1DGRUCell(_ConvGRUCell):
    """1-D convolutional GRU cell; input_shape (C, W) for 'NCW' (the default)."""
    _dims = 1


class Conv2DGRUCell(_ConvGRUCell):
    """2-D convolutional GRU cell; input_shape (C, H, W) for 'NCHW' (the default)."""
    _dims = 2


class Conv3DGRUCell(_ConvGRUCell):
    """3-D convolutional GRU cell; input_shape (C, D, H, W) for 'NCDHW' (the default)."""
    _dims = 3
