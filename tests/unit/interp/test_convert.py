"""CAST, QUANTIZE and DEQUANTIZE kernels against LiteRT."""

import numpy as np
import pytest

from one_cmds.interp import Interpreter, InterpreterError
from one_cmds.ir import Graph, Model, Operator, QuantParam, Tensor, from_numpy
from support.litert import REFERENCE, run_model
from support.single_op import check_against_litert, new_options, run_both

RNG = np.random.default_rng(4)


@pytest.mark.parametrize(
    ("source", "target"),
    [
        ("float32", "int32"),
        ("float32", "int64"),
        ("float32", "int16"),
        ("float32", "int8"),
        ("float32", "bool"),
        ("int32", "float32"),
        ("int32", "int64"),
        ("int64", "int32"),
        ("int32", "bool"),
        ("bool", "float32"),
        ("bool", "int32"),
        ("int8", "float32"),
        ("uint8", "int32"),
        ("int16", "float32"),
        ("float32", "float16"),
        ("float16", "float32"),
    ],
)
def test_cast(source, target):
    """Float -> integer truncates toward zero; values stay inside the target's range."""
    if source == "bool":
        x = RNG.integers(0, 2, (3, 4)).astype(bool)
    else:
        x = (RNG.standard_normal((3, 4)) * 40).astype(source)
    x.reshape(-1)[:4] = [0, 1, -1, 0] if source != "uint8" else [0, 1, 2, 0]
    options = new_options("CastOptions")
    check_against_litert("CAST", [x], options, outputs=[np.dtype(target).name.upper()])


def test_cast_truncates_halves_and_fractions():
    x = np.array([-2.5, -1.5, -0.7, -0.5, 0.5, 0.7, 1.5, 2.5, 1e9], np.float32)
    check_against_litert("CAST", [x], new_options("CastOptions"), outputs=["INT32"])


def test_cast_complex_to_float():
    x = (RNG.standard_normal(5) + 1j * RNG.standard_normal(5)).astype(np.complex64)
    check_against_litert("CAST", [x], new_options("CastOptions"), outputs=["FLOAT32"])


def qparam(scale, zero_point, dim=0):
    return QuantParam(
        scale=np.array(scale, np.float32).reshape(-1),
        zero_point=np.array(zero_point, np.int64).reshape(-1),
        quantized_dimension=dim,
    )


def quant_model(opcode, x, source_quant, target_dtype, target_quant):
    """A single-op model whose input and output tensors carry quantization parameters."""
    source = Tensor("input", from_numpy(x.dtype), x.shape, quant=source_quant)
    target = Tensor("output", target_dtype, x.shape, quant=target_quant)
    graph = Graph("main", [source], [target], [Operator(opcode, [source], [target])])
    graph.tensors = [source, target]
    return Model(graphs=[graph])


def check_quant(opcode, x, source_quant, target_dtype, target_quant):
    model = quant_model(opcode, x, source_quant, target_dtype, target_quant)
    if opcode == "QUANTIZE":
        expected, got = run_model(model, [x], REFERENCE)[0], Interpreter(model).run([x])[0]
    else:
        (expected,), (got,) = run_both(model, [x])
    assert got.dtype == expected.dtype
    if np.issubdtype(expected.dtype, np.floating):
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=0)
    else:
        np.testing.assert_array_equal(got, expected)


# Float values that land exactly on .5 steps after the float32 division (rounded half away
# from zero), either side of 0, values that round differently after a float64 division
# (0.35 / 0.1), and out-of-range ones.
TIES = np.array(
    [0.25, -0.25, 0.05, -0.05, 0.15, 0.35, -0.35, 12.75, -12.85, 300, -300, 0], np.float32
)


@pytest.mark.parametrize(
    ("dtype", "zero_point"),
    [("INT8", 3), ("INT8", -128), ("UINT8", 128), ("UINT8", 0), ("INT16", 0)],
)
def test_quantize(dtype, zero_point):
    x = np.concatenate([TIES, (RNG.standard_normal(200) * 8).astype(np.float32)])
    check_quant("QUANTIZE", x, None, dtype, qparam([0.1], [zero_point]))


