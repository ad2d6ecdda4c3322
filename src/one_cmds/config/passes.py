"""The one-optimize pass options (reference ``onelib/constant.py`` ``OPTIMIZATION_OPTS``) and
the O1 group. Configuration data only: the registry of the passes
(:mod:`one_cmds.passes`) holds the implementations, and a test ties these names to it."""

from __future__ import annotations

O1 = "O1"  # the group tag of the O1 passes (§17.3.2)

# (name, help, *groups) in the reference order (cli-and-config.md §17.3.1).
_TABLE: tuple[tuple[str, ...], ...] = (
    (
        "convert_nchw_to_nhwc",
        "Experimental: This will convert NCHW operators to NHWC under the assumption that input "
        "model is NCHW.",
    ),
    ("common_subexpression_elimination", "perform common subexpression elimination", O1),
    ("expand_broadcast_const", "expand broadcastable constant node inputs"),
    (
        "nchw_to_nhwc_input_shape",
        "convert the input shape of the model (argument for convert_nchw_to_nhwc)",
    ),
    (
        "nchw_to_nhwc_output_shape",
        "convert the output shape of the model (argument for convert_nchw_to_nhwc)",
    ),
    ("fold_add_v2", "fold AddV2 op with constant inputs", O1),
    ("fold_cast", "fold Cast op with constant input", O1),
    ("fold_densify", "fold Densify op with sparse constant input", O1),
    ("fold_dequantize", "fold Dequantize op", O1),
    ("fold_dwconv", "fold Depthwise Convolution op with constant inputs", O1),
    ("fold_fully_connected", "fold FullyConnected op with constant inputs", O1),
    ("fold_gather", "fold Gather op", O1),
    ("fold_sparse_to_dense", "fold SparseToDense op", O1),
    ("forward_reshape_to_unaryop", "Forward Reshape op", O1),
    ("forward_transpose_op", "Forward Transpose op", O1),
    ("fuse_add_with_tconv", "fuse Add op to Transposed", O1),
    ("fuse_add_with_fully_connected", "fuse Add op to FullyConnected op", O1),
    ("fuse_batchnorm_with_conv", "fuse BatchNorm op to Convolution op", O1),
    ("fuse_batchnorm_with_dwconv", "fuse BatchNorm op to Depthwise Convolution op", O1),
    ("fuse_batchnorm_with_tconv", "fuse BatchNorm op to Transposed Convolution op", O1),
    ("fuse_slice_with_tconv", "fuse Slice op to Transposed Convolution op", O1),
    ("fuse_bcq", "apply Binary Coded Quantization"),
    (
        "fuse_preactivation_batchnorm",
        "fuse BatchNorm operators of pre-activations to Convolution op",
    ),
    ("fuse_mean_with_mean", "fuse two consecutive Mean ops", O1),
    (
        "fuse_transpose_with_mean",
        "fuse Mean with a preceding Transpose under certain conditions",
        O1,
    ),
    (
        "fuse_horizontal_fc_layers",
        "fuse horizontal FullyConnected layers under certain conditions",
        O1,
    ),
    (
        "make_batchnorm_gamma_positive",
        "make negative gamma of BatchNorm to a small positive value (1e-10). Note that this pass "
        "can change the execution result of the model. So, use it only when the impact is known "
        "to be acceptable.",
    ),
    ("fuse_activation_function", "fuse Activation function to a preceding operator", O1),
    ("fuse_instnorm", "fuse ops to InstanceNorm operator", O1),
    ("fuse_prelu", "fuse ops to PReLU operator", O1),
    ("fuse_gelu", "fuse ops to GeLU operator", O1),
    (
        "replace_cw_mul_add_with_depthwise_conv",
        "replace channel-wise Mul/Add with DepthwiseConv2D",
    ),
    ("remove_fakequant", "remove FakeQuant ops"),
    ("remove_quantdequant", "remove Quantize-Dequantize sequence"),
    ("remove_redundant_quantize", "remove redundant Quantize ops"),
    ("remove_redundant_reshape", "fuse or remove subsequent Reshape ops", O1),
    ("remove_redundant_transpose", "fuse or remove subsequent Transpose ops", O1),
    ("remove_unnecessary_add", "remove unnecessary add ops", O1),
    ("remove_unnecessary_reshape", "remove unnecessary reshape ops", O1),
    ("remove_unnecessary_slice", "remove unnecessary slice ops", O1),
    ("remove_unnecessary_strided_slice", "remove unnecessary strided slice ops", O1),
    ("remove_unnecessary_split", "remove unnecessary split ops", O1),
    (
        "replace_non_const_fc_with_batch_matmul",
        "replace FullyConnected op with non-const weights to BatchMatMul op",
        O1,
    ),
    ("replace_sub_with_add", "replace Sub op with Add op"),
    ("replace_with_fc_gelu_fc", "replace a certain pattern with FC-Gelu-FC ops", O1),
    ("resolve_customop_add", "convert Custom(Add) op to Add op", O1),
    ("resolve_customop_batchmatmul", "convert Custom(BatchMatmul) op to BatchMatmul op", O1),
    ("resolve_customop_matmul", "convert Custom(Matmul) op to Matmul op", O1),
    (
        "resolve_customop_max_pool_with_argmax",
        "convert Custom(MaxPoolWithArgmax) to net of builtin operators",
        O1,
    ),
    ("resolve_customop_splitv", "convert Custom(SplitV) op to SplitV op", O1),
    (
        "shuffle_weight_to_16x1float32",
        "convert weight format of FullyConnected op to SHUFFLED16x1FLOAT32. Note that it only "
        "converts weights whose row is a multiple of 16",
    ),
    ("substitute_pack_to_reshape", "convert single input Pack op to Reshape op", O1),
    ("substitute_padv2_to_pad", "convert certain condition PadV2 to Pad", O1),
    ("substitute_splitv_to_split", "convert certain condition SplitV to Split", O1),
    ("substitute_squeeze_to_reshape", "convert certain condition Squeeze to Reshape", O1),
    (
        "substitute_strided_slice_to_reshape",
        "convert certain condition StridedSlice to Reshape",
        O1,
    ),
    ("substitute_transpose_to_reshape", "convert certain condition Transpose to Reshape", O1),
    ("transform_min_max_to_relu6", "transform Minimum-Maximum pattern to Relu6 op", O1),
    ("transform_min_relu_to_relu6", "transform Minimum(6)-Relu pattern to Relu6 op", O1),
    ("decompose_hardswish", "decompose the HardSwish op to Add, Mul and Relu6 ops"),
    (
        "decompose_softmax",
        "decompose the Softmax op to Max, Sub, Exp, Sum, Div and optionally Mul ops",
    ),
    ("unroll_unidirseqlstm", "unroll UnidirectionalSequenceLSTM op"),
    (
        "dynamic_batch_to_single_batch",
        "convert dynamic batch size (first dimension) of inputs to 1",
    ),
)

PASS_OPTIONS: tuple[tuple[str, str], ...] = tuple((name, text) for name, text, *_ in _TABLE)

PASS_NAMES: tuple[str, ...] = tuple(name for name, *_ in _TABLE)

# The O1 list (§17.3.2): the intended 46 names, in pass table order.
O1_PASSES: tuple[str, ...] = tuple(name for name, _, *groups in _TABLE if O1 in groups)
