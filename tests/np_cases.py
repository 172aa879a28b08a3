"""Golden cases for MXNet's numpy interface (``mx.np``/``mx.npx``).

Each case is an expression (or statements ending in ``result = ...``) over ``mx``,
``np`` (mx.np), ``npx``, ``onp`` (NumPy) and the fixtures of `setup`.  ``make_np_goldens.py``
evaluates them on MXNet 1.9.1 and records the outcome (value, dtype, shape, type, repr, or
the exception's type); ``test_np.py`` replays them on xnd.  Inputs are deterministic.
"""

SETUP = """
npx.set_np()
f32 = np.array([1., 2., 3.])
f64 = np.array([1., 2., 3.], dtype='float64')
f16 = np.array([1., 2., 3.], dtype='float16')
i32 = np.array([1, 2, 3], dtype='int32')
i64 = np.array([1, 2, 3], dtype='int64')
u8 = np.array([1, 2, 3], dtype='uint8')
i8 = np.array([1, 2, 3], dtype='int8')
b = f32 > 1.5
M = np.arange(12).reshape(3, 4)
T3 = np.arange(24).reshape(2, 3, 4) / 10
"""

CASES = {
    # creation and MXNet's float32 default
    "array_list_int": "np.array([1, 2])",
    "array_list_bool": "np.array([True, False])",
    "array_onp_int64": "np.array(onp.array([1, 2]))",
    "array_onp_int32": "np.array(onp.array([1, 2], dtype='int32'))",
    "array_onp_float64": "np.array(onp.array([1., 2.]))",
    "array_onp_bool": "np.array(onp.array([True, False]))",
    "array_dtype_int": "np.array([1, 2], dtype=int)",
    "array_dtype_float": "np.array([1.5], dtype=float)",
    "array_dtype_bool": "np.array([1, 0], dtype=bool)",
    "array_0d": "np.array(5)",
    "arange_int": "np.arange(5)",
    "arange_step": "np.arange(1, 7, 2)",
    "arange_dtype": "np.arange(4, dtype='int32')",
    "zeros_default": "np.zeros((2, 3))",
    "zeros_int": "np.zeros(2, dtype=int)",
    "ones_float": "np.ones(2, dtype=float)",
    "full_int_fill": "np.full((2,), 3)",
    "full_float_fill": "np.full((2, 2), 3.5)",
    "zeros_like_i32": "np.zeros_like(i32)",
    "ones_like_f64": "np.ones_like(f64)",
    "linspace": "np.linspace(0, 1, 5)",
    "eye": "np.eye(3, k=1)",
    "identity": "np.identity(2)",
    "empty_dtype": "np.empty((2,)).dtype",
    "ctx_kw": "np.ones(2, ctx=mx.cpu()).context",
    # binary promotion (arrays)
    "add_i32_f32": "i32 + f32",
    "add_i64_f32": "i64 + f32",
    "add_i32_i64": "i32 + i64",
    "add_f16_f32": "f16 + f32",
    "add_f64_f32": "f64 + f32",
    "add_i32_f16": "i32 + f16",
    "mul_i32_f64": "i32 * f64",
    "add_u8_i32": "u8 + i32",
    "add_b_b": "b + b",
    "mul_b_b": "b * b",
    "add_b_i32": "b + i32",
    "add_b_f32": "b + f32",
    # binary with Python scalars
    "add_i32_float": "i32 + 1.5",
    "add_i32_int": "i32 + 1",
    "add_b_int": "b + 1",
    "add_b_float": "b + 1.5",
    "add_f16_float": "f16 + 1.5",
    "rsub_int": "1 - i32",
    "rdiv_int": "2 / i32",
    "rpow": "2 ** f32",
    "pow_int_half": "i32 ** 0.5",
    "pow_i32_f32": "np.power(i32, f32)",
    "div_int_int": "i32 / i32",
    "div_int_scalar": "i32 / 2",
    "div_i64_i64": "i64 / i64",
    "mod_f32": "f32 % 2",
    "mod_i32": "i32 % 2",
    "onp_scalar": "onp.float32(3) * f32",
    "onp_scalar_right": "f32 * onp.float64(3)",
    "neg_bool": "-b",
    "neg_f32": "-f32",
    # comparisons
    "gt_scalar": "f32 > 1",
    "gt_int_float": "i32 > 1.5",
    "eq_arrays": "f32 == f32",
    "ne_arrays": "f32 != np.array([1., 0., 3.])",
    "logical_not": "np.logical_not(f32)",
    # unary math keeps an integer dtype
    "sqrt_i32": "np.sqrt(i32)",
    "exp_i64": "np.exp(i64)",
    "exp_f16": "np.exp(f16)",
    "abs_i32": "np.abs(i32)",
    "sin_f32": "np.sin(f32)",
    "log_f64": "np.log(f64)",
    "tanh": "np.tanh(f32)",
    "clip_i32": "np.clip(i32, 0, 2)",
    # reductions and 0-d results
    "sum_f32": "np.sum(f32)",
    "sum_i32": "np.sum(i32)",
    "sum_i8": "np.sum(i8)",
    "sum_bool": "np.sum(b)",
    "mean_i32": "np.mean(i32)",
    "mean_bool": "np.mean(b)",
    "mean_axis": "M.mean(axis=0)",
    "mean_keepdims": "f32.mean(axis=0, keepdims=True)",
    "max_i32": "np.max(i32)",
    "max_bool": "np.max(b)",
    "prod_i32": "np.prod(i32)",
    "cumsum_i32": "np.cumsum(i32)",
    "std_f32": "np.std(f32)",
    "var_f32": "np.var(f32)",
    "std_i32": "np.std(i32)",
    "var_i32": "np.var(i32)",
    "argmax": "np.argmax(f32)",
    "argmax_axis": "M.argmax(axis=1)",
    "argsort": "np.argsort(np.array([3., 1., 2.]))",
    "sort": "np.sort(np.array([3., 1., 2.]))",
    "sum_shape": "M.sum().shape",
    "method_sum_axis": "M.sum(axis=1)",
    "method_max_pos": "M.max(1)",
    # shape functions
    "reshape_m1": "M.reshape(-1, 2)",
    "reshape_tuple": "M.reshape((2, 6))",
    "transpose": "T3.transpose(2, 0, 1)",
    "T": "M.T",
    "concatenate": "np.concatenate([M, M], axis=1)",
    "stack": "np.stack([i32, i32])",
    "split": "np.split(np.arange(6), 3)",
    "expand_dims": "np.expand_dims(f32, 0)",
    "squeeze": "np.squeeze(np.ones((1, 3, 1)))",
    "swapaxes": "np.swapaxes(T3, 0, 2)",
    "tile": "np.tile(f32, 2)",
    "repeat": "np.repeat(f32, 2)",
    "flip": "np.flip(M, 0)",
    "broadcast_to": "np.broadcast_to(f32, (2, 3))",
    "where": "np.where(f32 > 1.5, f32, np.zeros(3))",
    "dot_mv": "np.dot(M, np.ones(4))",
    "matmul_vv": "np.matmul(f32, f32)",
    "tensordot": "np.tensordot(T3, np.ones((3, 4)), axes=2)",
    "einsum": "np.einsum('ij,j->i', M, np.ones(4))",
    "outer": "np.outer(f32, f32)",
    "maximum": "np.maximum(f32, 2.)",
    "minimum_arrays": "np.minimum(f32, np.array([3., 2., 1.]))",
    "linalg_norm": "np.linalg.norm(np.array([3., 4.]))",
    "linalg_norm_fro": "np.linalg.norm(np.ones((4, 9)))",
    "linalg_inv": "np.linalg.inv(np.array([[2., 0.], [0., 4.]]))",
    "linalg_det": "np.linalg.det(np.array([[2., 1.], [1., 3.]]))",
    "unique": "np.unique(np.array([3., 1., 3., 2.]))",
    "isnan": "np.isnan(np.array([1., onp.nan]))",
    "nonzero": "np.nonzero(np.array([0., 1., 0., 2.]))",
    "tril": "np.tril(np.ones((3, 3)))",
    "diff": "np.diff(np.array([1., 4., 9.]))",
    "around": "np.round(np.array([1.25, 2.5]), 1)",
    # indexing
    "index_int": "f32[0]",
    "index_int_shape": "M[1].shape",
    "index_2int": "M[1, 2]",
    "index_newaxis": "M[:, None].shape",
    "index_slice": "M[1:3]",
    "index_step": "M[:, ::2]",
    "index_neg": "M[-1]",
    "index_list_pair": "M[[0, 1], [1, 2]]",
    "index_array": "f32[np.array([0, 2])]",
    "index_bool_mask": "M[M > 5]",
    "index_bool_rows": "M[np.array([1., 0., 1.]) > 0]",
    "index_float_rows": "M[np.array([1., 0., 1.])]",
    "index_ellipsis": "T3[..., 1]",
    "index_range_pair": "M[range(3), np.array([0, 3, 1])]",
    "setitem_int": "x = M.copy()\nx[1, 2] = 17\nresult = x",
    "setitem_rows": "x = M.copy()\nx[0:2, :] = 12\nresult = x",
    "setitem_mask": "x = f32.copy()\nx[x > 1.5] = 0\nresult = x",
    "setitem_view": "x = M.copy()\nv = x[1]\nv[:] = 5\nresult = x",
    "reshape_copies": "x = np.arange(6)\ny = x.reshape(2, 3)\ny[0, 0] = 9\nresult = x",
    "inplace_add": "x = f32.copy()\nx += 1\nresult = x",
    "inplace_id": "x = f32.copy()\ni = id(x)\nx[:] = x + 1\nresult = id(x) == i",
    # conversion and printing
    "repr_f32": "repr(np.array([1., 2.]))",
    "repr_2d": "repr(np.array([[1, 2], [3, 4]]))",
    "repr_3d": "repr(np.zeros((2, 2, 2)))",
    "repr_0d": "repr(np.array(3.5))",
    "repr_bool": "repr(b)",
    "repr_i32": "repr(i32)",
    "repr_i64": "repr(i64)",
    "repr_f64": "repr(f64)",
    "repr_f16": "repr(f16)",
    "repr_empty": "repr(np.zeros((2, 0)))",
    "repr_small": "repr(np.array([1.5, 2.25e-5]))",
    "repr_big": "repr(np.array([1e10, 1]))",
    "str_f32": "str(np.array([1., 2.]))",
    "str_0d": "str(np.array(2.))",
    "item_float": "np.array(2.5).item()",
    "item_int": "i32[0].item()",
    "item_size_error": "f32.item()",
    "tolist": "M.tolist()",
    "float_0d": "float(np.array(2.))",
    "int_0d": "int(np.array(2.))",
    "bool_0d": "bool(np.array(0.))",
    "len": "len(f32)",
    "len_0d": "len(np.array(1.))",
    "asnumpy": "f32.asnumpy()",
    "astype_int": "f32.astype(int)",
    "astype_bool": "f32.astype(bool)",
    "astype_f64": "i32.astype('float64')",
    "dtype_type": "isinstance(f32.dtype, onp.dtype)",
    "dtype_eq": "f32.dtype == onp.float32",
    "ndarray_type": "type(f32).__name__",
    "as_nd": "type(f32.as_nd_ndarray()).__name__",
    "as_nd_shares": "x = f32.copy()\nn = x.as_nd_ndarray()\nn[:] = 7\nresult = x",
    "as_np_shares": "n = mx.nd.ones(3)\nx = n.as_np_ndarray()\nx[0] = 5\nresult = n.asnumpy()",
    "as_np_type": "type(mx.nd.ones(2).as_np_ndarray()).__name__",
    "copyto_ctx": "f32.copyto(mx.cpu())",
    "as_in_ctx": "f32.as_in_ctx(mx.cpu())",
    "out_kw": "o = np.zeros(3)\nnp.add(f32, f32, out=o)\nresult = o",
    # autograd
    "grad_dot": ("x = np.arange(4.0)\nx.attach_grad()\nwith mx.autograd.record():\n"
                 "    y = 2 * np.dot(x, x)\ny.backward()\nresult = x.grad"),
    "grad_type": ("x = np.arange(3.0)\nx.attach_grad()\nwith mx.autograd.record():\n"
                  "    y = (x * x).sum()\ny.backward()\nresult = type(x.grad).__name__"),
    "grad_detach": ("x = np.arange(4.0)\nx.attach_grad()\nwith mx.autograd.record():\n"
                    "    y = x * x\n    u = y.detach()\n    z = u * x\nz.backward()\nresult = x.grad"),
    "grad_index": ("x = np.arange(6.0).reshape(2, 3)\nx.attach_grad()\n"
                   "with mx.autograd.record():\n    y = (x[1] * 3).sum() + x[0, 1]\n"
                   "y.backward()\nresult = x.grad"),
    "grad_mean_exp": ("x = np.array([0.5, 1., 2.])\nx.attach_grad()\n"
                      "with mx.autograd.record():\n    y = np.exp(x).mean()\ny.backward()\n"
                      "result = x.grad"),
    "grad_npx": ("x = np.array([-1., 2., 3.])\nx.attach_grad()\nwith mx.autograd.record():\n"
                 "    y = npx.sigmoid(npx.relu(x)).sum()\ny.backward()\nresult = x.grad"),
    # errors
    "err_mix_np_nd": "f32 + mx.nd.ones(3)",
    "err_mix_nd_np": "mx.nd.ones(3) + f32",
    "err_mix_func": "np.sum(mx.nd.ones(2))",
    "err_onp_operand": "f32 + onp.array([1., 2., 3.])",
    "err_floordiv": "f32 // 2",
    "err_unknown_fn": "np.this_function_does_not_exist",
    "err_reshape_code": "np.ones((2, 3)).reshape(-2)",
    "err_reshape_size": "f32.reshape(2, 2)",
    "err_add_i8_u8": "(i8 + u8).asnumpy()",
    # npx
    "npx_relu": "npx.relu(np.array([-1., 0., 2.]))",
    "npx_sigmoid": "npx.sigmoid(np.array([-1., 0., 2.]))",
    "npx_softmax": "npx.softmax(M / 10)",
    "npx_softmax_axis0": "npx.softmax(M / 10, axis=0)",
    "npx_log_softmax": "npx.log_softmax(M / 10)",
    "npx_activation_tanh": "npx.activation(f32 / 3, act_type='tanh')",
    "npx_activation_softrelu": "npx.activation(f32 - 2, act_type='softrelu')",
    "npx_leaky_relu": "npx.leaky_relu(np.array([-2., 3.]), act_type='leaky', slope=0.1)",
    "npx_leaky_elu": "npx.leaky_relu(np.array([-2., 3.]), act_type='elu', slope=1.0)",
    "npx_erf": "npx.erf(np.array([0., 0.5, 1.]))",
    "npx_erfinv": "npx.erfinv(np.array([0., 0.5, -0.3]))",
    "npx_gamma": "npx.gamma(np.array([1., 2.5, 4.]))",
    "npx_gammaln": "npx.gammaln(np.array([1., 2.5, 4.]))",
    "npx_smooth_l1": "npx.smooth_l1(np.array([-2., 0.3, 1.5]), scalar=1.0)",
    "npx_one_hot": "npx.one_hot(np.array([0., 2., 1.]), 3)",
    "npx_one_hot_int": "npx.one_hot(np.array([0, 2], dtype='int32'), 4)",
    "npx_pick": "npx.pick(M, np.array([0., 1., 3.]), axis=1)",
    "npx_topk": "npx.topk(M / 10, k=2)",
    "npx_topk_value": "npx.topk(M / 10, k=2, ret_typ='value')",
    "npx_topk_both": "npx.topk(M / 10, k=1, ret_typ='both')",
    "npx_batch_dot": "npx.batch_dot(T3, T3, transpose_b=True)",
    "npx_sequence_mask": ("npx.sequence_mask(T3, np.array([1., 2.]), use_sequence_length=True, "
                          "value=-1, axis=1)"),
    "npx_sequence_mask_axis0": ("npx.sequence_mask(T3, np.array([1., 2., 1.]), "
                                "use_sequence_length=True, axis=0)"),
    "npx_reshape_codes": "npx.reshape(np.ones((2, 3, 4)), (-2, -1)).shape",
    "npx_reshape_m4": "npx.reshape(np.ones((2, 3, 4)), (-2, -4)).shape",
    "npx_reshape_m5": "npx.reshape(np.ones((2, 3, 4)), (-5, -2)).shape",
    "npx_reshape_m6": "npx.reshape(np.ones((6, 4)), (-6, 2, 3, -2)).shape",
    "npx_reshape_m3": "npx.reshape(np.ones((2, 1, 4)), (-2, -3, -2)).shape",
    "npx_arange_like": "npx.arange_like(M, axis=1)",
    "npx_fully_connected": ("npx.fully_connected(M / 10, np.ones((2, 4)) / 4, np.array([1., 2.]), "
                            "num_hidden=2)"),
    "npx_fully_connected_nobias": ("npx.fully_connected(T3, np.ones((2, 12)), num_hidden=2, "
                                   "no_bias=True)"),
    "npx_convolution": ("npx.convolution(np.arange(32.).reshape(1, 2, 4, 4) / 32, "
                        "np.ones((3, 2, 3, 3)) / 9, np.array([0., 1., 2.]), kernel=(3, 3), "
                        "num_filter=3, pad=(1, 1))"),
    "npx_deconvolution": ("npx.deconvolution(np.arange(8.).reshape(1, 2, 2, 2), "
                          "np.ones((2, 1, 2, 2)), kernel=(2, 2), num_filter=1, no_bias=True)"),
    "npx_pooling_max": ("npx.pooling(np.arange(16.).reshape(1, 1, 4, 4), kernel=(2, 2), "
                        "stride=(2, 2), pool_type='max')"),
    "npx_pooling_avg": ("npx.pooling(np.arange(16.).reshape(1, 1, 4, 4), kernel=(2, 2), "
                        "pool_type='avg')"),
    "npx_pooling_global": ("npx.pooling(np.arange(16.).reshape(1, 1, 4, 4), kernel=(1, 1), "
                           "global_pool=True, pool_type='avg')"),
    "npx_batch_norm": ("npx.batch_norm(T3, np.ones(3), np.zeros(3), np.array([0.5, 1., 1.5]), "
                       "np.array([1., 2., 4.]), axis=1, fix_gamma=False, use_global_stats=True)"),
    "npx_layer_norm": "npx.layer_norm(T3, np.ones(4), np.zeros(4), axis=-1)",
    "npx_embedding": ("npx.embedding(np.array([0., 2.]), np.arange(12.).reshape(3, 4), "
                      "input_dim=3, output_dim=4)"),
    "npx_dropout_predict": "npx.dropout(f32, p=0.5)",
    "npx_rnn_tanh": ("npx.rnn(np.arange(12.).reshape(2, 2, 3) / 12, np.arange(36.) / 72, "
                     "np.zeros((1, 2, 4)), state_size=4, num_layers=1, mode='rnn_tanh')"),
    "npx_is_np_array": "npx.is_np_array()",
    "npx_is_np_shape": "npx.is_np_shape()",
    "npx_cpu": "npx.cpu()",
    "npx_num_gpus_type": "type(npx.num_gpus()).__name__",
    "npx_save_load": ("import tempfile, os\np = os.path.join(tempfile.mkdtemp(), 'a.npy')\n"
                      "npx.save(p, {'a': f32, 'b': M})\nd = npx.load(p)\n"
                      "result = [sorted(d), d['b'], type(d['a']).__name__]"),
    "npx_err_mix": "npx.relu(mx.nd.ones(2))",
    # reductions with dtype=: the total is accumulated wide and cast once
    "sum_f32_as_f16": "np.sum(np.arange(2000.) / 3000 + 0.1, dtype='float16')",
    "sum_f16_as_f16": "np.sum(np.ones(3000, dtype='float16') / 7, dtype='float16')",
    "sum_i8_as_i8": "np.sum(np.arange(40, dtype='int8'), dtype='int8')",
    "mean_i8_as_i8": "np.mean(np.array([100, 100, 101], dtype='int8'), dtype='int8')",
    "mean_f32_as_i32": "np.mean(np.array([1.5, 2.5, 4.5]), dtype='int32')",
    "mean_i32_as_f16": "np.mean(np.array([1, 2, 4], dtype='int32'), dtype='float16')",
    "insert_slice": "np.insert(np.arange(6).reshape(3, 2), slice(0, 3), np.array([[7], [8], [9]]), axis=0)",
    # gradients through casts to integers (MXNet passes them; integer inputs get them too)
    "grad_sum_int_dtype": ("x = np.arange(6, dtype='int8').reshape(2, 3)\nx.attach_grad()\n"
                           "with mx.autograd.record():\n    y = np.sum(x, axis=0, dtype='int32')\n"
                           "y.backward()\nresult = [y, x.grad]"),
    "grad_mean_to_int": ("x = np.array([[0.5, 1.5], [2., 3.]])\nx.attach_grad()\n"
                         "with mx.autograd.record():\n    y = x.mean(axis=0, dtype='int32')\n"
                         "y.backward()\nresult = [y, x.grad]"),
    "grad_hybrid_mean_to_int": (
        "class B(mx.gluon.HybridBlock):\n    def hybrid_forward(self, F, a):\n"
        "        return a.mean(axis=0, dtype='int8')\n"
        "b = B()\nb.hybridize()\nx = np.array([[0.5, 1.5], [2., 3.]], dtype='float16')\n"
        "x.attach_grad()\nwith mx.autograd.record():\n    y = b(x)\n"
        "y.backward()\nresult = [y, x.grad]"),
    "grad_hybrid_int_input": (
        "class B(mx.gluon.HybridBlock):\n    def hybrid_forward(self, F, a):\n"
        "        return F.np.sum(a * 2, axis=1)\n"
        "b = B()\nb.hybridize()\nx = np.arange(6, dtype='int32').reshape(2, 3)\n"
        "x.attach_grad()\nwith mx.autograd.record():\n    y = b(x)\n"
        "y.backward()\nresult = [y, x.grad]"),
    "insert_list": "np.insert(np.arange(6.).reshape(3, 2), [1, 2], np.ones((2, 2)), axis=0)",
    "delete_list": "np.delete(np.arange(6.), [0, 3])",
    "insert_hybrid_array_obj": (
        "class B(mx.gluon.HybridBlock):\n    def __init__(self, obj):\n"
        "        super().__init__()\n        self.obj = obj\n"
        "    def hybrid_forward(self, F, a, b):\n        return F.np.insert(a, self.obj, b, axis=1)\n"
        "b = B(np.array([1, 0], dtype='int64'))\nb.hybridize()\n"
        "result = b(np.arange(6.).reshape(3, 2), np.array([7., 8.]))"),
    "linspace_f32": "np.linspace(-2, 3.8, 30)",
    "linspace_f16": "np.linspace(-2, 3.8, 30, dtype='float16')",
    "linspace_i32": "np.linspace(-2, 3.8, 30, dtype='int32')",
    "linspace_open": "np.linspace(-3.3, 2.1, 11, endpoint=False, dtype='float64')",
    "average_returned_hybrid": (
        "class B(mx.gluon.HybridBlock):\n    def hybrid_forward(self, F, a, w):\n"
        "        return F.np.average(a, axis=1, weights=w, returned=True)\n"
        "b = B()\nb.hybridize()\nresult = list(b(np.arange(24.).reshape(2, 3, 4), "
        "np.arange(24.).reshape(2, 3, 4) % 5))"),
    "atleast_2d_hybrid": (
        "class B(mx.gluon.HybridBlock):\n    def hybrid_forward(self, F, *ts):\n"
        "        return F.np.atleast_2d(*ts)\n"
        "b = B()\nb.hybridize()\nresult = [t.shape for t in b(np.ones(()), np.ones(3))]"),
    "mask_assign_scalar": ("a = np.arange(12.).reshape(3, 4)\n"
                           "r = mx.nd.np._internal.boolean_mask_assign_scalar(a, "
                           "np.array([True, False, True], dtype=bool), 5.0, start_axis=0, out=a)\n"
                           "result = [r, a]"),
    "mask_assign_0d": "a = np.array(3.)\na[np.array(True, dtype=bool)] = np.array([42.])\nresult = a",
    "sort_kind": "np.sort(np.array([3., 1., 2.]), 0, 'mergesort')",
    "argsort_kind": "np.argsort(np.array([3., 1., 2.]), 0, 'heapsort')",
    "squeeze_0d_axis": "np.squeeze(np.array(3.), -1)",
    "broadcast_to_m2": "np.broadcast_to(np.arange(5.), (3, 4, -2)).shape",
    "broadcast_to_m2_inner": "np.broadcast_to(np.ones((3, 4)), (1, 0, -2, 4)).shape",
    "transpose_repeated": "np.ones((3, 4, 5)).transpose((0, 0, 1))",
    "meshgrid_0d": "[t.shape for t in np.meshgrid(np.ones(4), np.ones(5), np.array(1.))]",
    "tril_1d": "np.tril(np.array([1., 2., 3.]))",
    "tril_k_neg": "np.tril(np.arange(12.).reshape(3, 4), -1)",
    "ufunc_where": "np.sin(f32, where=False)",
    "ufunc_dtype": "np.add(f32, f32, dtype='int8')",
    "ufunc_casting_bad": "np.sqrt(f32, casting='bogus')",
    "ufunc_bad_kw": "np.exp(f32, foo=1)",
    "ufunc_where_true": "np.sin(f32, where=True)",
    "random_uniform_f64": "np.random.uniform(-1.0, 1.0, (2, 3), 'float64').dtype",
    "random_normal_f64": "np.random.normal(0, 1.0, size=(2,), dtype='float64').dtype",
    "softmax_empty_hybrid": (
        "class B(mx.gluon.HybridBlock):\n    def hybrid_forward(self, F, a):\n"
        "        return F.npx.softmax(a, axis=-1)\n"
        "b = B()\nb.hybridize()\nx = np.ones((0, 0))\nx.attach_grad()\n"
        "with mx.autograd.record():\n    y = b(x)\ny.backward()\nresult = [y.shape, x.grad.shape]"),
    "grad_hybrid_nd_cast_int": (
        "npx.reset_np()\nclass B(mx.gluon.HybridBlock):\n    def hybrid_forward(self, F, a):\n"
        "        return F.cast(a * 3, 'int32')\n"
        "b = B()\nb.hybridize()\nx = mx.nd.array([0.5, 1.5])\n"
        "x.attach_grad()\nwith mx.autograd.record():\n    y = b(x)\n"
        "y.backward()\nnpx.set_np()\nresult = [y, x.grad]"),
    # 0-d booleans inside a tuple key: a new axis of length 1 (True) or 0 (False)
    "getitem_true_in_tuple": "T3[0, True, np.array([[False, True, True, False]] * 3)]",
    "getitem_false_in_tuple": "T3[1, False]",
    "setitem_true_in_tuple": ("a = np.zeros((3, 2, 3))\n"
                              "a[0, True, True, np.array([[False, True, True], [True, False, False]])] = 7\n"
                              "result = a"),
    "setitem_false_in_tuple": "a = np.zeros((2, 3))\na[False, 1] = 8\nresult = a",
    # x[()] = y under autograd into an integer array: y's gradient is the head's
    "setitem_autograd_int": ("x = np.array(onp.arange(6).reshape(2, 3), dtype='int32')\n"
                             "y = np.array(onp.full((2, 3), 0.5))\ny.attach_grad()\n"
                             "with mx.autograd.record():\n    x[()] = y\n    x.backward()\n"
                             "result = [x, y.grad]"),
    # take: float indices truncated; modes
    "take_float_indices": "np.take(M, np.array([1.9, 0.2]), axis=1)",
    "take_clip": "np.take(M, np.array([5, -1]), axis=1, mode='clip')",
    "take_wrap": "np.take(M, np.array([5, -1]), axis=1, mode='wrap')",
    "take_flat": "np.take(M, np.array([11, 0]))",
    "take_raise": "np.take(M, np.array([5, -1]), axis=1).asnumpy()",
    # remainder: subnormal remainders, zero divisors, signs
    "mod_subnormal_f32": ("a = onp.nextafter(onp.float32(0), onp.float32(-1))\n"
                          "result = [np.remainder(np.array(a), np.array(onp.float32(1))),\n"
                          "          np.remainder(np.array(-a), np.array(onp.float32(-1)))]"),
    "mod_signs_f32": ("np.mod(np.array([-3., 3., 0., -0., 2., .5, -.5, 7.]),"
                      " np.array([2., -2., -1., 1., -1., -1., 1., 0.]))"),
    "mod_int_zero": "np.mod(np.array([7, -7, 0], dtype='int32'), np.array([0, 3, -2], dtype='int32'))",
    # the split family returns a list, even of one part
    "split_one_part": "np.split(np.ones((1, 6)), 1)",
    "hsplit_one_part": "np.hsplit(np.ones((1, 6)), 1)",
    # npx.random and the samplers' parameter checks (MXNet's ValueError at the read)
    "npx_bernoulli_prob01": "npx.random.bernoulli(prob=np.array([0., 1., 1.]), size=(3,))",
    "npx_bernoulli_logit_int": "npx.random.bernoulli(logit=np.array([-1e4, 1e4]), dtype='int32')",
    "npx_bernoulli_both": "npx.random.bernoulli(prob=0.5, logit=0.1)",
    "npx_bernoulli_bad_prob": "npx.random.bernoulli(prob=np.array([1.5])).asnumpy()",
    "npx_normal_n_shape": "npx.random.normal_n(np.zeros((2,)), np.ones((2,)), batch_shape=(3,)).shape",
    "npx_uniform_n_shape": "npx.random.uniform_n(0, 1, batch_shape=6).shape",
    "gamma_zero_shape": "np.random.gamma(0, 1).asnumpy()",
    "exponential_negative": "np.random.exponential(scale=-1).asnumpy()",
    "weibull_zero_a": "np.random.weibull(a=0).asnumpy()",
    "sym_random_normal_hybrid": (
        "class B(mx.gluon.HybridBlock):\n    def hybrid_forward(self, F, loc, scale):\n"
        "        return F.np.random.normal(loc=loc, scale=scale, size=(4, 3, 2))\n"
        "b = B()\nb.hybridize()\nl = np.zeros((3, 2))\nl.attach_grad()\n"
        "with mx.autograd.record():\n    y = b(l, np.ones((3, 2)))\ny.backward()\n"
        "result = [y.shape, l.grad]"),
    "constraint_check_ok": "npx.constraint_check(np.ones((2,), dtype='bool'), 'bad')",
    "constraint_check_violated": "npx.constraint_check(np.zeros((2,), dtype='bool'), 'bad').asnumpy()",
    "constraint_check_hybrid": (
        "class B(mx.gluon.HybridBlock):\n    def hybrid_forward(self, F, x, m):\n"
        "        return x * F.npx.constraint_check(m, 'bad')\n"
        "b = B()\nb.hybridize()\nresult = b(np.ones((2,)), np.zeros((2,), dtype='bool')).asnumpy()"),
    # argmax/argmin of 0-d arrays, of empty axes
    "argmax_0d_axis0": "np.argmax(np.array(3.0), axis=0)",
    "argmin_empty_axis": "np.argmin(np.zeros((5, 0, 3)), axis=1).asnumpy()",
    # delete with an index array: negative and out-of-range entries ignored; in a graph,
    # MXNet takes no array there
    "delete_array_obj": "np.delete(np.arange(6.), np.array([1, 3, -1, 9], dtype='int32'))",
    "delete_hybrid_array_obj": (
        "class B(mx.gluon.HybridBlock):\n    def hybrid_forward(self, F, x):\n"
        "        return F.np.delete(x, np.array([0, 2], dtype='int64'), axis=1)\n"
        "b = B()\nb.hybridize()\nresult = b(np.arange(12.).reshape(3, 4))"),
    "split_empty_at_index": "np.split(np.zeros((0,)), [1])",
    "array_split_uneven": "np.array_split(np.arange(7.), 3)",
    "bool_true_divide_broadcast": ("np.true_divide(np.array(onp.array([[True, False], [False, True]])),"
                                   " np.array(onp.array([[False], [True]])))"),
    "bool_concat_grad": ("a = np.array(onp.array([True, False]))\n"
                         "c = np.array(onp.array([False, False]))\na.attach_grad()\n"
                         "with mx.autograd.record():\n    y = np.concatenate([a, c])\n"
                         "y.backward()\nresult = a.grad"),
    # linalg: UPLO triangles, the reduced svd, norm's 'inf' strings
    "eigvalsh_upper": "np.linalg.eigvalsh(np.array([[2., 1.], [-5., 3.]]), UPLO='U')",
    "eigvalsh_lower": "np.linalg.eigvalsh(np.array([[2., 1.], [-5., 3.]]))",
    "svd_reduced": "[x.shape for x in np.linalg.svd(np.arange(6.).reshape(2, 3))]",
    "svd_values": "np.linalg.svd(np.array([[3., 0., 0.], [0., 4., 0.]]))[1]",
    "norm_inf_string": "np.linalg.norm(np.array([[1., -7.], [2., 3.]]), ord='inf', axis=1)",
    "quantile_interpolation": "np.quantile(np.arange(10.), 0.25, interpolation='lower')",
    "round_int_negative": "np.round(np.array([15, 25, -15, 14, 5], dtype='int32'), -1)",
    "hanning_dtype": "np.hanning(4, dtype='float64')",
    "hanning_negative": "np.hanning(-3)",
    "full_like_str_dtype_hybrid": (
        "class B(mx.gluon.HybridBlock):\n    def hybrid_forward(self, F, x):\n"
        "        return F.np.full_like(x, 0, dtype=onp.dtype('bool').name)\n"
        "b = B()\nb.hybridize()\nresult = b(np.ones((2, 2)))"),
    # tuples of index arrays; ufuncs' positional out; in-place nan_to_num
    "unravel_index_tuple": "np.unravel_index(np.array([3, 7], dtype='int32'), (3, 4))",
    "unravel_index_int_shape": "np.unravel_index(np.array(5, dtype='int64'), 10)",
    "unravel_index_hybrid": (
        "class B(mx.gluon.HybridBlock):\n    def hybrid_forward(self, F, a):\n"
        "        return F.np.unravel_index(a, (3, 4))\n"
        "b = B()\nb.hybridize()\nresult = b(np.array([3, 7], dtype='int32'))"),
    "unravel_index_order_f": "np.unravel_index(np.array([3]), (3, 4), 'F')",
    "diag_indices_from": "np.diag_indices_from(np.ones((3, 3)))",
    "isnan_positional_out": ("o = np.zeros((2,), dtype='bool')\n"
                             "np.isnan(np.array([1., onp.nan]), o)\nresult = o"),
    "isnan_float_out": "np.isnan(np.array([1., onp.nan]), out=np.zeros((2,)))",
    "add_positional_out": ("o = np.zeros((2,))\nnp.add(np.array([1., 2.]), np.array([3., 4.]), o)\n"
                           "result = o"),
    "nan_to_num_in_place": ("x = np.array([1., onp.nan, onp.inf])\n"
                            "y = np.nan_to_num(x, copy=False)\nresult = [x, y is x]"),
    "empty_like_order": "np.empty_like(np.ones((2, 3)), order='C', subok=False).shape",
    "round_underscore": "np.round_(np.array([1.26, 2.5, -0.35]), 1)",
    "unravel_index_uint8": "np.unravel_index(np.array([1, 5, 7], dtype='uint8'), (3, 4))",
    # clip keeps integer dtypes; bounds outside them clamp
    "clip_uint8_negative_bound": "np.clip(np.array(onp.array([0, 5, 200], dtype='uint8')), -120, 100)",
    "clip_int_float_bounds": "np.clip(np.array([1, 5, 9], dtype='int32'), 2.5, 7.5)",
    "tensorsolve_equal_ranks": ("np.linalg.tensorsolve(np.array(onp.full((1,) * 7, 2.0)),"
                                " np.array(onp.ones((1,) * 5)))"),
    "tensorsolve_axes": ("np.linalg.tensorsolve(np.array(onp.eye(6).reshape(2, 3, 6)),"
                         " np.array(onp.arange(6.)), axes=(2,))"),
    "eig_real_tuple": "np.linalg.eig(np.array([[2., 0.], [0., 3.]]))",
    "eig_complex_error": "np.linalg.eig(np.array([[0., -1.], [1., 0.]]))[0].asnumpy()",
    "eigvals_real": "np.linalg.eigvals(np.array([[2., 0.], [0., 3.]]))",
    "svd_tuple": "type(np.linalg.svd(np.eye(2))).__name__",
    "slogdet_list": "type(np.linalg.slogdet(np.eye(2))).__name__",
    "meshgrid_one_list": "np.meshgrid(np.array([1., 2.]))",
    "quantile_nearest": ("np.quantile(np.arange(100.), np.array([0, 0.75, 0.25, 0.5, 1.0]),"
                         " interpolation='nearest')"),
    "npx_nonzero_0d": "[npx.nonzero(np.array(0.)).shape, npx.nonzero(np.array(2.))]",
    "percentile_nearest_axis": ("np.percentile(np.arange(14.).reshape(2, 7), 50, axis=1,"
                                " interpolation='nearest', keepdims=True)"),
}


