"""The parameters of every primitive the host tier (``host_jaxpr``) follows, over the
supported JAX range (0.4.30 to 0.10.2), and the values it follows them for.

The host evaluator is a second execution engine: a JAX release that gives a primitive a
new parameter (``accuracy`` on transcendentals, ``out_sharding`` on products, a fourth
``GatherScatterMode``) could change what XLA computes while a rule that ignored unknown
parameters went on computing the old thing.  So every parameter of every equation is
checked against this table when a program is planned (``host_jaxpr.unsupported``): a
parameter the table does not name, or a value its check refuses, declines the plan and the
program compiles.  Each rule names the same parameters in its signature, without ``**``
(tests/test_host_rules.py checks both against JAX at both ends of the range).

``PARAMS[primitive][parameter]`` is None where the rule follows every value, else a
predicate of the value.
"""


def _none(v):
    return v is None


def _gather_mode(v):
    """The modes ``host_windows._mode`` follows (not jax 0.6's ONE_HOT, nor a future one)."""
    s = str(v).upper()
    return any(m in s for m in ("CLIP", "FILL_OR_DROP", "PROMISE_IN_BOUNDS"))


_ACCURACY = {"accuracy": _none}      # jax >= 0.6: a requested approximation accuracy
# jax >= 0.5: where the result lives (an empty mesh's replicated sharding when a program has
# none); placement, never the values, and the host tier runs one device's programs only
_SHARDING = {"sharding": None}
_OUT_SHARDING = {"out_sharding": None}
_WINDOW = dict.fromkeys(("window_dimensions", "window_strides", "padding", "base_dilation",
                         "window_dilation"))
_GATHER = {"dimension_numbers": None, "slice_sizes": None, "indices_are_sorted": None,
           "unique_indices": None, "mode": _gather_mode, "fill_value": None}
_SCATTER = {"dimension_numbers": None, "indices_are_sorted": None, "unique_indices": None,
            "mode": _gather_mode, "update_jaxpr": None, "update_consts": None}
# a call's placement and compilation hints: one device, one program, no effect on values
# (an inner call's compiler options are not applied where XLA inlines it)
_JIT = dict.fromkeys(("jaxpr", "in_shardings", "out_shardings", "in_layouts", "out_layouts",
                      "donated_invars", "name", "keep_unused", "inline", "resource_env",
                      "ctx_mesh", "compiler_options_kvs"))

