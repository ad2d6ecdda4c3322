"""The fixed order in which the passes run (optimization.md §4.1). Every name is a pass of the
registry (:mod:`one_cmds.passes`) or an argument option; a test checks it."""

from __future__ import annotations

# Options that are arguments of ``convert_nchw_to_nhwc``, not passes of their own.
ARGUMENTS = frozenset({"nchw_to_nhwc_input_shape", "nchw_to_nhwc_output_shape"})

# Passes of phase 1 and 3, run once on the whole model before the graph phases.
FIRST = "dynamic_batch_to_single_batch"
MODULE_PHASE = ("fuse_bcq",)

# Item 25: always on (reference ``XpSepActFromTransposeConv``); not a one-optimize option.
SEPARATE_TCONV_ACTIVATION = "separate_transpose_conv_activation"

# Phase 5, per subgraph, after dead-operator removal and shape/type inference.
MAIN_PHASE = (
    "common_subexpression_elimination",
    "resolve_customop_add",
    "resolve_customop_batchmatmul",
    "resolve_customop_matmul",
    "fuse_mean_with_mean",
    "resolve_customop_max_pool_with_argmax",
    "resolve_customop_splitv",
    "fuse_instnorm",
    "fuse_batchnorm_with_conv",
    "fuse_batchnorm_with_dwconv",
    "fuse_batchnorm_with_tconv",
    "fuse_slice_with_tconv",
    "fuse_add_with_fully_connected",
    "fuse_add_with_tconv",
    "fuse_activation_function",
    "fuse_prelu",
    "fuse_gelu",
    "fuse_horizontal_fc_layers",
    "fuse_transpose_with_mean",
    "fold_add_v2",
    "fold_cast",
    "fold_densify",
    "fold_dwconv",
    "fold_dequantize",
    "fold_fully_connected",
    "fold_gather",
    "fold_sparse_to_dense",
    "fuse_preactivation_batchnorm",
    "make_batchnorm_gamma_positive",
    "shuffle_weight_to_16x1float32",
    "expand_broadcast_const",
    "remove_fakequant",
    "remove_quantdequant",
    "remove_unnecessary_add",
    "remove_unnecessary_reshape",
    "remove_unnecessary_slice",
    "remove_unnecessary_strided_slice",
    "remove_unnecessary_split",
    "remove_redundant_reshape",
    "remove_redundant_transpose",
    "remove_redundant_quantize",
    "replace_non_const_fc_with_batch_matmul",
    "replace_cw_mul_add_with_depthwise_conv",
    "replace_sub_with_add",
    "replace_with_fc_gelu_fc",
    "substitute_pack_to_reshape",
    "substitute_padv2_to_pad",
    "substitute_splitv_to_split",
    "substitute_squeeze_to_reshape",
    "substitute_strided_slice_to_reshape",
    "substitute_transpose_to_reshape",
    "transform_min_max_to_relu6",
    "transform_min_relu_to_relu6",
    "decompose_hardswish",
    "decompose_softmax",
    "unroll_unidirseqlstm",
    SEPARATE_TCONV_ACTIVATION,
    "forward_reshape_to_unaryop",
    "forward_transpose_op",
)
ALWAYS = frozenset({SEPARATE_TCONV_ACTIVATION})

# Phase 4: with ``convert_nchw_to_nhwc``, these run (the resolvers always, in the order of
# phase 5, the two fusions when enabled) before the conversion itself.
NCHW_CONVERSION = "convert_nchw_to_nhwc"
NCHW_RESOLVERS = tuple(name for name in MAIN_PHASE if name.startswith("resolve_customop_"))
NCHW_OPTIONAL = ("fuse_add_with_fully_connected", "fuse_gelu")

# The order of the rewrite report: phase 5, then the passes that run once.
REPORT_ORDER = (*MAIN_PHASE, FIRST, *MODULE_PHASE, NCHW_CONVERSION)
