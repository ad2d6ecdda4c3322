"""Quantized ADD, SUB, MUL and CONCATENATION against LiteRT's reference kernels (exact)."""

import numpy as np
import pytest

from one_cmds.interp import Interpreter, InterpreterError
from support.quantized import assert_exact, qparam, qrand, quantized_model, zero_point
from support.single_op import const, new_options

RNG = np.random.default_rng(11)
OPTIONS = {"ADD": "AddOptions", "SUB": "SubOptions", "MUL": "MulOptions"}
RELU, RELU_N1_TO_1, RELU6 = 1, 2, 3


def random_quants(dtype, count):
    return [qparam(RNG.uniform(0.005, 0.1), zero_point(RNG, dtype)) for _ in range(count)]


@pytest.mark.parametrize("opcode", ["ADD", "SUB", "MUL"])
@pytest.mark.parametrize("dtype", ["INT8", "UINT8", "INT16"])
@pytest.mark.parametrize(("shape1", "shape2"), [((2, 3, 8), (2, 3, 8)), ((2, 1, 4, 5), (3, 1, 5))])
def test_binary(opcode, dtype, shape1, shape2):
    """Random scales (one input's above, one below the output's) and zero points."""
    for _ in range(4):
        q1, q2, qo = random_quants(dtype, 3)
        a, b = qrand(RNG, dtype, *shape1), qrand(RNG, dtype, *shape2)
        options = new_options(OPTIONS[opcode])
        if opcode != "MUL":
            options.potScaleInt16 = False
        assert_exact(quantized_model(opcode, [a, b], [q1, q2], dtype, qo, options), [a, b])


@pytest.mark.parametrize("opcode", ["ADD", "SUB", "MUL"])
@pytest.mark.parametrize("dtype", ["INT8", "UINT8", "INT16"])
@pytest.mark.parametrize("activation", [RELU, RELU_N1_TO_1, RELU6])
def test_binary_activation(opcode, dtype, activation):
    """Fused activations clamp in the quantized domain, at the output's scale."""
    q1, q2 = random_quants(dtype, 2)
    qo = qparam(0.03, zero_point(RNG, dtype))
    a, b = qrand(RNG, dtype, 4, 16), qrand(RNG, dtype, 4, 16)
    options = new_options(OPTIONS[opcode], fusedActivationFunction=activation)
    if opcode != "MUL":
        options.potScaleInt16 = False
    assert_exact(quantized_model(opcode, [a, b], [q1, q2], dtype, qo, options), [a, b])


@pytest.mark.parametrize("opcode", ["ADD", "SUB", "MUL"])
def test_binary_constant_operand(opcode):
    a, b = qrand(RNG, "INT8", 3, 4), qrand(RNG, "INT8", 4)
    q1, q2, qo = random_quants("INT8", 3)
    model = quantized_model(
        opcode, [a, const(b)], [q1, q2], "INT8", qo, new_options(OPTIONS[opcode])
    )
    assert_exact(model, [a])


@pytest.mark.parametrize("opcode", ["ADD", "SUB"])
@pytest.mark.parametrize(("e1", "e2", "eo"), [(-10, -10, -10), (-12, -10, -10), (-10, -13, -10)])
def test_int16_power_of_two_scales(opcode, e1, e2, eo):
    """INT16 with power-of-two scales (``potScaleInt16``): the shift-only path."""
    a, b = qrand(RNG, "INT16", 2, 64), qrand(RNG, "INT16", 2, 64)
    quants = [qparam(2.0**e1), qparam(2.0**e2)]
    options = new_options(OPTIONS[opcode], fusedActivationFunction=RELU6)
    assert_exact(quantized_model(opcode, [a, b], quants, "INT16", qparam(2.0**eo), options), [a, b])


@pytest.mark.parametrize("opcode", ["ADD", "SUB"])
def test_int16_default_options_general_scales(opcode):
    """``potScaleInt16`` set but scales not powers of two: the general path."""
    a, b = qrand(RNG, "INT16", 3, 40), qrand(RNG, "INT16", 40)
    quants = [qparam(0.0013), qparam(0.0021)]
    model = quantized_model(
        opcode, [a, b], quants, "INT16", qparam(0.003), new_options(OPTIONS[opcode])
    )
    assert_exact(model, [a, b])


