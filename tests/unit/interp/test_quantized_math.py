"""Quantized MAXIMUM, MINIMUM, NEG, ABS, SQRT, RSQRT, EXP, LOG, SQUARED_DIFFERENCE, DIV, SUM,
REDUCE_MAX and REDUCE_MIN against LiteRT's reference kernels (exact); the types LiteRT lacks are
in test_quantized_beyond_litert.py."""

import numpy as np
import pytest

from one_cmds.interp import Interpreter, InterpreterError
from support.litert import BUILTIN, run_model
from support.quantized import NUMPY, assert_exact, qparam, qrand, quantized_model, zero_point
from support.single_op import const, new_options

RNG = np.random.default_rng(13)
RELU, RELU_N1_TO_1, RELU6 = 1, 2, 3


def every_value(dtype, low=None):
    """Every representable value (INT8 / UINT8) or a spread sample with the extremes (INT16)."""
    info = np.iinfo(NUMPY[dtype])
    low = info.min if low is None else low
    if dtype != "INT16":
        return np.arange(low, info.max + 1).astype(NUMPY[dtype])
    values = np.concatenate([[low, low + 1, info.max, 0, 1, 2], qrand(RNG, dtype, 600, low=low)])
    return np.unique(np.clip(values, low, info.max)).astype(np.int16)


def check_unary(opcode, x, q_in, dtype, q_out):
    assert_exact(quantized_model(opcode, [x], [q_in], dtype, q_out), [x])


def refused(opcode, operands, quants, dtype, out_quant, match, options=None):
    model = quantized_model(opcode, operands, quants, dtype, out_quant, options)
    inputs = [o for o in operands if isinstance(o, np.ndarray)]
    with pytest.raises(InterpreterError, match=match):
        Interpreter(model).run(inputs)


# --- MAXIMUM / MINIMUM / NEG -------------------------------------------------------------


@pytest.mark.parametrize("opcode", ["MAXIMUM", "MINIMUM"])
@pytest.mark.parametrize("dtype", ["INT8", "UINT8", "INT16"])
@pytest.mark.parametrize(("shape1", "shape2"), [((2, 3, 8), (2, 3, 8)), ((2, 1, 4, 5), (3, 1, 5))])
def test_maximum_minimum(opcode, dtype, shape1, shape2):
    """Raw integers compared, whatever the (here differing) parameters, as LiteRT."""
    a, b = qrand(RNG, dtype, *shape1), qrand(RNG, dtype, *shape2)
    quants = [qparam(0.05, zero_point(RNG, dtype)), qparam(0.02, zero_point(RNG, dtype))]
    assert_exact(
        quantized_model(opcode, [a, b], quants, dtype, qparam(0.03, zero_point(RNG, dtype))), [a, b]
    )


@pytest.mark.parametrize("opcode", ["MAXIMUM", "MINIMUM"])
def test_maximum_minimum_constant_operand(opcode):
    a, b = qrand(RNG, "INT8", 3, 4), qrand(RNG, "INT8", 4)
    q = qparam(0.04, 3)
    assert_exact(quantized_model(opcode, [a, const(b)], [q, q], "INT8", q), [a])


@pytest.mark.parametrize("dtype", ["INT8", "INT16"])
def test_neg(dtype):
    """Raw negation in the type (the lowest value wraps onto itself), parameters ignored."""
    x = every_value(dtype)
    check_unary(
        "NEG", x, qparam(0.05, zero_point(RNG, dtype)), dtype, qparam(0.07, zero_point(RNG, dtype))
    )


# --- ABS / SQRT / RSQRT / EXP / LOG --------------------------------------------------------


@pytest.mark.parametrize("dtype", ["INT8", "INT16"])
@pytest.mark.parametrize(("s_in", "s_out"), [(0.05, 0.05), (0.05, 0.03), (0.02, 0.09)])
def test_abs(dtype, s_in, s_out):
    """Equal scales add the zero points only; different ones rescale."""
    x = every_value(dtype)
    check_unary(
        "ABS", x, qparam(s_in, zero_point(RNG, dtype)), dtype, qparam(s_out, zero_point(RNG, dtype))
    )


@pytest.mark.parametrize("dtype", ["INT8", "INT16"])
@pytest.mark.parametrize(("s_in", "s_out"), [(0.05, 0.02), (0.3, 0.05), (0.001, 0.0007)])
def test_sqrt(dtype, s_in, s_out):
    """float32 sqrt truncated toward zero; inputs at or above the zero point."""
    zp_in = zero_point(RNG, dtype)
    x = every_value(dtype, low=zp_in)
    check_unary("SQRT", x, qparam(s_in, zp_in), dtype, qparam(s_out, zero_point(RNG, dtype)))


