"""What xnd still lacks of MXNet 1.9.1's surface and has no reason not to have (issue 41's
remaining work): names not yet provided (`_GAPS`) and functions whose parameters differ from
MXNet's (`_SIGNATURE_GAPS`), by MXNet module.  xnd/porting/surface_exceptions.py reads them
(``xnd check`` reports a use as not yet provided); tests/test_surface_inventory.py fails on a
gap that is no longer one, so this file only shrinks.  Regenerate nothing: delete entries as
they are filled."""

GAP = "not yet in xnd (in progress: issue 41)"
SIGNATURE_GAP = "parameters differ from MXNet's (in progress: issue 41)"

_GAPS = {
    "mxnet": "np_symbol rnd th",
    "mxnet.autograd": "Symbol",
    "mxnet.base": "add_fileline_to_docstring c2pyerror libinfo",
    "mxnet.contrib.amp.amp": "base symbol_contrib trainer",
    "mxnet.contrib.ndarray": "BatchNormWithReLU RROIAlign group_adagrad_update hawkesll",
    "mxnet.contrib.onnx.onnx2mx.import_model": "GraphProto",
    "mxnet.contrib.onnx.onnx2mx.import_onnx": "GraphProto",
    "mxnet.contrib.onnx.onnx2mx.import_to_gluon": "GraphProto",
    "mxnet.contrib.svrg_optimization.svrg_module": "mx",
    "mxnet.contrib.svrg_optimization.svrg_optimizer": "mx",
    "mxnet.contrib.symbol": "BatchNormWithReLU RROIAlign group_adagrad_update hawkesll",
    "mxnet.contrib.text.vocab": "C",
    "mxnet.gluon.block": "np_symbol",
    "mxnet.gluon.contrib.data.sampler": "sampler",
    "mxnet.gluon.contrib.data.text": "C base dataset text",
    "mxnet.gluon.data.dataloader": (
        "ConnectionWrapper DataLoaderV1 Queue SimpleQueue fetcher_loop_v1 rebuild_ndarray "
        "rebuild_np_ndarray reduce_ndarray reduce_np_ndarray worker_loop_v1"
    ),
    "mxnet.gluon.data.vision.transforms": "image",
    "mxnet.gluon.nn.basic_layers": "nd sym",
    "mxnet.image": "recordio",
    "mxnet.image.image": "recordio",
    "mxnet.io": "ImageRecordIter_v1 ImageRecordUInt8Iter_v1",
    "mxnet.io.io": (
        "CSRNDArray CSVIter ImageDetRecordIter ImageRecordInt8Iter ImageRecordIter "
        "ImageRecordIter_v1 ImageRecordUInt8Iter ImageRecordUInt8Iter_v1 LibSVMIter "
        "MNISTIter"
    ),
    "mxnet.io.utils": "CSRNDArray",
    "mxnet.module.bucketing_module": "ctx",
    "mxnet.module.executor_group": "ctx",
    "mxnet.module.module": "ctx",
    "mxnet.ndarray": (
        "IdentityAttachKLSparseReg get_indexing_dispatch_code get_oshape_of_gather_nd_op "
        "imdecode indexing_key_expand_implicit_axes"
    ),
    "mxnet.ndarray.contrib": (
        "BatchNormWithReLU RROIAlign group_adagrad_update hawkesll multi_lamb_update "
        "multi_mp_lamb_update mx"
    ),
    "mxnet.ndarray.gen_contrib": "BatchNormWithReLU RROIAlign group_adagrad_update hawkesll",
    "mxnet.ndarray.gen_op": "IdentityAttachKLSparseReg",
    "mxnet.ndarray.gen_sparse": "adagrad_update",
    "mxnet.ndarray.ndarray": (
        "check_boolean_array_dimension from_dlpack from_numpy get_indexing_dispatch_code "
        "get_oshape_of_gather_nd_op imdecode indexing_key_expand_implicit_axes "
        "to_dlpack_for_read to_dlpack_for_write"
    ),
    "mxnet.ndarray.op": "CachedOp IdentityAttachKLSparseReg",
    "mxnet.ndarray.sparse": "adagrad_update op",
    "mxnet.numpy.multiarray": (
        "abs fallback from_numpy get_indexing_dispatch_code get_oshape_of_gather_nd_op "
        "indexing_key_expand_implicit_axes is_recording round wrap_np_binary_func "
        "wrap_np_unary_func"
    ),
    "mxnet.numpy_dispatch_protocol": "mx_np",
    "mxnet.numpy_op_signature": "mx_np mx_npx",
    "mxnet.optimizer": "NDabs",
    "mxnet.optimizer.optimizer": "multi_lamb_update multi_mp_lamb_update",
    "mxnet.symbol": "IdentityAttachKLSparseReg",
    "mxnet.symbol.contrib": (
        "BatchNormWithReLU RROIAlign cond group_adagrad_update hawkesll symbol uniform "
        "while_loop"
    ),
    "mxnet.symbol.gen_contrib": "BatchNormWithReLU RROIAlign group_adagrad_update hawkesll",
    "mxnet.symbol.gen_op": "IdentityAttachKLSparseReg",
    "mxnet.symbol.gen_sparse": "adagrad_update",
    "mxnet.symbol.numpy": "histogram may_share_memory product shares_memory sometrue",
    "mxnet.symbol.numpy.random": "current_context rand",
    "mxnet.symbol.numpy_extension.random": "current_context",
    "mxnet.symbol.op": "IdentityAttachKLSparseReg",
    "mxnet.symbol.sparse": "adagrad_update",
    "mxnet.test_utils": "np_symbol",
    "mxnet.util": "np_ufunc_legal_option wrap_np_binary_func wrap_np_unary_func",
}

