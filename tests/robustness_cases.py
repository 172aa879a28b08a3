"""Bad and extreme operator input (issue 17), as plain data for make_robustness_goldens.py
(run on MXNet 1.9.1) and test_robustness.py (run on xnd).

A case is (name, op, inputs, attrs, flags): ``op`` is a function of ``mx.nd`` (a leading '.'
calls the method of the first input); ``inputs`` are numpy arrays; ``flags`` may hold
``train`` (run under autograd.record()). MXNet's answer is either arrays or an MXNetError.
"""
import numpy as np

NAN, INF = float("nan"), float("inf")


def f32(*v):
    return np.array(v, np.float32)


def ones(*shape, dtype=np.float32):
    return np.ones(shape, dtype)


X23 = np.arange(6, dtype=np.float32).reshape(2, 3)

VALUE_CASES = [
    # MXNet returns where xnd raised (issue 44): LRN nsize=0 (oneDNN: the channel alone,
    # alpha/0), instance L2Normalization of 1-D data, full/empty with 0-size dims
    ("lrn_nsize0", "LRN", [np.array([0, 1, -2, .5, 3, 0, 0, 0], np.float32).reshape(1, 2, 2, 2)],
     {"nsize": 0}),
    ("lrn_nsize0_alpha0", "LRN", [ones(1, 2, 1, 2)], {"nsize": 0, "alpha": 0.0, "knorm": 1.0}),
    ("l2norm_1d", "L2Normalization", [f32(3, -4, 0)], {}),
    ("full_0_dim", "full", [], {"shape": (0, 3), "val": 5}),
    ("full_0_dim_int", "full", [], {"shape": (2, 0), "val": 1.5, "dtype": "int32"}),
    ("full_0_int_shape", "full", [], {"shape": 0, "val": 1}),
    ("empty_0_dim", "empty", [], {"shape": (0, 3)}),
    ("swapaxes_negative", "SwapAxis", [X23], {"dim1": -1, "dim2": -2}),
    # shapes: a 1-D arg-reduction or pick has shape (1,), never ()
    ("argmax_1d_axis0", "argmax", [f32(3, 1, 2)], {"axis": 0}),
    ("argmax_1d_axis-1", "argmax", [f32(3, 1, 2)], {"axis": -1}),
    ("argmin_1d_axis0", "argmin", [f32(3, 1, 2)], {"axis": 0}),
    ("argmax_method", ".argmax", [f32(3, 1, 2)], {"axis": 0}),
    ("argmin_method", ".argmin", [f32(3, 1, 2)], {"axis": -1}),
    ("argmax_2d", "argmax", [X23], {"axis": 1}),
    ("pick_1d", "pick", [f32(3, 1, 2), f32(1)], {"axis": 0}),
    ("pick_1d_keepdims", "pick", [f32(3, 1, 2), f32(2)], {"axis": -1, "keepdims": True}),
    ("pick_2d_kept_index", "pick", [X23, np.array([[0], [2]], np.float32)], {"axis": 1}),
    # NaN and inf
    ("maximum_nan", "maximum", [f32(1, NAN, 3), f32(NAN, 2, 1)], {}),
    ("minimum_nan", "minimum", [f32(1, NAN, 3), f32(NAN, 2, 1)], {}),
    ("broadcast_maximum_nan", "broadcast_maximum", [f32(1, NAN, 3), f32(NAN)], {}),
    ("broadcast_minimum_nan", "broadcast_minimum", [f32(1, NAN, 3), f32(2)], {}),
    ("maximum_scalar_nan", "maximum", [f32(1, NAN, 3), 2.0], {}),
    ("topk_nan_indices", "topk", [f32(1, NAN, 3, 2)], {"k": 2}),
    ("topk_nan_value", "topk", [f32(1, NAN, 3, 2)], {"k": 2, "ret_typ": "value"}),
    ("topk_nan_both_ascend", "topk", [f32(1, NAN, 3, 2)],
     {"k": 2, "ret_typ": "both", "is_ascend": True}),
    ("topk_nan_rows", "topk", [np.array([[NAN, 1, 5, 2, 0], [4, 4, NAN, NAN, 1]], np.float32)],
     {"k": 3, "ret_typ": "both"}),
    ("topk_ties", "topk", [f32(2, 1, 2, 2, 1, 0)], {"k": 3}),
    ("sign_nan", "sign", [f32(NAN, -2, 0, 3)], {}),
    ("gamma_poles", "gamma", [f32(-1, -2, 0, 1, 5)], {}),
    ("softmax_inf", "softmax", [f32(INF, 1)], {}),
    ("softmax_inf_3", "softmax", [f32(INF, 1, 2)], {}),
    ("softmax_nan", "softmax", [f32(NAN, 1)], {}),
    ("softmax_minus_inf", "softmax", [f32(-INF, 1)], {}),
    ("softmax_rows", "softmax", [np.array([[INF, 1], [2, 3]], np.float32)], {}),
    ("softmax_inf_axis0", "softmax", [np.array([[INF, 1]], np.float32)], {"axis": 0}),
    ("softmax_inf_temperature", "softmax", [f32(INF, 1)], {"temperature": 2.0}),
    ("log_softmax_inf", "log_softmax", [f32(INF, 1)], {}),
    ("log_softmax_nan", "log_softmax", [f32(1, NAN)], {}),
    ("softmin_minus_inf", "softmin", [f32(-INF, 1)], {}),
    ("broadcast_mod_zero", "broadcast_mod", [f32(1, -2, 3), f32(0)], {}),
    ("mod_zero", "_internal._mod", [f32(1, -2, 3), f32(0, 0, 2)], {}),
    ("mod_scalar_zero", "_internal._mod_scalar", [f32(1, -2, 3)], {"scalar": 0.0}),
    ("rmod_scalar_zero", "_internal._rmod_scalar", [f32(1, -2, 0)], {"scalar": 0.0}),
    ("int_mod_zero", "broadcast_mod", [np.array([1, -2, 3], np.int32), np.array([0], np.int32)],
     {}),
    # overflow and precision
    ("norm_1e20", "norm", [f32(1e20, 1e20)], {}),
    ("norm_1e-30", "norm", [f32(1e-30, 1e-30)], {}),
    ("norm_axis_1e20", "norm", [np.array([[1e20, 1e20], [3, 4]], np.float32)], {"axis": 1}),
    ("norm_ord1_1e20", "norm", [f32(1e20, 1e20)], {"ord": 1}),
    ("norm_zero", "norm", [f32(0, 0)], {}),
    ("norm_nan", "norm", [f32(NAN, 1)], {}),
    ("norm_inf", "norm", [f32(INF, 1)], {}),
    ("norm_plain", "norm", [np.array([[0.5, -1.25, 3], [2, 7, -0.1]], np.float32)], {}),
    ("sce_1000", "softmax_cross_entropy", [np.array([[1000, 0]], np.float32), f32(1)], {}),
    ("sce_two", "softmax_cross_entropy", [np.array([[1000, 0], [1, 2]], np.float32), f32(0, 1)],
     {}),
    ("sce_20", "softmax_cross_entropy", [np.array([[20, 0]], np.float32), f32(1)], {}),
    ("sce_18", "softmax_cross_entropy", [np.array([[18, 0]], np.float32), f32(1)], {}),
    ("batchnorm_train_1e20", "BatchNorm",
     [np.full((2, 3), 1e20, np.float32), ones(3), f32(0, 0, 0), f32(0, 0, 0), ones(3)], {},
     {"train": True}),
    ("batchnorm_train_1e20_4d", "BatchNorm",
     [np.full((2, 3, 2, 2), 1e20, np.float32), ones(3), f32(0, 0, 0), f32(0, 0, 0), ones(3)],
     {}, {"train": True}),
    ("smooth_l1_scalar0", "smooth_l1", [f32(-2, 0.5, 0, 1)], {"scalar": 0.0}),
    ("smooth_l1_scalar2", "smooth_l1", [f32(-2, 0.1, 0, 1)], {"scalar": 2.0}),
    ("slice_axis_negative", "slice_axis", [X23], {"axis": 1, "begin": -3, "end": -1}),
    ("diag_empty_ok", "diag", [X23], {"k": 3}),
    ("where_rows", "where", [f32(1, 0), X23, X23 * 10], {}),
]

