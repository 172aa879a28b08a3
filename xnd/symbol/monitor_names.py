"""The names MXNet's monitor gives an operator's inputs (``set_monitor_callback(...,
monitor_all=True)`` rows ``'<node>_<input name>'``).

MXNet takes them from the operator's ``FListInputNames`` where the operator registers one
(``conv_data``, ``fc_weight``, ``softmax_length``) and calls them ``input<j>`` where it does
not; its variadic operators list ``arg<j>`` (``concat_arg0``; UpSampling too when nearest,
``data``/``weight`` when bilinear).  ``UNLISTED`` is the operators (xnd's canonical names)
that MXNet 1.9.1 registers without the list, as its monitor shows them: most elementwise
math, the reductions, sorting, and the shape and copy operators.
"""

UNLISTED = frozenset({
    "Activation", "BlockGrad", "Cast", "Flatten", "Reshape", "SoftmaxActivation",
    "_contrib_AdaptiveAvgPooling2D", "_contrib_arange_like", "_contrib_box_nms",
    "_contrib_div_sqrt_dim", "_contrib_gradientmultiplier", "_copy", "_sample_multinomial",
    "_shuffle", "abs", "amp_cast", "arccos", "arccosh", "arcsin", "arcsinh", "arctan",
    "arctanh", "argmax", "argmax_channel", "argmin", "argsort", "broadcast_axis",
    "broadcast_to", "cbrt", "ceil", "clip", "cos", "cosh", "degrees", "erf", "erfinv", "exp",
    "expand_dims", "expm1", "fix", "floor", "gamma", "gammaln", "hard_sigmoid", "log", "log10",
    "log1p", "log2", "logical_not", "make_loss", "max", "mean", "min", "nanprod", "nansum",
    "negative", "norm", "ones_like", "prod", "radians", "rcbrt", "reciprocal", "relu", "rint",
    "round", "rsqrt", "shape_array", "sigmoid", "sign", "sin", "sinh", "size_array", "slice",
    "slice_axis", "smooth_l1", "softmin", "softsign", "sort", "sqrt", "square", "sum", "tan",
    "tanh", "topk", "transpose", "trunc", "zeros_like",
})

_ARGS = frozenset({"Concat", "add_n", "stack", "Crop"})


def input_name(node, j):
    """MXNet's monitor name of input ``j`` of op node ``node`` (without the node prefix)."""
    name = node.op.name
    if name in UNLISTED:
        return f"input{j}"
    if name in _ARGS or (name == "UpSampling" and node.params().get("sample_type") != "bilinear"):
        return f"arg{j}"
    if name == "UpSampling":
        return ("data", "weight")[min(j, 1)]
    return node.input_slot(j)