_SIGNATURE_GAPS = {
    "mxnet.contrib.ndarray": "SparseEmbedding SyncBatchNorm arange_like boolean_mask",
    "mxnet.contrib.symbol": "SparseEmbedding arange_like",
    "mxnet.gluon.data.vision.transforms": "RandomBrightness RandomContrast RandomHue RandomSaturation",
    "mxnet.gluon.model_zoo.vision.mobilenet": "RELU6",
    "mxnet.gluon.nn": (
        "AvgPool1D AvgPool2D AvgPool3D Conv1D Conv1DTranspose Conv2D Conv2DTranspose "
        "Conv3D Conv3DTranspose Flatten GELU MaxPool1D MaxPool2D MaxPool3D SELU"
    ),
    "mxnet.gluon.nn.activations": "GELU SELU",
    "mxnet.gluon.nn.basic_layers": "Flatten",
    "mxnet.gluon.nn.conv_layers": (
        "AvgPool1D AvgPool2D AvgPool3D Conv1D Conv1DTranspose Conv2D Conv2DTranspose "
        "Conv3D Conv3DTranspose MaxPool1D MaxPool2D MaxPool3D"
    ),
    "mxnet.image": "imdecode imread imresize",
    "mxnet.image.image": "copyMakeBorder imdecode imread imresize",
    "mxnet.io": "CSVIter LibSVMIter MNISTIter",
    "mxnet.module.module": "zeros",
    "mxnet.ndarray": "choose_element_0index from_numpy power zeros",
    "mxnet.ndarray.contrib": "SparseEmbedding SyncBatchNorm arange_like boolean_mask",
    "mxnet.ndarray.gen_contrib": "SparseEmbedding arange_like",
    "mxnet.ndarray.gen_op": "choose_element_0index",
    "mxnet.ndarray.ndarray": "Features power",
    "mxnet.ndarray.op": "choose_element_0index",
    "mxnet.ndarray.utils": "zeros",
    "mxnet.optimizer": "SGLD Test ccSGD",
    "mxnet.optimizer.contrib": "zeros",
    "mxnet.optimizer.optimizer": "SGLD Test ccSGD zeros",
    "mxnet.rnn": "ConvGRUCell ConvLSTMCell ConvRNNCell",
    "mxnet.rnn.rnn_cell": "ConvGRUCell ConvLSTMCell ConvRNNCell",
    "mxnet.runtime": "Features",
    "mxnet.symbol": "Group choose_element_0index pow power",
    "mxnet.symbol.contrib": "SparseEmbedding arange_like",
    "mxnet.symbol.gen_contrib": "SparseEmbedding arange_like",
    "mxnet.symbol.gen_op": "choose_element_0index",
    "mxnet.symbol.op": "choose_element_0index",
    "mxnet.symbol.random": (
        "exponential gamma generalized_negative_binomial negative_binomial normal poisson "
        "uniform"
    ),
    "mxnet.symbol.symbol": "Group pow power",
    "mxnet.test_utils": "Features",
    "mxnet.tvmop": "Features",
}


def entries(table, why):
    """(pattern, reason) pairs of a table {module: "name name ..."}."""
    return tuple((f"{m}:{n}", why) for m, names in table.items() for n in names.split())


GAPS = entries(_GAPS, GAP)
SIGNATURE_GAPS = entries(_SIGNATURE_GAPS, SIGNATURE_GAP)