# MXNet raises: xnd raises MXNetError too (the message names the op)
RAISE_CASES = [
    # accepted before (issue 44): SequenceMask's axis and rank without lengths, one_hot depth
    ("sequencemask_axis-1_no_length", "SequenceMask", [ones(3, 2, 2)], {"axis": -1}),
    ("sequencemask_1d_no_length", "SequenceMask", [ones(3)], {}),
    ("one_hot_depth_negative", "one_hot", [f32(1)], {"depth": -1}),
    ("max_empty", "max", [np.ones((0, 3), np.float32)], {"axis": 1}),
    ("min_empty_keepdims", "min", [np.ones((0, 3), np.float32)], {"axis": 1, "keepdims": True}),
    # SwapAxis' dims are C++ ints: outside int32 the parameter parser refuses them (issue 44)
    ("swapaxes_int64_max", "SwapAxis", [X23], {"dim1": 2 ** 63 - 1}),
    ("swapaxes_int32_past_max", "SwapAxis", [X23], {"dim1": 2 ** 31}),
    ("swapaxes_int32_past_min", "SwapAxis", [X23], {"dim2": -2 ** 31 - 1}),
    ("swapaxes_int32_max", "SwapAxis", [X23], {"dim1": 2 ** 31 - 1}),
    ("swapaxes_dim2_-3", "SwapAxis", [X23], {"dim2": -3}),
    ("pick_index_shape", "pick", [X23, f32(0, 1, 2)], {"axis": 1}),
    ("pick_1d_index_2d", "pick", [f32(1, 2, 3), np.array([[1]], np.float32)], {"axis": 0}),
    ("pick_axis", "pick", [X23, f32(0, 1)], {"axis": 2}),
    ("take_axis_raise", "take", [f32(1, 2, 3), f32(0)], {"axis": 3, "mode": "raise"}),
    ("take_axis_clip", "take", [X23, f32(0)], {"axis": -3}),
    ("take_index_raise", "take", [f32(1, 2, 3), f32(5)], {"mode": "raise"}),
    ("layernorm_axis", "LayerNorm", [X23, ones(3), ones(3)], {"axis": 5}),
    ("layernorm_axis_neg", "LayerNorm", [X23, ones(3), ones(3)], {"axis": -3}),
    ("topk_axis", "topk", [X23], {"axis": 5}),
    ("topk_k", "topk", [X23], {"k": 10}),
    ("diag_k", "diag", [X23], {"k": 5}),
    ("diag_3d_k", "diag", [np.ones((2, 3, 4), np.float32)], {"k": 5}),
    ("slice_axis_begin", "slice_axis", [X23], {"axis": 1, "begin": 7, "end": None}),
    ("slice_axis_begin_neg", "slice_axis", [X23], {"axis": 1, "begin": -7, "end": None}),
    ("slice_axis_end", "slice_axis", [X23], {"axis": 1, "begin": 0, "end": 7}),
    ("slice_axis_empty", "slice_axis", [X23], {"axis": 1, "begin": 2, "end": 1}),
    ("slice_step0", "slice", [f32(1, 2, 3, 4)], {"begin": (0,), "end": (4,), "step": (0,)}),
    ("where_y_shape", "where", [ones(3), ones(3), ones(1)], {}),
    ("where_x_shape", "where", [ones(3), ones(1), ones(3)], {}),
    ("fc_int64_data", "FullyConnected",
     [np.ones((2, 3), np.int64), ones(4, 3), ones(4)], {"num_hidden": 4}),
    ("fc_float64_weight", "FullyConnected",
     [ones(2, 3), ones(4, 3, dtype=np.float64), ones(4)], {"num_hidden": 4}),
    ("dropout_p", "Dropout", [X23], {"p": 1.5}),
    ("dropout_p_neg", "Dropout", [X23], {"p": -0.1}),
    ("bool_attr_1.5", "sum", [X23], {"keepdims": 1.5}),
    ("bool_attr_2", "sum", [X23], {"keepdims": 2}),
    ("upsampling_scale0", "UpSampling", [np.ones((1, 1, 2, 2), np.float32)],
     {"scale": 0, "sample_type": "nearest"}),
    ("int_attr_inf", "topk", [X23], {"k": INF}),
    ("int_attr_1e400", "topk", [X23], {"k": "1e400"}),
    ("int_attr_1.5", "topk", [X23], {"k": 1.5}),
    ("int_attr_long", "topk", [X23], {"k": "1" * 100000}),
    ("shape_attr_deep", "reshape", [X23], {"shape": "(" * 100000}),
    ("shape_attr_float", "broadcast_to", [f32(1)], {"shape": (2.5,)}),
    ("float_attr_1e400", "smooth_l1", [X23], {"scalar": "1e400"}),
    ("arange_step0", "arange", [], {"start": 5, "stop": -7, "step": 0}),
    ("take_0d", "take", [np.array(2.0, np.float32), f32(0)], {}),
    ("random_normal_negative", "random.normal", [], {"shape": (4, -3)}),
    ("zeros_negative", "zeros", [], {"shape": (4, -3)}),
]

