"""Quantized activation kernels against LiteRT's reference kernels (BUILTIN_REF)."""

from __future__ import annotations

import numpy as np
import pytest

from one_cmds.interp import Interpreter, InterpreterError
from one_cmds.ir import Graph, Model, Operator, Tensor, from_numpy
from support.litert import REFERENCE, run_model
from support.quantized import qparam
from support.single_op import new_options

RNG = np.random.default_rng(11)


def qmodel(opcode, operands, out_dtype, out_quant, options=None):
    """A single-op model; ``operands`` holds (array, QuantParam, is_constant) triples."""
    inputs, op_inputs = [], []
    for i, (value, quant, constant) in enumerate(operands):
        if constant:
            t = Tensor.constant(f"const{i}", value)
            t.quant = quant
        else:
            t = Tensor(f"input{i}", from_numpy(value.dtype), value.shape, quant=quant)
            inputs.append(t)
        op_inputs.append(t)
    out = Tensor("output", out_dtype, (), quant=out_quant)
    graph = Graph("main", inputs, [out], [Operator(opcode, op_inputs, [out], options)])
    graph.tensors = [*op_inputs, out]
    return Model(graphs=[graph])


def check(opcode, operands, out_dtype, out_quant, options=None, lsb=0):
    """Run in LiteRT's reference kernels and the interpreter; equal within ``lsb``."""
    model = qmodel(opcode, operands, out_dtype, out_quant, options)
    feeds = [v for v, _, constant in operands if not constant]
    (expected,) = run_model(model, feeds, REFERENCE)
    (got,) = Interpreter(model).run(feeds)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    diff = np.abs(got.astype(np.int64) - expected.astype(np.int64))
    assert diff.max(initial=0) <= lsb, f"max diff {diff.max()} at {np.argmax(diff)}"
    return expected


def every_value(dtype, shape=(2, 128)):
    """All values of an 8-bit type (a sample of int16), shuffled into ``shape``."""
    info = np.iinfo(dtype)
    if info.bits == 8:
        return RNG.permutation(np.arange(info.min, info.max + 1)).astype(dtype).reshape(shape)
    return RNG.integers(info.min, info.max + 1, shape).astype(dtype)


TYPES = [("uint8", 128), ("uint8", 37), ("int8", 0), ("int8", -51), ("int16", 0)]
NAMES = {"uint8": "UINT8", "int8": "INT8", "int16": "INT16"}