def environment(mx):
    """The namespace the cases run in (after SETUP)."""
    import numpy as onp
    from mxnet import np, npx
    env = {"mx": mx, "np": np, "npx": npx, "onp": onp}
    exec(SETUP, env)
    return env


def run(code, env):
    """The value of one case (an expression, or statements that set ``result``)."""
    local = dict(env)
    if "\n" in code or code.startswith("import "):
        exec(code, local)
        return local["result"]
    return eval(code, local)


def describe(value, key, arrays):
    """A JSON-able record of ``value``; array contents go into ``arrays`` under ``key``."""
    import numpy as onp
    kind = type(value).__name__
    module = type(value).__module__
    if kind == "ndarray" and not module.startswith("numpy") or kind == "NDArray":
        a = value.asnumpy()
        arrays[key] = a
        return {"kind": "np" if kind == "ndarray" else "nd", "dtype": str(onp.dtype(value.dtype)),
                "shape": list(a.shape)}
    if isinstance(value, onp.ndarray):
        arrays[key] = value
        return {"kind": "onp", "dtype": str(value.dtype), "shape": list(value.shape)}
    if isinstance(value, (list, tuple)):
        return {"kind": type(value).__name__,
                "items": [describe(v, f"{key}.{i}", arrays) for i, v in enumerate(value)]}
    if isinstance(value, (bool, int, float, str)) or value is None:
        return {"kind": "py", "type": type(value).__name__, "value": value}
    return {"kind": "other", "type": kind, "repr": repr(value)}


def outcome(name, env, arrays):
    try:
        return describe(run(CASES[name], env), name, arrays)
    except Exception as e:  # the error is the case's outcome
        return {"kind": "error", "type": type(e).__name__, "msg": str(e).strip().split("\n")[-1][:200],
                "classes": [c.__name__ for c in type(e).__mro__]}