# huge shapes: MXNet refuses them before allocating; so must xnd (run in a subprocess by the
# test: an abort in XLA would kill the test process itself)
HUGE_CASES = [
    ("zeros_2^63", "zeros", [], {"shape": (2 ** 63 - 1,)}),
    ("zeros_2^31", "zeros", [], {"shape": (2 ** 31,)}),
    ("ones_10^12", "ones", [], {"shape": (10 ** 6, 10 ** 6)}),
    ("full_2^63", "full", [], {"shape": (2 ** 63 - 1,), "val": 1}),
    ("uniform_2^63", "random.uniform", [], {"shape": (2 ** 63 - 1,)}),
    ("normal_2^40", "random.normal", [], {"shape": (2 ** 40,)}),
    ("randint_2^40", "random.randint", [], {"low": 0, "high": 5, "shape": (2 ** 40,)}),
    ("eye_2^31", "eye", [], {"N": 2 ** 31, "M": 2 ** 31}),
    ("tile_2^31", "tile", [f32(1, 2)], {"reps": (2 ** 31,)}),
    ("arange_2^32", "arange", [], {"start": 2 ** 63 - 1, "stop": -2 ** 31, "step": -2 ** 31}),
]


def resolve(mx, op):
    """The callable of ``op`` under ``mx.nd`` (dotted paths such as 'random.normal')."""
    f = mx.nd
    for part in op.split("."):
        f = getattr(f, part)
    return f


