"""Element-wise unary kernels against LiteRT."""

import numpy as np
import pytest

from support.single_op import check_against_litert

RNG = np.random.default_rng(1)

ANY_SIGN = ["EXP", "SQUARE", "ABS", "NEG", "FLOOR", "CEIL", "ROUND", "SIN", "COS", "SIGN"]
POSITIVE = ["LOG", "SQRT", "RSQRT"]
SHAPES = [(), (7,), (2, 3, 4), (1, 2, 3, 2, 2), (0, 3)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("opcode", ANY_SIGN)
def test_any_sign(opcode, shape):
    check_against_litert(opcode, [(RNG.standard_normal(shape) * 4).astype(np.float32)])


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("opcode", POSITIVE)
def test_positive(opcode, shape):
    x = np.exp(RNG.uniform(-8, 8, shape)).astype(np.float32)
    check_against_litert(opcode, [x])


SPECIAL = np.array([-0.0, 0.0, -np.inf, np.inf, np.nan, 1e30, -1e30], np.float32)


@pytest.mark.parametrize("opcode", ["ABS", "NEG", "FLOOR", "CEIL", "ROUND", "SIGN", "SQUARE"])
def test_special_values(opcode):
    check_against_litert(opcode, [SPECIAL])


def test_domain_errors_give_nan():
    x = np.array([-1, -0.5, -np.inf], np.float32)
    for opcode in POSITIVE:
        check_against_litert(opcode, [x])
    check_against_litert("LOG", [np.array([0.0, -0.0], np.float32)])
    check_against_litert("EXP", [np.array([-np.inf, 100, -100], np.float32)])


def test_round_half_to_even():
    x = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 0.49999997, 8388609.0], np.float32)
    check_against_litert("ROUND", [x])


@pytest.mark.parametrize(
    ("opcode", "dtype"),
    [
        ("ABS", "int32"),
        ("ABS", "int16"),
        ("NEG", "int32"),
        ("NEG", "int64"),
        ("NEG", "int16"),
        ("SIGN", "int32"),
        ("SIGN", "float64"),
    ],
)
def test_other_types(opcode, dtype):
    x = RNG.integers(-50, 50, (3, 5)).astype(dtype)
    x[0, :3] = [0, np.iinfo(np.int16).max, np.iinfo(np.int16).min + 1]
    check_against_litert(opcode, [x], outputs=[dtype.upper()])