PARAMS = {
    # elementwise
    **{p: {} for p in (
        "neg", "sign", "floor", "ceil", "is_finite", "acos", "asin", "atan", "sinh", "cosh",
        "asinh", "acosh", "atanh", "abs", "not", "square", "erf", "erfc", "lgamma", "erf_inv",
        "add", "add_any", "sub", "div", "rem", "pow", "max", "min", "atan2", "nextafter",
        "and", "or", "xor", "eq", "ne", "lt", "le", "gt", "ge", "shift_left",
        "shift_right_arithmetic", "shift_right_logical", "select_n", "clamp",
        "copy", "stop_gradient", "optimization_barrier", "threefry2x32", "random_fold_in",
        "random_unwrap", "dynamic_update_slice")},
    **{p: _ACCURACY for p in (
        "exp", "exp2", "log", "log1p", "expm1", "tanh", "logistic", "sin", "cos", "tan",
        "sqrt", "rsqrt", "cbrt")},
    "mul": {"out_dtype": None},
    "round": {"rounding_method": None},
    "integer_pow": {"y": None},
    "convert_element_type": {"new_dtype": None, "weak_type": None, **_SHARDING},
    "bitcast_convert_type": {"new_dtype": None},
    # shapes and data movement
    "broadcast_in_dim": {"shape": None, "broadcast_dimensions": None, **_SHARDING},
    "reshape": {"new_sizes": None, "dimensions": None, **_SHARDING},
    "transpose": {"permutation": None},
    "squeeze": {"dimensions": None},
    "rev": {"dimensions": None},
    "slice": {"start_indices": None, "limit_indices": None, "strides": None},
    "dynamic_slice": {"slice_sizes": None},
    "pad": {"padding_config": None},
    "iota": {"dtype": None, "shape": None, "dimension": None, **_SHARDING},
    "split": {"sizes": None, "axis": None},
    "concatenate": {"dimension": None},
    "tile": {"reps": None},
    "stack": {"axis": None},
    "sharding_constraint": dict.fromkeys(("sharding", "unconstrained_dims", "resource_env",
                                          "layout", "context_mesh")),
    # reductions, scans, sorting
    **{p: {"axes": None, **_OUT_SHARDING} for p in (
        "reduce_sum", "reduce_prod", "reduce_max", "reduce_min", "reduce_and", "reduce_or",
        "reduce_xor")},
    "argmax": {"axes": None, "index_dtype": None},
    "argmin": {"axes": None, "index_dtype": None},
    **{p: {"axis": None, "reverse": None} for p in ("cumsum", "cumprod", "cummax", "cummin")},
    "sort": {"dimension": None, "is_stable": None, "num_keys": None},
    "top_k": {"k": None, "axis": None},
    # products, windows, indexing
    "dot_general": {"dimension_numbers": None, "precision": None,
                    "preferred_element_type": None, **_OUT_SHARDING},
    "conv_general_dilated": {
        **dict.fromkeys(("window_strides", "padding", "lhs_dilation", "rhs_dilation",
                         "dimension_numbers", "feature_group_count", "batch_group_count",
                         "precision", "preferred_element_type")), **_OUT_SHARDING},
    "reduce_window_sum": _WINDOW, "reduce_window_max": _WINDOW, "reduce_window_min": _WINDOW,
    "select_and_scatter_add": dict.fromkeys(("select_prim", "window_dimensions",
                                             "window_strides", "padding")),
    "select_and_gather_add": {"select_prim": None, **_WINDOW},
    "gather": _GATHER,
    # a plain scatter sets; with an update function (lax.scatter_apply) it applies that
    "scatter": {**_SCATTER, "update_jaxpr": _none},
    "scatter-add": _SCATTER, "scatter-mul": _SCATTER, "scatter-min": _SCATTER,
    "scatter-max": _SCATTER,
    # random bits
    "random_seed": {"impl": None}, "random_wrap": {"impl": None},
    "random_bits": {"bit_width": None, "shape": None}, "random_split": {"shape": None},
    "iota_2x32_shape": {"shape": None},
    "rng_bit_generator": {"shape": None, "dtype": None, "algorithm": None, **_OUT_SHARDING},
    # calls and control flow
    "pjit": _JIT, "jit": _JIT,
    "closed_call": {"call_jaxpr": None},
    "custom_jvp_call": dict.fromkeys(("call_jaxpr", "jvp_jaxpr_thunk", "jvp_jaxpr_fun",
                                      "num_consts", "symbolic_zeros")),
    "custom_vjp_call": dict.fromkeys(("call_jaxpr", "fwd_jaxpr_thunk", "bwd", "num_consts",
                                      "out_trees", "symbolic_zeros")),
    "custom_vjp_call_jaxpr": dict.fromkeys(("fun_jaxpr", "fwd_jaxpr_thunk", "bwd",
                                            "num_consts", "out_trees", "symbolic_zeros")),
    "remat2": dict.fromkeys(("jaxpr", "prevent_cse", "differentiated", "policy")),
    "cond": {"branches": None, "linear": None},
    "while": dict.fromkeys(("cond_jaxpr", "body_jaxpr", "cond_nconsts", "body_nconsts")),
    "scan": dict.fromkeys(("jaxpr", "length", "reverse", "num_consts", "num_carry", "linear",
                           "unroll", "_split_transpose")),
    "pure_callback": dict.fromkeys(("callback", "result_avals", "sharding", "vectorized",
                                    "vmap_method")),
}


def rejected(eqn):
    """Why the host tier does not follow ``eqn``'s parameters ("<primitive>: parameter
    <name>[=<value>]"), or None where it follows them all."""
    table = PARAMS.get(eqn.primitive.name)
    if table is None:
        return f"{eqn.primitive.name}: no rule"
    for k, v in eqn.params.items():
        if k not in table:
            return f"{eqn.primitive.name}: parameter {k}"
        check = table[k]
        if check is not None and not check(v):
            return f"{eqn.primitive.name}: parameter {k}={v!r:.40}"
    return None
