"""MXNet 1.9.1's AMP operator lists for bfloat16 (``mxnet.contrib.amp.lists.symbol_bf16``),
as data: which operators run in the low precision type, which in either, which in
float32, which take the widest type of their inputs, which go to float32 only for
some attribute values, and the loss outputs.

MXNet's bfloat16 lists are its float16 lists (symbol_fp16.py) with a few operators moved,
so they are written here as those moves, in MXNet's order: fewer operators run in the low
type (Deconvolution and RNN go to float32), a few more run in either type, and
broadcast_mul and the MultiBox operators trade places between FP32_FUNCS and
WIDEST_TYPE_CASTS."""
from . import symbol_fp16 as _fp16

BF16_FUNCS = [
    'Convolution', 'FullyConnected',
]

BF16_FP32_FUNCS = [
    'abs', '_add', 'BatchNorm', 'BatchNormWithReLU', 'clip', 'Concat', 'concat', 'LRN', 'Pooling',
    'relu', 'shuffle', '_shuffle', 'sqrt', 'square', 'tanh',
]

_MULTIBOX = ['_contrib_MultiBoxDetection', '_contrib_MultiBoxPrior', '_contrib_MultiBoxTarget']


def _without(names, *dropped):
    drop = set().union(*dropped)
    return [n for n in names if n not in drop]


def _insert_after(names, anchor, new):
    i = names.index(anchor) + 1
    return names[:i] + new + names[i:]


FP32_FUNCS = (
    _without(_fp16.FP16_FUNCS, BF16_FUNCS)                    # Deconvolution, RNN
    + _without(_fp16.FP16_FP32_FUNCS, BF16_FP32_FUNCS,
               {'amp_cast', 'amp_multicast', 'CuDNNBatchNorm', '_TensorRT'})
    + ['broadcast_mul']
    + _without(_fp16.FP32_FUNCS, BF16_FP32_FUNCS, _MULTIBOX)
)

WIDEST_TYPE_CASTS = _insert_after(
    _without(_fp16.WIDEST_TYPE_CASTS, BF16_FP32_FUNCS, {'broadcast_mul'},
             {'_contrib_interleaved_matmul_encdec_qk', '_contrib_interleaved_matmul_encdec_valatt',
              '_contrib_interleaved_matmul_selfatt_qk', '_contrib_interleaved_matmul_selfatt_valatt'}),
    '_Minimum', _MULTIBOX)

CONDITIONAL_FP32_FUNCS = [(op, attr, list(values))
                          for op, attr, values in _fp16.CONDITIONAL_FP32_FUNCS]

LOSS_OUTPUT_FUNCTIONS = list(_fp16.LOSS_OUTPUT_FUNCTIONS)
# the inputs of these ops that stay float32 when the op runs in bfloat16 ('' = data)
BF16_USE_FP32_PARAMS = {
    'BatchNormWithReLU': ['', 'gamma', 'beta', 'moving_mean', 'moving_var'],
    'BatchNorm': ['', 'gamma', 'beta', 'moving_mean', 'moving_var'],
}
