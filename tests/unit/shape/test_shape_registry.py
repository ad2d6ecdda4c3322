"""Coverage of the rule set (resize.md §10) and the circle-only rules."""

import numpy as np
import pytest

from one_cmds.ir import Graph, Model, Operator, Tensor
from one_cmds.shape import RULES, ShapeInferenceError, infer_shapes, rule
from support.shape_helpers import infer_op, infer_shape, rand
from support.single_op import const, new_options

N = None

# resize.md §10 plus the interpreter's operator list.
# fmt: off
REQUIRED = {
    "ABS", "ADD", "ADD_N", "ARG_MAX", "ARG_MIN", "AVERAGE_POOL_2D", "BATCH_MATMUL",
    "BATCH_TO_SPACE_ND", "BROADCAST_TO", "CAST", "CEIL", "CONCATENATION", "CONV_2D", "COS",
    "CUMSUM", "CUSTOM", "DENSIFY", "DEPTH_TO_SPACE", "DEPTHWISE_CONV_2D", "DEQUANTIZE", "DIV",
    "ELU", "EQUAL", "EXP", "EXPAND_DIMS", "FAKE_QUANT", "FILL", "FLOOR", "FLOOR_DIV",
    "FLOOR_MOD", "FULLY_CONNECTED", "GATHER", "GATHER_ND", "GELU", "GREATER", "GREATER_EQUAL",
    "HARD_SWISH", "IF", "L2_NORMALIZATION", "L2_POOL_2D", "LEAKY_RELU", "LESS", "LESS_EQUAL",
    "LOCAL_RESPONSE_NORMALIZATION", "LOG", "LOGICAL_AND", "LOGICAL_NOT", "LOGICAL_OR",
    "LOGISTIC", "LOG_SOFTMAX", "MATRIX_DIAG", "MATRIX_SET_DIAG", "MAXIMUM", "MAX_POOL_2D",
    "MEAN", "MINIMUM", "MIRROR_PAD", "MUL", "NEG", "NON_MAX_SUPPRESSION_V4",
    "NON_MAX_SUPPRESSION_V5", "NOT_EQUAL", "ONE_HOT", "PACK", "PAD", "PADV2", "POW", "PRELU",
    "QUANTIZE", "RANGE", "RANK", "REDUCE_ANY", "REDUCE_MAX", "REDUCE_MIN", "REDUCE_PROD",
    "RELU", "RELU6", "RELU_N1_TO_1", "RELU_0_TO_1", "RESHAPE", "RESIZE_BILINEAR",
    "RESIZE_NEAREST_NEIGHBOR", "REVERSE_SEQUENCE", "REVERSE_V2", "ROUND", "RSQRT",
    "SCATTER_ND", "SEGMENT_SUM", "SELECT", "SELECT_V2", "SHAPE", "SIN", "SIGN", "SLICE",
    "SOFTMAX", "SPACE_TO_BATCH_ND", "SPACE_TO_DEPTH", "SPARSE_TO_DENSE", "SPLIT", "SPLIT_V",
    "SQRT", "SQUARE", "SQUARED_DIFFERENCE", "SQUEEZE", "STRIDED_SLICE", "SUB", "SUM", "SVDF",
    "TANH", "TILE", "TOPK_V2", "TRANSPOSE", "TRANSPOSE_CONV", "UNIDIRECTIONAL_SEQUENCE_LSTM",
    "UNIQUE", "UNPACK", "WHERE", "WHILE", "ZEROS_LIKE", "CALL_ONCE", "BCQ_FULLY_CONNECTED",
    "BCQ_GATHER", "INSTANCE_NORM", "RMS_NORM", "ROPE",
}
# fmt: on


def test_every_required_operator_has_a_rule():
    assert sorted(REQUIRED - set(RULES)) == []


def test_a_second_rule_for_an_opcode_is_refused():
    with pytest.raises(ValueError, match="two shape rules for ADD"):
        rule("ADD")(lambda op, ctx: [])


@pytest.mark.parametrize("opcode", ["INSTANCE_NORM", "RMS_NORM", "ROPE"])
def test_circle_normalizations_keep_the_shape(opcode):
    assert infer_op(opcode, [rand(1, 4, 4, 3), const(rand(3)), const(rand(3))],
                    shapes=[(N, 4, 4, 3)]) == [((N, 4, 4, 3), "FLOAT32")]  # fmt: skip


def test_bcq_fully_connected():
    """Output [sum of cluster bits, input dim 1] (luci)."""
    clusters = const(np.array([[4, 2], [8, 3]], np.int32))
    operands = [
        rand(16, 5),
        const(rand(5)),
        const(np.zeros((5, 1), np.int32)),
        const(rand(5)),
        clusters,
    ]
    assert infer_shape(
        "BCQ_FULLY_CONNECTED", operands, new_options("BCQFullyConnectedOptions")
    ) == (5, 5)
    assert infer_shape("BCQ_FULLY_CONNECTED", operands, shapes=[(16, N)]) == (5, N)


@pytest.mark.parametrize(
    ("axis", "hidden", "expected"),
    [(0, 0, (2, 3, 64)), (1, 0, (5, 2, 3)), (0, 60, (2, 3, 60))],
)
def test_bcq_gather(axis, hidden, expected):
    """Table [sum of cluster sizes, input_hidden_size or columns * 32] gathered along
    ``axis``."""
    clusters = const(np.array([[4, 2], [6, 3]], np.int32))
    operands = [
        const(rand(5)),
        const(np.zeros((50, 2), np.int32)),
        const(np.zeros((2, 3), np.int32)),
        clusters,
    ]
    assert (
        infer_shape(
            "BCQ_GATHER",
            operands,
            new_options("BCQGatherOptions", axis=axis, inputHiddenSize=hidden),
        )
        == expected
    )


def test_densify_keeps_the_dense_shape():
    assert infer_op("DENSIFY", [const(rand(4, 4))]) == [((4, 4), "FLOAT32")]


def test_fake_quant():
    assert infer_op("FAKE_QUANT", [rand(2, 3)], new_options("FakeQuantOptions", min=-1.0, max=1.0, numBits=8),
                    shapes=[(N, 3)]) == [((N, 3), "FLOAT32")]  # fmt: skip


def test_malformed_operator_is_reported_with_its_name():
    with pytest.raises(
        ShapeInferenceError, match=r"^ADD \(graph 0, operator 0\): malformed operator"
    ):
        infer_op("ADD", [rand(2)])


def test_resource_variables_keep_declared_shapes():
    handle = Tensor("handle", "RESOURCE", ())
    value = Tensor("value", "FLOAT32", (2, 3))
    read = Tensor("read", "FLOAT32", (2, 3))
    ops = [
        Operator("VAR_HANDLE", [], [handle], new_options("VarHandleOptions")),
        Operator("ASSIGN_VARIABLE", [handle, value], []),
        Operator("READ_VARIABLE", [handle], [read]),
    ]
    model = Model(graphs=[Graph("main", [value], [read], ops)])
    assert not infer_shapes(model)
    assert [op.opcode for op in model.main.operators] == [
        "VAR_HANDLE",
        "ASSIGN_VARIABLE",
        "READ_VARIABLE",
    ]
