"""Element-wise binary kernels against LiteRT."""

import numpy as np
import pytest

from one_cmds.interp import Interpreter, InterpreterError
from support.single_op import check_against_litert, const, new_options, op_model

RNG = np.random.default_rng(0)

SHAPES = [
    ((1, 4, 4, 3), (1, 4, 4, 3)),
    ((2, 3, 4), (4,)),
    ((1, 5, 1), (3, 1, 6)),
    ((), (2, 2)),
    ((2, 1, 3, 1, 2), (1, 2, 1, 4, 1)),
    ((1, 2, 1, 3, 1, 2), (2, 1, 2, 1, 2, 1)),
    ((0, 3), (3,)),
]

# opcode -> options table; DIV and POW get operands kept away from 0 below.
FLOAT_OPS = {
    "ADD": "AddOptions",
    "SUB": "SubOptions",
    "MUL": "MulOptions",
    "DIV": "DivOptions",
    "SQUARED_DIFFERENCE": "SquaredDifferenceOptions",
    "MAXIMUM": "MaximumMinimumOptions",
    "MINIMUM": "MaximumMinimumOptions",
    "FLOOR_DIV": "FloorDivOptions",
    "FLOOR_MOD": "FloorModOptions",
    "POW": "PowOptions",
}
WITH_ACTIVATION = {"ADD", "SUB", "MUL", "DIV"}