@pytest.mark.parametrize("dim", [0, 1, 3])
def test_quantize_per_channel(dim):
    x = (RNG.standard_normal((3, 4, 2, 5)) * 4).astype(np.float32)
    channels = x.shape[dim]
    scale = RNG.uniform(0.01, 0.1, channels)
    zero_point = RNG.integers(-10, 10, channels)
    check_quant("QUANTIZE", x, None, "INT8", qparam(scale, zero_point, dim))


REQUANTIZE = [
    ("int8", "INT8"),
    ("int8", "UINT8"),
    ("uint8", "INT8"),
    ("uint8", "UINT8"),
    ("int16", "INT16"),
    ("int16", "INT8"),
    ("int8", "INT16"),
    ("uint8", "INT16"),
    ("int16", "INT32"),
]


@pytest.mark.parametrize(("source", "target"), REQUANTIZE)
def test_requantize(source, target):
    """Integer input: LiteRT's fixed-point rescaling, over many scale ratios (some above 1)."""
    info = np.iinfo(source)
    x = np.arange(info.min, info.max + 1, max(1, (info.max - info.min) // 511)).astype(source)
    for _ in range(8):
        source_zp = 0 if source == "int16" else int(RNG.integers(info.min // 2, info.max // 2 + 1))
        target_zp = {"INT8": int(RNG.integers(-20, 20)), "UINT8": int(RNG.integers(100, 156))}
        source_quant = qparam([RNG.uniform(0.001, 0.1)], [source_zp])
        target_quant = qparam([RNG.uniform(0.001, 0.1)], [target_zp.get(target, 0)])
        check_quant("QUANTIZE", x, source_quant, target, target_quant)


def test_requantize_int8_uint8_shift():
    x = np.arange(-128, 128).astype(np.int8)
    check_quant("QUANTIZE", x, qparam([0.05], [-3]), "UINT8", qparam([0.05], [125]))


@pytest.mark.parametrize(("dtype", "zero_point"), [("int8", -5), ("uint8", 128), ("int16", 0)])
def test_dequantize(dtype, zero_point):
    info = np.iinfo(dtype)
    x = RNG.integers(info.min, info.max + 1, (2, 3, 8)).astype(dtype)
    check_quant("DEQUANTIZE", x, qparam([0.0173], [zero_point]), "FLOAT32", None)


@pytest.mark.parametrize("dim", [0, 1, 2])
def test_dequantize_per_channel(dim):
    x = RNG.integers(-128, 128, (3, 4, 5)).astype(np.int8)
    channels = x.shape[dim]
    scale = RNG.uniform(0.001, 0.1, channels)
    zero_point = np.zeros(channels, np.int64)  # LiteRT's per-channel int8 is symmetric
    check_quant("DEQUANTIZE", x, qparam(scale, zero_point, dim), "FLOAT32", None)


def test_dequantize_float16():
    x = np.array([1.5, -2.25, 65504, -65504, 6e-8, 0.1, np.inf], np.float16)
    check_quant("DEQUANTIZE", x, None, "FLOAT32", None)


def test_quantize_without_parameters_is_an_error():
    x = np.zeros(3, np.float32)
    with pytest.raises(InterpreterError, match="no quantization parameters"):
        Interpreter(quant_model("QUANTIZE", x, None, "INT8", None)).run([x])


def test_value_kernels_refuse_quantized_tensors():
    x = np.zeros(3, np.int8)
    model = quant_model("SIN", x, qparam([0.1], [0]), "INT8", qparam([0.1], [0]))
    with pytest.raises(InterpreterError, match="quantized INT8"):
        Interpreter(model).run([x])


def test_requantizing_per_channel_is_an_error():
    x = np.zeros((2, 3), np.int8)
    model = quant_model("QUANTIZE", x, qparam([0.1, 0.2], [0, 0]), "INT8", qparam([0.1], [0]))
    with pytest.raises(InterpreterError, match="per-channel"):
        Interpreter(model).run([x])