@pytest.mark.parametrize("opcode", ["ADD", "SUB", "MUL"])
def test_int16_zero_point_is_an_error(opcode):
    """LiteRT refuses INT16 operands with a zero point (symmetric only)."""
    a, b = qrand(RNG, "INT16", 5), qrand(RNG, "INT16", 5)
    quants = [qparam(0.001, 5), qparam(0.002)]
    options = new_options(OPTIONS[opcode])
    model = quantized_model(opcode, [a, b], quants, "INT16", qparam(0.003), options)
    with pytest.raises(InterpreterError, match="zero points of 0"):
        Interpreter(model).run([a, b])


def test_int16_power_of_two_scales_both_shifted_is_an_error():
    a, b = qrand(RNG, "INT16", 4), qrand(RNG, "INT16", 4)
    quants = [qparam(2.0**-12), qparam(2.0**-11)]
    model = quantized_model(
        "ADD", [a, b], quants, "INT16", qparam(2.0**-10), new_options("AddOptions")
    )
    with pytest.raises(InterpreterError, match="power-of-two"):
        Interpreter(model).run([a, b])


def test_add_extremes():
    """Saturating inputs and a tiny output scale: results clamp to the type."""
    a = np.array([-128, 127, -128, 127, 0], np.int8)
    b = np.array([-128, 127, 127, -128, 0], np.int8)
    quants = [qparam(0.5, -3), qparam(0.25, 7)]
    assert_exact(
        quantized_model("ADD", [a, b], quants, "INT8", qparam(0.01, 5), new_options("AddOptions")),
        [a, b],
    )


@pytest.mark.parametrize("dtype", ["INT8", "UINT8", "INT16"])
def test_concatenation_same_parameters(dtype):
    q = qparam(0.05, zero_point(RNG, dtype))
    parts = [qrand(RNG, dtype, 2, n, 3) for n in (1, 4, 2)]
    options = new_options("ConcatenationOptions", axis=1)
    assert_exact(quantized_model("CONCATENATION", parts, [q] * 3, dtype, q, options), parts)


def test_concatenation_uint8_rescales():
    """UINT8 inputs with their own scales and zero points are requantized to the output's."""
    parts = [qrand(RNG, "UINT8", 3, n) for n in (5, 7, 2)]
    quants = [qparam(0.02, 120), qparam(0.05, 128), qparam(0.031, 131)]
    options = new_options("ConcatenationOptions", axis=-1)
    assert_exact(
        quantized_model("CONCATENATION", parts, quants, "UINT8", quants[1], options), parts
    )
    for _ in range(5):
        quants = random_quants("UINT8", 4)
        model = quantized_model("CONCATENATION", parts, quants[:3], "UINT8", quants[3], options)
        assert_exact(model, parts)


def test_concatenation_int16_joins_symmetric_inputs_as_they_are():
    """LiteRT only requires INT16 zero points of 0; the scales are not compared."""
    parts = [qrand(RNG, "INT16", 2, 3), qrand(RNG, "INT16", 2, 5)]
    quants = [qparam(0.001), qparam(0.004)]
    options = new_options("ConcatenationOptions", axis=1)
    assert_exact(
        quantized_model("CONCATENATION", parts, quants, "INT16", qparam(0.002), options), parts
    )


def test_concatenation_int8_needs_the_output_parameters():
    parts = [qrand(RNG, "INT8", 2, 3), qrand(RNG, "INT8", 2, 3)]
    quants = [qparam(0.05, 1), qparam(0.04, 1)]
    options = new_options("ConcatenationOptions", axis=0)
    model = quantized_model("CONCATENATION", parts, quants, "INT8", quants[0], options)
    with pytest.raises(InterpreterError, match="share the output's scale"):
        Interpreter(model).run(parts)
