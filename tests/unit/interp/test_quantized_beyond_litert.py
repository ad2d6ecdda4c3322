"""Quantized kernels LiteRT does not have, so that every model the quantizer writes runs.

UINT8 versions of INT8 arithmetic are judged against LiteRT's INT8 kernels on the same values
moved by 128 (the arithmetic only sees ``q - zero_point``); the others against a float
simulation: the operands dequantized, the float function, the result quantized (within 1 LSB).
"""

import math

import numpy as np
import pytest

from one_cmds.interp import Interpreter
from support.litert import REFERENCE, run_model
from support.quantized import NUMPY, qparam, qrand, quantized_model
from support.single_op import const, new_options

RNG = np.random.default_rng(29)


def as_int8(model, shift_zero_points=True):
    """The UINT8 single-operator ``model`` moved to INT8 (values and zero points - 128)."""
    moved = model.copy()
    op = moved.main.operators[0]
    for t in (*op.inputs, *op.outputs):
        if t is not None and t.dtype == "UINT8":
            t.dtype = "INT8"
            if shift_zero_points:
                t.quant.zero_point = t.quant.zero_point - 128
    return moved


def run(model, inputs):
    return Interpreter(model).run(list(inputs))[0]


def check_uint8_as_int8(opcode, operands, quants, out_quant):
    """The interpreter's UINT8 result is LiteRT's INT8 result on the moved values, + 128."""
    model = quantized_model(opcode, operands, quants, "UINT8", out_quant)
    got = run(model, operands)
    moved = [(x.astype(np.int16) - 128).astype(np.int8) for x in operands]
    (expected,) = run_model(as_int8(model), moved, REFERENCE)
    np.testing.assert_array_equal(got.astype(np.int16), expected.astype(np.int16) + 128)


def dequantize(q, quant, axis=-1):
    scale, zp = np.asarray(quant.scale, np.float64), np.asarray(quant.zero_point, np.float64)
    if scale.size > 1:
        shape = [1] * q.ndim
        shape[axis] = scale.size
        scale, zp = scale.reshape(shape), zp.reshape(shape)
    return (q.astype(np.float64) - zp) * scale


def quantize(x, quant, dtype):
    info = np.iinfo(NUMPY[dtype])
    q = np.round(x / float(quant.scale[0])) + int(quant.zero_point[0])
    return np.clip(q, info.min, info.max)


def assert_within_one(got, expected):
    assert np.max(np.abs(got.astype(np.int64) - expected.astype(np.int64))) <= 1


# --- UINT8 with the INT8 arithmetic ---------------------------------------------------------


@pytest.mark.parametrize(("s_in", "s_out"), [(0.02, 0.02), (0.05, 0.03)])
def test_uint8_abs(s_in, s_out):
    x = np.arange(256, dtype=np.uint8)
    check_uint8_as_int8("ABS", [x], [qparam(s_in, 120)], qparam(s_out, 3))


@pytest.mark.parametrize("opcode", ["SQRT", "RSQRT", "EXP", "LOG"])
def test_uint8_unary_functions(opcode):
    low = 100 if opcode in ("SQRT", "RSQRT") else 0  # no negative inputs
    x = np.arange(low, 256, dtype=np.uint8)
    check_uint8_as_int8(opcode, [x], [qparam(0.03, 100)], qparam(0.05, 20))


@pytest.mark.parametrize(("s1", "s2", "so"), [(0.05, 0.03, 0.1), (0.02, 0.02, 0.01)])
def test_uint8_squared_difference(s1, s2, so):
    a, b = qrand(RNG, "UINT8", 2, 3, 8), qrand(RNG, "UINT8", 3, 8)
    check_uint8_as_int8(
        "SQUARED_DIFFERENCE", [a, b], [qparam(s1, 130), qparam(s2, 120)], qparam(so, 5)
    )


# --- against a float simulation ---------------------------------------------------------------


def test_uint8_neg():
    x = np.arange(256, dtype=np.uint8)
    q_in, q_out = qparam(0.03, 100), qparam(0.031, 155)
    got = run(quantized_model("NEG", [x], [q_in], "UINT8", q_out), [x])
    assert_within_one(got, quantize(-dequantize(x, q_in), q_out, "UINT8"))


def test_int16_squared_difference():
    a, b = qrand(RNG, "INT16", 4, 50), qrand(RNG, "INT16", 50)
    q1, q2, qo = qparam(3e-4), qparam(2e-4), qparam(6e-3)
    got = run(quantized_model("SQUARED_DIFFERENCE", [a, b], [q1, q2], "INT16", qo), [a, b])
    expected = quantize((dequantize(a, q1) - dequantize(b, q2)) ** 2, qo, "INT16")
    assert_within_one(got, expected)


def test_int16_hard_swish():
    x = np.linspace(-32768, 32767, 2000).astype(np.int16)
    q_in, q_out = qparam(4e-4), qparam(3e-4)
    got = run(quantized_model("HARD_SWISH", [x], [q_in], "INT16", q_out), [x])
    real = dequantize(x, q_in)
    assert_within_one(got, quantize(real * np.clip(real + 3, 0, 6) / 6, q_out, "INT16"))


@pytest.mark.parametrize(
    ("dtype", "q_in", "q_out"),
    [
        ("UINT8", qparam(0.02, 128), qparam(2 / 255, 128)),
        ("INT8", qparam(0.02, -3), qparam(1 / 127)),
        ("INT16", qparam(1e-4), qparam(1 / 32767)),
    ],
)
def test_quantized_erf(dtype, q_in, q_out):
    info = np.iinfo(NUMPY[dtype])
    x = np.linspace(info.min, info.max, 3000).astype(NUMPY[dtype])
    model = quantized_model("CUSTOM", [x], [q_in], dtype, q_out, custom_code="Erf")
    got = run(model, [x])
    erf = np.vectorize(math.erf)(dequantize(x, q_in))
    assert_within_one(got, quantize(erf, q_out, dtype))


@pytest.mark.parametrize("alpha_dtype", ["INT8", "INT16"])
def test_int16_prelu_with_channel_alpha(alpha_dtype):
    """Per-channel alpha (one scale per channel), int8 or int16."""
    x = qrand(RNG, "INT16", 2, 5, 4)
    alpha = qrand(RNG, alpha_dtype, 4)
    q_x, q_out = qparam(2e-4), qparam(3e-4)
    q_alpha = qparam([0.01, 0.02, 0.005, 0.03], 0)
    model = quantized_model("PRELU", [x, const(alpha)], [q_x, q_alpha], "INT16", q_out)
    got = run(model, [x])
    real, slope = dequantize(x, q_x), dequantize(alpha, q_alpha)
    assert_within_one(got, quantize(np.where(real >= 0, real, real * slope), q_out, "INT16"))


def test_quantizer_int16_add_takes_general_scales():
    """Scales that are powers of two but with no input at the output scale: LiteRT's
    power-of-two path refuses them, the general one (pot_scale_int16 false) adds."""
    a, b = qrand(RNG, "INT16", 40), qrand(RNG, "INT16", 40)
    qa, qb, qo = qparam(2.0**-12), qparam(2.0**-11), qparam(2.0**-10)
    options = new_options("AddOptions", potScaleInt16=False)
    model = quantized_model("ADD", [a, b], [qa, qb], "INT16", qo, options)
    got = run(model, [a, b])
    assert_within_one(got, quantize(dequantize(a, qa) + dequantize(b, qb), qo, "INT16"))