@pytest.mark.parametrize("dtype", ["INT8", "INT16"])
@pytest.mark.parametrize(("s_in", "s_out"), [(0.05, 0.04), (0.5, 0.01), (0.002, 0.3)])
def test_rsqrt(dtype, s_in, s_out):
    """Fixed-point inverse square root (INT8, the maximum at the zero point) or the table."""
    zp_in = zero_point(RNG, dtype)
    x = every_value(dtype, low=zp_in)
    check_unary("RSQRT", x, qparam(s_in, zp_in), dtype, qparam(s_out, zero_point(RNG, dtype)))


@pytest.mark.parametrize("opcode", ["SQRT", "RSQRT"])
@pytest.mark.parametrize("dtype", ["INT8", "INT16"])
def test_negative_input_is_an_error(opcode, dtype):
    x = np.array([3, -1, 5], NUMPY[dtype])
    refused(opcode, [x], [qparam(0.1)], dtype, qparam(0.1), "defined for")


@pytest.mark.parametrize("opcode", ["EXP", "LOG"])
@pytest.mark.parametrize("dtype", ["INT8", "INT16"])
@pytest.mark.parametrize(("s_in", "s_out"), [(0.02, 0.05), (0.05, 0.3), (0.0005, 0.001)])
def test_lookup_tables(opcode, dtype, s_in, s_out):
    """expf / logf tables over every input (LOG of a non-positive input: the lowest value)."""
    x = every_value(dtype)
    check_unary(
        opcode,
        x,
        qparam(s_in, zero_point(RNG, dtype)),
        dtype,
        qparam(s_out, zero_point(RNG, dtype)),
    )


@pytest.mark.parametrize("opcode", ["ABS", "SQRT", "RSQRT", "EXP", "LOG"])
def test_int16_zero_point_is_an_error(opcode):
    x = np.array([1, 2, 3], np.int16)
    refused(opcode, [x], [qparam(0.01, 4)], "INT16", qparam(0.01), "zero point 0")


# --- SQUARED_DIFFERENCE / DIV ----------------------------------------------------------------


@pytest.mark.parametrize(("shape1", "shape2"), [((2, 3, 8), (2, 3, 8)), ((2, 1, 4, 5), (3, 1, 5))])
@pytest.mark.parametrize(("s1", "s2", "so"), [(0.05, 0.03, 0.1), (0.02, 0.02, 0.01), (0.1, 0.3, 2)])
def test_squared_difference(shape1, shape2, s1, s2, so):
    a, b = qrand(RNG, "INT8", *shape1), qrand(RNG, "INT8", *shape2)
    quants = [qparam(s1, zero_point(RNG, "INT8")), qparam(s2, zero_point(RNG, "INT8"))]
    assert_exact(
        quantized_model("SQUARED_DIFFERENCE", [a, b], quants, "INT8", qparam(so, 5)), [a, b]
    )


def divisor(dtype, zp, *shape):
    """Random divisors avoiding a raw 0 and the zero point (both refused)."""
    b = qrand(RNG, dtype, *shape).astype(np.int64)
    b = np.where((b == 0) | (b == zp), zp + 1 if zp + 1 != 0 else zp + 2, b)
    return b.astype(NUMPY[dtype])


@pytest.mark.parametrize("dtype", ["UINT8", "INT8", "INT16"])
@pytest.mark.parametrize(("shape1", "shape2"), [((2, 3, 8), (2, 3, 8)), ((2, 1, 4, 5), (3, 1, 5))])
@pytest.mark.parametrize(
    ("s1", "s2", "so"), [(0.05, 0.03, 0.1), (0.02, 0.1, 0.001), (0.3, 0.01, 4)]
)
def test_div(dtype, shape1, shape2, s1, s2, so):
    z1, z2, zo = zero_point(RNG, dtype), zero_point(RNG, dtype), zero_point(RNG, dtype)
    a, b = qrand(RNG, dtype, *shape1), divisor(dtype, z2, *shape2)
    quants = [qparam(s1, z1), qparam(s2, z2)]
    model = quantized_model("DIV", [a, b], quants, dtype, qparam(so, zo), new_options("DivOptions"))
    assert_exact(model, [a, b])


@pytest.mark.parametrize("dtype", ["UINT8", "INT8", "INT16"])
@pytest.mark.parametrize("activation", [RELU, RELU_N1_TO_1, RELU6])
def test_div_activation(dtype, activation):
    z2 = zero_point(RNG, dtype)
    a, b = qrand(RNG, dtype, 4, 16), divisor(dtype, z2, 4, 16)
    quants = [qparam(0.04, zero_point(RNG, dtype)), qparam(0.05, z2)]
    options = new_options("DivOptions", fusedActivationFunction=activation)
    assert_exact(
        quantized_model(
            "DIV", [a, b], quants, dtype, qparam(0.02, zero_point(RNG, dtype)), options
        ),
        [a, b],
    )


