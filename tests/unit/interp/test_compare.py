"""Comparison, logical and select kernels against LiteRT."""

import numpy as np
import pytest

from support.single_op import check_against_litert, new_options

RNG = np.random.default_rng(3)

COMPARISONS = {
    "EQUAL": "EqualOptions",
    "NOT_EQUAL": "NotEqualOptions",
    "LESS": "LessOptions",
    "LESS_EQUAL": "LessEqualOptions",
    "GREATER": "GreaterOptions",
    "GREATER_EQUAL": "GreaterEqualOptions",
}
SHAPES = [
    ((2, 3, 4), (2, 3, 4)),
    ((2, 3, 4), (4,)),
    ((3, 1), (1, 5)),
    ((), (2, 2)),
    ((1, 2, 1, 3), (2, 1, 4, 1)),
    ((0, 3), (3,)),
]


def values(shape, dtype):
    """Small integers, so that equal pairs occur, in ``dtype``."""
    if dtype == "bool":
        return RNG.integers(0, 2, shape).astype(bool)
    return RNG.integers(-3, 4, shape).astype(dtype)


@pytest.mark.parametrize(("a", "b"), SHAPES)
@pytest.mark.parametrize("opcode", COMPARISONS)
def test_comparison_float(opcode, a, b):
    x, y = values(a, "float32"), values(b, "float32")
    check_against_litert(opcode, [x, y], new_options(COMPARISONS[opcode]), outputs=["BOOL"])


@pytest.mark.parametrize("dtype", ["int32", "int64"])
@pytest.mark.parametrize("opcode", COMPARISONS)
def test_comparison_integer(opcode, dtype):
    x, y = values((3, 4), dtype), values((4,), dtype)
    check_against_litert(opcode, [x, y], new_options(COMPARISONS[opcode]), outputs=["BOOL"])


@pytest.mark.parametrize("opcode", ["EQUAL", "NOT_EQUAL"])
def test_equality_of_bools(opcode):
    x, y = values((3, 4), "bool"), values((3, 1), "bool")
    check_against_litert(opcode, [x, y], new_options(COMPARISONS[opcode]), outputs=["BOOL"])


def test_comparison_nan():
    x = np.array([np.nan, 1, np.nan, -0.0, np.inf], np.float32)
    y = np.array([1, np.nan, np.nan, 0.0, np.inf], np.float32)
    for opcode, options in COMPARISONS.items():
        check_against_litert(opcode, [x, y], new_options(options), outputs=["BOOL"])


@pytest.mark.parametrize(("a", "b"), SHAPES)
@pytest.mark.parametrize(
    ("opcode", "options"),
    [("LOGICAL_AND", "LogicalAndOptions"), ("LOGICAL_OR", "LogicalOrOptions")],
)
def test_logical_binary(opcode, options, a, b):
    x, y = values(a, "bool"), values(b, "bool")
    check_against_litert(opcode, [x, y], new_options(options), outputs=["BOOL"])


@pytest.mark.parametrize("shape", [(), (5,), (2, 3, 4)])
def test_logical_not(shape):
    check_against_litert(
        "LOGICAL_NOT", [values(shape, "bool")], new_options("LogicalNotOptions"), outputs=["BOOL"]
    )


@pytest.mark.parametrize("condition", [(2, 3, 4), (2,), ()])
@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_select(condition, dtype):
    operands = [values(condition, "bool"), values((2, 3, 4), dtype), values((2, 3, 4), dtype)]
    check_against_litert("SELECT", operands, new_options("SelectOptions"), outputs=[dtype.upper()])


@pytest.mark.parametrize(
    ("condition", "x", "y"),
    [
        ((2, 3, 4), (2, 3, 4), (2, 3, 4)),
        ((3, 1), (1, 4), ()),
        ((), (2, 3), (2, 3)),
        ((1, 3, 1), (2, 1, 4), (4,)),
        ((2, 1, 2, 1, 3), (1, 2, 1, 2, 1), (3,)),
    ],
)
def test_select_v2(condition, x, y):
    operands = [values(condition, "bool"), values(x, "float32"), values(y, "float32")]
    check_against_litert("SELECT_V2", operands, new_options("SelectV2Options"))