@pytest.mark.parametrize(("dtype", "zp"), TYPES)
@pytest.mark.parametrize("opcode", ["RELU", "RELU6", "RELU_N1_TO_1"])
def test_relu_family(opcode, dtype, zp):
    if opcode == "RELU_N1_TO_1" and dtype == "int16":
        pytest.skip("LiteRT has no int16 RELU_N1_TO_1")
    x = every_value(dtype)
    small = 1e-4 if dtype == "int16" else 0.02
    for in_scale, out_scale, out_zp in [(small * 3, small, zp), (small, small * 1.7, zp // 2)]:
        out_zp = 0 if dtype == "int16" else out_zp
        check(opcode, [(x, qparam(in_scale, zp), False)], NAMES[dtype], qparam(out_scale, out_zp))


@pytest.mark.parametrize(("dtype", "zp"), TYPES)
@pytest.mark.parametrize("alpha", [0.2, 1.7, -0.3])
def test_leaky_relu(dtype, zp, alpha):
    x = every_value(dtype)
    scale = 1e-3 if dtype == "int16" else 0.05
    out_zp = 0 if dtype == "int16" else zp // 3 + 5
    options = new_options("LeakyReluOptions", alpha=alpha)
    check(
        "LEAKY_RELU",
        [(x, qparam(scale, zp), False)],
        NAMES[dtype],
        qparam(scale * 0.8, out_zp),
        options,
    )


@pytest.mark.parametrize(("dtype", "zp"), TYPES)
@pytest.mark.parametrize("alpha_shape", [(8,), (1, 1, 8), (8, 8), (4, 8, 8), (1,)])
def test_prelu(dtype, zp, alpha_shape):
    x = every_value(dtype, (4, 8, 8))
    alpha_dtype = "int8" if dtype == "int16" else dtype
    info = np.iinfo(alpha_dtype)
    alpha = RNG.integers(info.min, info.max + 1, alpha_shape).astype(alpha_dtype)
    alpha_zp = 0 if dtype == "int16" else zp // 2
    scale = 1e-3 if dtype == "int16" else 0.05
    out_zp = 0 if dtype == "int16" else zp // 3 - 1
    check(
        "PRELU",
        [(x, qparam(scale, zp), False), (alpha, qparam(0.01, alpha_zp), True)],
        NAMES[dtype],
        qparam(scale * 1.3, out_zp),
    )


LUT_TYPES = [("uint8", 128, 0.05), ("uint8", 20, 0.11), ("int8", 0, 0.031), ("int8", -100, 0.2)]


@pytest.mark.parametrize(("dtype", "zp", "scale"), LUT_TYPES)
def test_logistic(dtype, zp, scale):
    out_zp = 0 if dtype == "uint8" else -128
    check(
        "LOGISTIC",
        [(every_value(dtype), qparam(scale, zp), False)],
        NAMES[dtype],
        qparam(1 / 256, out_zp),
    )


@pytest.mark.parametrize(("dtype", "zp", "scale"), LUT_TYPES)
def test_tanh(dtype, zp, scale):
    out_zp = 128 if dtype == "uint8" else 0
    check(
        "TANH",
        [(every_value(dtype), qparam(scale, zp), False)],
        NAMES[dtype],
        qparam(1 / 128, out_zp),
    )


INT16_SCALES = [2**-12, 2**-11, 2**-13, 3.1e-4, 1.7e-3, 1e-5]


@pytest.mark.parametrize("scale", INT16_SCALES)
@pytest.mark.parametrize("opcode", ["LOGISTIC", "TANH"])
def test_int16_logistic_tanh(opcode, scale):
    x = np.concatenate([every_value("int16", (4000,)), [-32768, 32767, 0, 1, -1]]).astype(np.int16)
    check(opcode, [(x, qparam(scale), False)], "INT16", qparam(2**-15))


@pytest.mark.parametrize(("dtype", "zp", "scale"), LUT_TYPES)
@pytest.mark.parametrize("approximate", [False, True])
def test_gelu(dtype, zp, scale, approximate):
    options = new_options("GeluOptions", approximate=approximate)
    out_zp = zp // 2 + 3
    check(
        "GELU",
        [(every_value(dtype), qparam(scale, zp), False)],
        NAMES[dtype],
        qparam(scale * 0.7, out_zp),
        options,
    )


@pytest.mark.parametrize(("dtype", "zp", "scale"), LUT_TYPES)
def test_hard_swish(dtype, zp, scale):
    x = every_value(dtype)
    for out_scale, out_zp in [(scale, zp), (scale * 0.6, zp // 2 + 7), (scale * 2.5, zp // 4)]:
        check(
            "HARD_SWISH", [(x, qparam(scale, zp), False)], NAMES[dtype], qparam(out_scale, out_zp)
        )


@pytest.mark.parametrize(("dtype", "zp", "scale"), LUT_TYPES)
@pytest.mark.parametrize("beta", [1.0, 0.37, 3.0])
@pytest.mark.parametrize("out_dtype", ["same", "INT16"])
def test_softmax_8bit(dtype, zp, scale, beta, out_dtype):
    x = every_value(dtype, (4, 8, 8))
    x[0, 0] = x[0, 0, 0]  # ties with the maximum
    if out_dtype == "same":
        out_dtype, out_quant = NAMES[dtype], qparam(1 / 256, 0 if dtype == "uint8" else -128)
    else:
        out_quant = qparam(1 / 32768, 0)
    options = new_options("SoftmaxOptions", beta=beta)
    check("SOFTMAX", [(x, qparam(scale, zp), False)], out_dtype, out_quant, options)


@pytest.mark.parametrize("scale", [1e-3, 3e-4, 2**-10])
@pytest.mark.parametrize("beta", [1.0, 0.6])
def test_softmax_int16(scale, beta):
    x = every_value("int16", (6, 5, 40))
    x[1] //= 64  # small differences
    options = new_options("SoftmaxOptions", beta=beta)
    check("SOFTMAX", [(x, qparam(scale), False)], "INT16", qparam(1 / 32768), options)


@pytest.mark.parametrize("approximate", [False, True])
@pytest.mark.parametrize("scale", [1e-4, 3e-4])
def test_gelu_int16(approximate, scale):
    options = new_options("GeluOptions", approximate=approximate)
    x = np.concatenate([every_value("int16", (3000,)), [-32768, 32767, 0]]).astype(np.int16)
    check("GELU", [(x, qparam(scale), False)], "INT16", qparam(scale * 0.8), options)


@pytest.mark.parametrize(
    ("opcode", "dtype", "out_quant", "message"),
    [
        ("RELU_N1_TO_1", "int16", qparam(0.01), "not supported"),
        ("LOGISTIC", "int8", qparam(0.01, -128), "1/256"),
        ("RELU", "int16", qparam(0.01, 3), "zero point 0"),
        ("TANH", "int16", qparam(2**-14), "2\\*\\*-15"),
    ],
)
def test_parameters_litert_refuses(opcode, dtype, out_quant, message):
    """Types and parameters LiteRT's kernels reject are errors, not silent results."""
    x = every_value(dtype)
    model = qmodel(opcode, [(x, qparam(0.01), False)], NAMES[dtype], out_quant)
    with pytest.raises(InterpreterError, match=message):
        Interpreter(model).run([x])