def run(mx, case):
    """Run a case on ``mx`` (MXNet or xnd); returns a list of numpy arrays."""
    name, op, inputs, attrs = case[:4]
    flags = case[4] if len(case) > 4 else {}
    args = [mx.nd.array(a, dtype=a.dtype) if isinstance(a, np.ndarray) else a for a in inputs]
    if op.startswith("."):
        fn = getattr(args[0], op[1:])
        args = args[1:]
    else:
        fn = resolve(mx, op)
    if flags.get("train"):
        with mx.autograd.record():
            out = fn(*args, **attrs)
    else:
        out = fn(*args, **attrs)
    outs = out if isinstance(out, (list, tuple)) else [out]
    return [o.asnumpy() for o in outs]


# symbol JSON loader: mutations of a small FullyConnected -> relu graph (nodes data, fc_weight,
# fc_bias, fc, r); MXNet's verdict (loads or raises) is recorded by the generator
def _set_input(node, k, entry):
    return lambda d: d["nodes"][node]["inputs"].__setitem__(k, entry)


JSON_CASES = {
    "ok": lambda d: None,
    "input_-1": _set_input(3, 0, [-1, 0, 0]),
    "input_past_end": _set_input(3, 0, [99, 0, 0]),
    "input_short": _set_input(4, 0, [3]),
    "input_two_fields": _set_input(4, 0, [3, 0]),
    "input_float": _set_input(4, 0, [3.0, 0, 0]),
    "input_string": _set_input(4, 0, ["3", 0, 0]),
    "arg_nodes_past_end": lambda d: d["arg_nodes"].append(99),
    "arg_nodes_-1": lambda d: d["arg_nodes"].append(-1),
    "arg_nodes_operator": lambda d: d["arg_nodes"].append(3),
    "heads_past_end": lambda d: d["heads"].__setitem__(0, [99, 0, 0]),
    "heads_-1": lambda d: d["heads"].__setitem__(0, [-1, 0, 0]),
    "key_misspelled": lambda d: d.__setitem__("nodess", d.pop("nodes")),
    "key_unknown": lambda d: d.__setitem__("foo", 1),
    "key_heads_missing": lambda d: d.pop("heads"),
    "key_arg_nodes_missing": lambda d: d.pop("arg_nodes"),
    "key_row_ptr_missing": lambda d: d.pop("node_row_ptr"),
    "node_unknown_key": lambda d: d["nodes"][3].__setitem__("foo", 1),
    "node_no_name": lambda d: d["nodes"][3].pop("name"),
    "node_no_inputs": lambda d: d["nodes"][3].pop("inputs"),
    "nodes_not_a_list": lambda d: d.__setitem__("nodes", {}),
    "version_not_a_number": lambda d: d["attrs"].__setitem__("mxnet_version", ["int", "abc"]),
    "op_unknown": lambda d: d["nodes"][4].__setitem__("op", "nope"),
    "top_level_empty": lambda d: d.clear(),
}
# MXNet loads these and builds a graph that silently differs from the file (a node that reads
# a later node or itself, an output index past the node's outputs); xnd refuses them
JSON_STRICTER = {
    "input_forward": _set_input(3, 0, [4, 0, 0]),
    "input_self": _set_input(3, 0, [3, 0, 0]),
    "input_output_index": _set_input(4, 0, [3, 5, 0]),
    "input_output_index_-1": _set_input(4, 0, [3, -1, 0]),
    "heads_output_index": lambda d: d["heads"].__setitem__(0, [4, 3, 0]),
    "variable_with_inputs": lambda d: d["nodes"][0]["inputs"].append([1, 0, 0]),
}


def mutated_json(base_json, name):
    import copy
    import json
    d = copy.deepcopy(json.loads(base_json))
    (JSON_CASES.get(name) or JSON_STRICTER[name])(d)
    return json.dumps(d)


def load_outcome(mx, text):
    """('ok', arguments, outputs) or ('raise', first line of the error)."""
    try:
        s = mx.sym.load_json(text)
    except Exception as e:  # noqa: BLE001 - the kind is compared by the test
        return ["raise", type(e).__name__]
    return ["ok", s.list_arguments(), s.list_outputs()]