@pytest.mark.parametrize("dtype", ["UINT8", "INT8", "INT16"])
def test_div_small_dividend_large_divisor(dtype):
    """Dividends near zero over divisors far from it ask LiteRT for shifts past 31 (x86
    shift counts wrap)."""
    info = np.iinfo(NUMPY[dtype])
    zp = {"UINT8": 128, "INT8": 3, "INT16": 0}[dtype]
    a = np.arange(zp - 4, zp + 5).astype(NUMPY[dtype])[:, None]
    b = np.array([info.min + 1, zp - 60, zp + 60, info.max], NUMPY[dtype])[None, :]
    quants = [qparam(0.3, zp), qparam(0.01, zp)]
    model = quantized_model(
        "DIV", [a, b], quants, dtype, qparam(4.0, zp), new_options("DivOptions")
    )
    assert_exact(model, [a, b])


def test_div_by_zero_is_an_error():
    """A divisor at its zero point (real zero), as LiteRT's ``data[i] != zero_point``."""
    a, b = np.array([3, 4], np.uint8), np.array([1, 2], np.uint8)
    quants = [qparam(0.1, 1), qparam(0.1, 1)]
    refused(
        "DIV", [a, b], quants, "UINT8", qparam(0.1), "division by zero", new_options("DivOptions")
    )


def test_div_by_a_raw_zero_of_another_zero_point_divides():
    """int8 raw 0 with zero point -128 is 128 steps: LiteRT divides by it (PP-OCR rec's
    LayerNorm divisor)."""
    a = np.array([[-20, 0, 50, 127]], np.int8)
    b = np.array([[0, 0, 1, -1]], np.int8)
    quants = [qparam(0.05, 0), qparam(0.01, -128)]
    model = quantized_model(
        "DIV", [a, b], quants, "INT8", qparam(0.02, 0), new_options("DivOptions")
    )
    assert_exact(model, [a, b])


# --- SUM / REDUCE_MAX / REDUCE_MIN --------------------------------------------------------------


def reduce_model(opcode, x, axes, keep, q_in, q_out):
    options = new_options("ReducerOptions", keepDims=keep)
    operands = [x, const(np.array(axes, np.int32))]
    return quantized_model(opcode, operands, [q_in, None], str(x.dtype).upper(), q_out, options)


@pytest.mark.parametrize("opcode", ["REDUCE_MAX", "REDUCE_MIN"])
@pytest.mark.parametrize("dtype", ["INT8", "UINT8", "INT16"])
@pytest.mark.parametrize(("axes", "keep"), [([1], False), ([0, 2], True), ([-1, 1, 1], False)])
def test_reduce_max_min(opcode, dtype, axes, keep):
    """The existing kernel on the raw integers (LiteRT requires equal parameters)."""
    x = qrand(RNG, dtype, 3, 5, 7)
    q = qparam(0.05, zero_point(RNG, dtype))
    assert_exact(reduce_model(opcode, x, axes, keep, q, q), [x])


SUM_SCALES = [(0.05, 0.05), (0.05, 0.5), (0.01, 0.003), (0.2, 40.0)]
SUM_AXES = [([1], False), ([0, 2], True), ([-1, 1, 1], False)]


@pytest.mark.parametrize(("s_in", "s_out"), SUM_SCALES)
@pytest.mark.parametrize(("axes", "keep"), SUM_AXES)
def test_sum_uint8(s_in, s_out, axes, keep):
    """Fixed-point rescaling of the integer sum, saturated (exact against the reference)."""
    x = qrand(RNG, "UINT8", 3, 5, 7)
    q_in, q_out = qparam(s_in, zero_point(RNG, "UINT8")), qparam(s_out, zero_point(RNG, "UINT8"))
    assert_exact(reduce_model("SUM", x, axes, keep, q_in, q_out), [x])


@pytest.mark.parametrize("dtype", ["INT8", "INT16"])
@pytest.mark.parametrize(("s_in", "s_out"), SUM_SCALES)
@pytest.mark.parametrize(("axes", "keep"), SUM_AXES)
def test_sum_signed(dtype, s_in, s_out, axes, keep):
    """LiteRT 2.3's reference SUM reads INT8 / INT16 data as UINT8 (garbage), so these are
    judged by its builtin kernel, which rescales in float: within 1 LSB."""
    x = qrand(RNG, dtype, 3, 5, 7)
    q_in, q_out = qparam(s_in, zero_point(RNG, dtype)), qparam(s_out, zero_point(RNG, dtype))
    model = reduce_model("SUM", x, axes, keep, q_in, q_out)
    (expected,) = run_model(model, [x], BUILTIN)
    (got,) = Interpreter(model).run([x])
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_allclose(got.astype(np.int64), expected.astype(np.int64), atol=1, rtol=0)


def test_sum_int16_zero_point_is_an_error():
    x = np.array([[1, 2], [3, 4]], np.int16)
    model = reduce_model("SUM", x, [1], False, qparam(0.1, 2), qparam(0.1))
    with pytest.raises(InterpreterError, match="zero point 0"):
        Interpreter(model).run([x])
