"""Element-wise, activation, comparison and conversion rules against LiteRT."""

import numpy as np
import pytest

from support.shape_helpers import check_litert, infer_op, rand
from support.single_op import const, new_options

UNARY = [
    ("ABS", None), ("NEG", None), ("EXP", None), ("LOG", None), ("SQRT", None),
    ("RSQRT", None), ("SQUARE", None), ("FLOOR", None), ("CEIL", None), ("ROUND", None),
    ("SIN", None), ("COS", None), ("SIGN", None), ("LOGISTIC", None), ("TANH", None),
    ("RELU", None), ("RELU6", None), ("RELU_N1_TO_1", None), ("RELU_0_TO_1", None),
    ("ELU", None), ("HARD_SWISH", None),
    ("LEAKY_RELU", new_options("LeakyReluOptions", alpha=0.2)),
    ("GELU", new_options("GeluOptions")),
    ("SOFTMAX", new_options("SoftmaxOptions", beta=1.0)),
    ("LOG_SOFTMAX", new_options("LogSoftmaxOptions")),
    ("L2_NORMALIZATION", new_options("L2NormOptions")),
    ("LOCAL_RESPONSE_NORMALIZATION",
     new_options("LocalResponseNormalizationOptions", radius=2, bias=1.0, alpha=1.0, beta=0.5)),
    ("ZEROS_LIKE", None),
]  # fmt: skip


@pytest.mark.parametrize(("opcode", "options"), UNARY, ids=[u[0] for u in UNARY])
def test_unary(opcode, options):
    x = np.abs(rand(1, 3, 4, 5)) + 0.1
    check_litert(opcode, [x], options)


def test_unary_scalar():
    check_litert("EXP", [np.float32(0.5)])


def test_logical_not():
    check_litert("LOGICAL_NOT", [np.array([[True, False]])], outputs=["BOOL"])


BROADCASTS = [((1, 4, 4, 3), (1, 4, 4, 3)), ((2, 3, 4), (4,)), ((1, 5, 1), (3, 1, 6)),
              ((), (2, 2)), ((2, 1), ()), ((), ())]  # fmt: skip
BINARY = [
    ("ADD", new_options("AddOptions")), ("SUB", new_options("SubOptions")),
    ("MUL", new_options("MulOptions")), ("DIV", new_options("DivOptions")),
    ("POW", None), ("SQUARED_DIFFERENCE", None), ("MAXIMUM", None), ("MINIMUM", None),
    ("FLOOR_DIV", None), ("FLOOR_MOD", None),
]  # fmt: skip


@pytest.mark.parametrize(("opcode", "options"), BINARY, ids=[b[0] for b in BINARY])
@pytest.mark.parametrize(("a", "b"), BROADCASTS)
def test_binary_broadcast(opcode, options, a, b):
    check_litert(opcode, [np.abs(rand(*a)) + 1, np.abs(rand(*b)) + 1], options)


def test_binary_int32():
    check_litert("ADD", [np.ones((2, 3), np.int32), np.ones((3,), np.int32)],
                 new_options("AddOptions"), outputs=["INT32"])  # fmt: skip


COMPARISONS = ["EQUAL", "NOT_EQUAL", "LESS", "LESS_EQUAL", "GREATER", "GREATER_EQUAL"]


@pytest.mark.parametrize("opcode", COMPARISONS)
def test_comparison(opcode):
    check_litert(opcode, [rand(2, 1, 4), rand(3, 1)], outputs=["BOOL"])


@pytest.mark.parametrize("opcode", ["LOGICAL_AND", "LOGICAL_OR"])
def test_logical_binary(opcode):
    a = np.array([[True], [False]])
    check_litert(opcode, [a, np.array([True, False, True])], outputs=["BOOL"])


def test_add_n():
    check_litert("ADD_N", [rand(2, 3), rand(2, 3), rand(2, 3)])


def test_prelu_broadcasts_alpha():
    check_litert("PRELU", [rand(1, 4, 4, 3), const(rand(1, 1, 3))])


def test_select_same_shapes():
    cond = np.array([[True, False, True], [False, True, True]])
    check_litert("SELECT", [cond, rand(2, 3), rand(2, 3)])


@pytest.mark.parametrize(("c", "x", "y"), [((2, 1, 3), (1, 4, 1), (3,)), ((), (2, 2), (2, 2))])
def test_select_v2_broadcasts(c, x, y):
    check_litert("SELECT_V2", [np.ones(c, bool), rand(*x), rand(*y)])


@pytest.mark.parametrize(("to", "dtype"), [(2, "INT32"), (6, "BOOL"), (0, "FLOAT32")])
def test_cast(to, dtype):
    options = new_options("CastOptions", inDataType=0, outDataType=to)
    check_litert("CAST", [rand(2, 3)], options, outputs=[dtype])


def test_quantize_and_dequantize_keep_shape_take_declared_type():
    [(shape, dtype)] = infer_op("QUANTIZE", [rand(1, 2, 3)], outputs=["INT8"])
    assert (shape, dtype) == ((1, 2, 3), "INT8")
    [(shape, dtype)] = infer_op("DEQUANTIZE", [np.zeros((4,), np.int8)])
    assert (shape, dtype) == ((4,), "FLOAT32")


@pytest.mark.parametrize(
    ("opcode", "extra"),
    [("CUMSUM", [const(np.int32(1))]), ("REVERSE_V2", [const(np.array([1], np.int32))])],
)
def test_same_shape_with_axis_operand(opcode, extra):
    check_litert(opcode, [rand(2, 3, 4), *extra])


def test_reverse_sequence():
    lengths = const(np.array([1, 2], np.int32))
    options = new_options("ReverseSequenceOptions", seqDim=1, batchDim=0)
    check_litert("REVERSE_SEQUENCE", [rand(2, 3, 4), lengths], options)


def test_matrix_set_diag():
    check_litert("MATRIX_SET_DIAG", [rand(2, 3, 3), rand(2, 3)])
