"""Element-wise operators: unary math and activations, broadcasting binaries, comparisons."""

from __future__ import annotations

from ..common import broadcast, merge, same_as_input
from ..registry import rule


@rule(
    # unary math
    "ABS", "NEG", "EXP", "LOG", "SQRT", "RSQRT", "SQUARE", "FLOOR", "CEIL", "ROUND", "SIN",
    "COS", "SIGN", "LOGICAL_NOT",
    # activations and normalizations along an axis
    "LOGISTIC", "TANH", "RELU", "RELU6", "RELU_N1_TO_1", "RELU_0_TO_1", "LEAKY_RELU", "ELU",
    "HARD_SWISH", "GELU", "SOFTMAX", "LOG_SOFTMAX", "L2_NORMALIZATION",
    "LOCAL_RESPONSE_NORMALIZATION", "FAKE_QUANT",
    # one data input plus attribute-like operands
    "ZEROS_LIKE", "CUMSUM", "REVERSE_V2", "REVERSE_SEQUENCE", "MATRIX_SET_DIAG", "DENSIFY",
)  # fmt: skip
def elementwise(op, ctx):
    """Output shape and dtype = input 0's (resize.md §9.2); shared because the rule is the
    definition of these operators' shapes, not a coincidence."""
    return same_as_input(ctx)


@rule(
    "ADD", "SUB", "MUL", "DIV", "POW", "SQUARED_DIFFERENCE", "MAXIMUM", "MINIMUM",
    "FLOOR_DIV", "FLOOR_MOD", "PRELU",
)  # fmt: skip
def arithmetic(op, ctx):
    """Broadcasting binary arithmetic (and PRELU's alpha): the broadcast table, input 0's
    dtype."""
    return [(broadcast(ctx.shape(0), ctx.shape(1)), ctx.dtype(0))]


@rule(
    "EQUAL", "NOT_EQUAL", "LESS", "LESS_EQUAL", "GREATER", "GREATER_EQUAL", "LOGICAL_AND",
    "LOGICAL_OR",
)  # fmt: skip
def comparison(op, ctx):
    """Broadcasting comparisons and logical binaries: BOOL."""
    return [(broadcast(ctx.shape(0), ctx.shape(1)), "BOOL")]


@rule("QUANTIZE", "DEQUANTIZE", "CAST")
def conversion(op, ctx):
    """Input 0's shape; the output type is the operator's attribute (the declared dtype)."""
    return [(ctx.shape(0), ctx.output_dtype(0))]


@rule("ADD_N")
def add_n(op, ctx):
    """Every input has the same shape."""
    shapes = [ctx.shape(i) for i in range(ctx.num_inputs)]
    return [(merge(shapes, "ADD_N inputs"), ctx.dtype(0))]


@rule("SELECT")
def select(op, ctx):
    """x and y have one shape; the condition matches it or its first dimension."""
    return [(merge([ctx.shape(1), ctx.shape(2)], "SELECT operands"), ctx.dtype(1))]


@rule("SELECT_V2")
def select_v2(op, ctx):
    return [(broadcast(ctx.shape(0), ctx.shape(1), ctx.shape(2)), ctx.dtype(1))]