def rand(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def operands(opcode, a, b):
    x, y = rand(*a) * 3, rand(*b) * 3
    if opcode in ("DIV", "FLOOR_DIV", "FLOOR_MOD"):
        y = np.where(np.abs(y) < 0.5, 1.5, y).astype(np.float32)
    if opcode == "POW":
        x = np.abs(x) + 0.1
    return [x, y]


def options(opcode, activation=0):
    fields = {"fusedActivationFunction": activation} if activation else {}
    return new_options(FLOAT_OPS[opcode], **fields)


@pytest.mark.parametrize(("a", "b"), SHAPES)
@pytest.mark.parametrize("opcode", FLOAT_OPS)
def test_float(opcode, a, b):
    check_against_litert(opcode, operands(opcode, a, b), options(opcode))


@pytest.mark.parametrize("activation", [1, 2, 3])
@pytest.mark.parametrize("opcode", sorted(WITH_ACTIVATION))
def test_fused_activation(opcode, activation):
    check_against_litert(opcode, operands(opcode, (2, 3, 4), (3, 1)), options(opcode, activation))


@pytest.mark.parametrize("opcode", ["ADD", "SUB", "MUL", "DIV"])
def test_constant_operand(opcode):
    check_against_litert(opcode, [rand(2, 3), const(rand(3))], options(opcode))
    check_against_litert(opcode, [const(np.float32(2.5)), rand(2, 3)], options(opcode))


def test_pow_negative_base():
    base = np.array([-2, -2, -0.5, 0, 0, 3], np.float32)
    exponent = np.array([3, 0.5, -2, 0, -1, 2.5], np.float32)
    check_against_litert("POW", [base, exponent], options("POW"))


def test_maximum_minimum_nan_and_signed_zero():
    a = np.array([np.nan, 1, np.nan, 0.0, -0.0, 2], np.float32)
    b = np.array([1, np.nan, np.nan, -0.0, 0.0, -np.inf], np.float32)
    for opcode in ("MAXIMUM", "MINIMUM"):
        expected = check_against_litert(opcode, [a, b], options(opcode))[0]
        got = Interpreter(op_model(opcode, [a, b], options(opcode))).run([a, b])[0]
        np.testing.assert_array_equal(np.signbit(got), np.signbit(expected))


def test_floor_mod_float_signs():
    a = np.array([5.5, -5.5, 5.5, -5.5, 6, -6, 7, 1], np.float32)
    b = np.array([2, 2, -2, -2, 3, 3, 0, np.inf], np.float32)
    check_against_litert("FLOOR_MOD", [a, b], options("FLOOR_MOD"))


INT_OPS = {  # opcode -> integer dtypes LiteRT computes without quantization
    "ADD": ["int32", "int64", "int16"],
    "SUB": ["int32", "int64"],
    "MUL": ["int32", "int64", "int16"],
    "DIV": ["int32"],
    "FLOOR_DIV": ["int32", "int16", "int8"],
    "FLOOR_MOD": ["int32", "int64", "int16", "int8"],
    "SQUARED_DIFFERENCE": ["int32"],
    "MAXIMUM": ["int32", "int64", "int16", "int8", "uint8"],
    "MINIMUM": ["int32", "int64", "int16", "int8", "uint8"],
    "POW": ["int32"],
}


@pytest.mark.parametrize(
    ("opcode", "dtype"), [(op, dt) for op, dts in INT_OPS.items() for dt in dts]
)
def test_integer(opcode, dtype):
    low = 0 if dtype == "uint8" else -20
    a = RNG.integers(low, 20, (3, 4)).astype(dtype)
    b = RNG.integers(low, 20, (4,)).astype(dtype)
    if opcode in ("DIV", "FLOOR_DIV", "FLOOR_MOD"):
        b = np.where(b == 0, 3, b).astype(dtype)
    if opcode == "POW":
        a, b = a // 4, np.abs(b) % 7
    check_against_litert(opcode, [a, b], options(opcode), outputs=[dtype.upper()])


INT_EDGES = [
    ("DIV", "int32", [-7, 7, -7, 7, -9, 0], [2, -2, -2, 2, 4, -5]),
    ("ADD", "int32", [2**31 - 1, -(2**31)], [1, -1]),
    ("MUL", "int32", [2**31 - 1, 1 << 20], [3, 1 << 12]),
    ("ADD", "int16", [30000, -30000], [30000, -30000]),
    ("MUL", "int16", [300, -300], [300, 300]),
    ("FLOOR_DIV", "int8", [-128, 100, -100], [-1, -1, 3]),
    ("SQUARED_DIFFERENCE", "int32", [1 << 20, -5], [0, 5]),
    ("POW", "int32", [3, 2, -2, 0, 5], [20, 31, 31, 0, 0]),
]


@pytest.mark.parametrize(("opcode", "dtype", "a", "b"), INT_EDGES)
def test_integer_edges(opcode, dtype, a, b):
    """Truncating DIV, wrapping overflow, INT_MIN for an overflowing integer POW."""
    a, b = np.array(a, dtype), np.array(b, dtype)
    check_against_litert(opcode, [a, b], options(opcode), outputs=[dtype.upper()])


@pytest.mark.parametrize("activation", [1, 2, 3])
def test_integer_fused_activation(activation):
    a = np.array([-9, -1, 0, 3, 9, 40], np.int32)
    b = np.array([4, 1, 1, 1, 1, 2], np.int32)
    for opcode in sorted(WITH_ACTIVATION):
        check_against_litert(opcode, [a, b], options(opcode, activation), outputs=["INT32"])


@pytest.mark.parametrize("opcode", ["DIV", "FLOOR_DIV", "FLOOR_MOD"])
def test_integer_division_by_zero_is_an_error(opcode):
    a, b = np.array([1, 2], np.int32), np.array([1, 0], np.int32)
    model = op_model(opcode, [a, b], options(opcode), outputs=["INT32"])
    with pytest.raises(InterpreterError, match="division by zero"):
        Interpreter(model).run([a, b])


def test_float_floor_div_by_zero_is_an_error():
    a, b = rand(2), np.array([1, 0], np.float32)
    with pytest.raises(InterpreterError, match="division by zero"):
        Interpreter(op_model("FLOOR_DIV", [a, b], options("FLOOR_DIV"))).run([a, b])


def test_integer_pow_negative_exponent_is_an_error():
    a, b = np.array([2], np.int32), np.array([-1], np.int32)
    with pytest.raises(InterpreterError, match="negative exponents"):
        Interpreter(op_model("POW", [a, b], options("POW"), outputs=["INT32"])).run([a, b])


@pytest.mark.parametrize("count", [2, 3, 5])
@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_add_n(count, dtype):
    inputs = [(rand(2, 3, 4) * 10).astype(dtype) for _ in range(count)]
    check_against_litert("ADD_N", inputs, new_options("AddNOptions"), outputs=[dtype.upper()])
