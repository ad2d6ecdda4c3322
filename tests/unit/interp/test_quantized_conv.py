"""Quantized CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV, FULLY_CONNECTED and BATCH_MATMUL
against LiteRT's reference kernels: uint8, int8 (per-channel weights) and 16x8."""

import math

import numpy as np
import pytest

import one_cmds
from one_cmds.interp import Interpreter, InterpreterError
from support.litert import REFERENCE, random_inputs, run_model, run_tflite
from support.passes import window_options
from support.quantized import assert_exact, qparam, quantized_model
from support.single_op import const, new_options

RNG = np.random.default_rng(7)

SAME, VALID = 0, 1
NONE, RELU, RELU_N1_TO_1, RELU6, TANH = 0, 1, 2, 3, 4

# activation type -> (numpy type, bias type); the weights are uint8 for uint8, else int8
KINDS = {"uint8": (np.uint8, np.int32), "int8": (np.int8, np.int32), "int16": (np.int16, np.int64)}


def activations(kind, shape):
    """Random activations over the whole range of ``kind`` and (scale, zero point)."""
    dtype = KINDS[kind][0]
    info = np.iinfo(dtype)
    x = RNG.integers(info.min, info.max + 1, shape).astype(dtype)
    zero_point = {"uint8": RNG.integers(100, 156), "int8": RNG.integers(-20, 20)}.get(kind, 0)
    return x, (float(RNG.uniform(0.005, 0.05)), int(zero_point))


def weights(kind, shape, dim, per_channel):
    """Random weights with their QuantParam: uint8 asymmetric per-tensor, int8 symmetric
    (per-channel along ``dim`` when asked)."""
    if kind == "uint8":
        w = RNG.integers(0, 256, shape).astype(np.uint8)
        return w, qparam([RNG.uniform(0.002, 0.02)], [RNG.integers(110, 146)])
    w = RNG.integers(-127, 128, shape).astype(np.int8)
    scale = RNG.uniform(0.002, 0.02, shape[dim] if per_channel else 1)
    return w, qparam(scale, 0, dim)


def output_quant(kind, input_scale, weight_scale, depth):
    """An output scale that spreads the results over the type's range (some saturate)."""
    levels = 65536 if kind == "int16" else 256
    spread = {"uint8": 75 * 75, "int8": 74 * 74, "int16": 18900 * 74}[kind]
    scale = input_scale * float(np.mean(weight_scale)) * math.sqrt(depth) * spread * 5 / levels
    zero_point = {"uint8": RNG.integers(100, 156), "int8": RNG.integers(-20, 20)}.get(kind, 0)
    return qparam([scale], [zero_point])


def input_scale(kind, weight_scale, depth):
    """The input scale that makes :func:`output_quant` spread outputs over [-8, 8] (so that
    the activation bounds fall inside the output range)."""
    levels = 65536 if kind == "int16" else 256
    return 16 / levels / output_quant(kind, 1.0, weight_scale, depth).scale[0]


def bias(kind, count, input_scale, weight_q, depth):
    """A random integer bias of the order of the accumulator, scaled input * weight scale."""
    b = RNG.integers(-1, 2, count) * RNG.integers(0, 60 * 60 * int(math.sqrt(depth)) + 1, count)
    scale = np.float32(input_scale) * np.asarray(weight_q.scale, np.float32)
    return b.astype(KINDS[kind][1]), qparam(scale, 0, 0)


def conv_model(opcode, operands, quants, options, kind, out_quant):
    """:func:`support.quantized.quantized_model` with the options first and a kind such as
    "int8", as these tests read."""
    return quantized_model(opcode, operands, quants, kind.upper(), out_quant, options)


def check(model, inputs):
    """LiteRT's reference kernels and the interpreter agree exactly, on outputs that are not
    all clamped (else the test would mean little)."""
    expected = assert_exact(model, inputs)
    assert len(np.unique(expected)) > 8


def conv_case(opcode, kind, x_shape, w_shape, options, per_channel=True):
    """CONV_2D or DEPTHWISE_CONV_2D; outputs spread over [-8, 8] (activation bounds inside)."""
    x, (_, zx) = activations(kind, x_shape)
    dim = 3 if opcode == "DEPTHWISE_CONV_2D" else 0
    w, wq = weights(kind, w_shape, dim, per_channel)
    depth = int(np.prod(w_shape[1:3])) if dim == 3 else int(np.prod(w_shape[1:]))
    sx = input_scale(kind, wq.scale, depth)
    b, bq = bias(kind, w_shape[dim], sx, wq, depth)
    oq = output_quant(kind, sx, wq.scale, depth)
    operands = [x, const(w), const(b)]
    quants = [qparam([sx], [zx]), wq, bq]
    check(conv_model(opcode, operands, quants, options, kind, oq), [x])


def conv_options(padding=SAME, stride=(1, 1), dilation=(1, 1), activation=NONE, **fields):
    name = "DepthwiseConv2DOptions" if "depthMultiplier" in fields else "Conv2DOptions"
    return window_options(
        name,
        padding,
        stride,
        activation,
        dilationHFactor=dilation[0],
        dilationWFactor=dilation[1],
        **fields,
    )


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    ("k", "padding", "stride", "dilation"),
    [(1, VALID, 1, 1), (3, SAME, 1, 1), (3, VALID, 2, 1), (3, SAME, 2, 2), (2, SAME, 1, 1)],
)
def test_conv_2d(kind, k, padding, stride, dilation):
    options = conv_options(padding, (stride, stride), (dilation, dilation))
    conv_case("CONV_2D", kind, (2, 9, 8, 5), (6, k, k, 5), options)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("activation", [RELU, RELU6, RELU_N1_TO_1])
def test_conv_2d_activation(kind, activation):
    conv_case("CONV_2D", kind, (1, 7, 7, 4), (5, 3, 3, 4), conv_options(activation=activation))


@pytest.mark.parametrize("kind", ["int8", "int16"])
def test_conv_2d_per_tensor_weights(kind):
    conv_case("CONV_2D", kind, (1, 8, 6, 3), (4, 3, 2, 3), conv_options(stride=(2, 1)), False)


@pytest.mark.parametrize("kind", ["int8", "int16"])
def test_depthwise_conv_2d_per_tensor_weights(kind):
    options = conv_options(VALID, depthMultiplier=1)
    conv_case("DEPTHWISE_CONV_2D", kind, (1, 8, 6, 5), (1, 3, 2, 5), options, False)


def test_conv_2d_16x8_int32_bias():
    """LiteRT reads an int32 bias of a 16x8 CONV_2D as int64 (garbage); the interpreter adds
    it like the int64 one."""
    x, (sx, _) = activations("int16", (1, 6, 6, 3))
    w, wq = weights("int16", (4, 3, 3, 3), 0, True)
    b, bq = bias("int16", 4, sx, wq, 27)
    oq = output_quant("int16", sx, wq.scale, 27)
    outputs = []
    for dtype in (np.int32, np.int64):
        model = conv_model(
            "CONV_2D",
            [x, const(w), const(b.astype(dtype))],
            [qparam([sx]), wq, bq],
            conv_options(),
            "int16",
            oq,
        )
        outputs.append(Interpreter(model).run([x])[0])
    np.testing.assert_array_equal(*outputs)


def test_conv_2d_16x8_rescaled_past_int32_wraps():
    """LiteRT truncates the rescaled int64 accumulator to int32: 8 * 32767 * 127 * 127.9
    passes 2**31 and wraps to a negative value (then clamped to -32768)."""
    x = np.full((1, 1, 2, 8), 32767, np.int16)
    x[0, 0, 1] = -32768
    w = np.full((1, 1, 1, 8), 127, np.int8)
    model = conv_model(
        "CONV_2D",
        [x, const(w), const(np.zeros(1, np.int64))],
        [qparam([1.0]), qparam([1.0]), qparam([1.0])],
        conv_options(),
        "int16",
        qparam([1 / 127.9]),
    )
    (expected,) = run_model(model, [x], REFERENCE)
    np.testing.assert_array_equal(Interpreter(model).run([x])[0], expected)
    assert expected.ravel().tolist() == [-32768, 32767]


@pytest.mark.parametrize("kind", KINDS)
def test_conv_2d_grouped(kind):
    conv_case("CONV_2D", kind, (1, 7, 6, 6), (4, 3, 3, 3), conv_options())


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    ("multiplier", "padding", "stride", "dilation", "activation"),
    [(1, SAME, 1, 1, NONE), (2, VALID, 2, 1, RELU), (1, SAME, 2, 2, RELU6), (3, SAME, 1, 1, NONE)],
)
def test_depthwise_conv_2d(kind, multiplier, padding, stride, dilation, activation):
    c = 4
    options = conv_options(
        padding, (stride, stride), (dilation, dilation), activation, depthMultiplier=multiplier
    )
    conv_case("DEPTHWISE_CONV_2D", kind, (2, 9, 8, c), (1, 3, 3, c * multiplier), options)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    ("k", "stride", "padding", "with_bias", "activation"),
    [
        (3, 2, SAME, True, NONE),
        (3, 1, VALID, False, NONE),
        (2, 2, VALID, True, RELU),
        (4, 3, SAME, True, RELU6),
    ],
)
def test_transpose_conv(kind, k, stride, padding, with_bias, activation):
    n, h, w_, c, out_c = 2, 5, 4, 3, 4
    x, (_, zx) = activations(kind, (n, h, w_, c))
    w, wq = weights(kind, (out_c, k, k, c), 0, True)
    depth = k * k * c
    sx = input_scale(kind, wq.scale, depth)
    b, bq = bias(kind, out_c, sx, wq, depth)
    oq = output_quant(kind, sx, wq.scale, depth)
    if padding == VALID:
        size = [(h - 1) * stride + k, (w_ - 1) * stride + k]
    else:
        size = [h * stride, w_ * stride]
    shape = np.array([n, *size, out_c], np.int32)
    options = new_options(
        "TransposeConvOptions",
        padding=padding,
        strideH=stride,
        strideW=stride,
        fusedActivationFunction=activation,
    )
    model = conv_model(
        "TRANSPOSE_CONV",
        [const(shape), const(w), x, const(b) if with_bias else None],
        [None, wq, qparam([sx], [zx]), bq if with_bias else None],
        options,
        kind,
        oq,
    )
    check(model, [x])


def fc_case(kind, x_shape, units, per_channel, activation=NONE, keep=False, with_bias=True):
    depth = x_shape[-1]
    x, (_, zx) = activations(kind, x_shape)
    w, wq = weights(kind, (units, depth), 0, per_channel)
    sx = input_scale(kind, wq.scale, depth)
    b, bq = bias(kind, units, sx, wq, depth)
    oq = output_quant(kind, sx, wq.scale, depth)
    options = new_options(
        "FullyConnectedOptions", fusedActivationFunction=activation, keepNumDims=keep
    )
    model = conv_model(
        "FULLY_CONNECTED",
        [x, const(w), const(b) if with_bias else None],
        [qparam([sx], [zx]), wq, bq if with_bias else None],
        options,
        kind,
        oq,
    )
    check(model, [x])


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("activation", [NONE, RELU, RELU6])
def test_fully_connected(kind, activation):
    fc_case(kind, (3, 40), 12, False, activation)


@pytest.mark.parametrize("kind", ["int8", "int16"])
def test_fully_connected_per_channel(kind):
    fc_case(kind, (4, 33), 9, True)


@pytest.mark.parametrize("kind", KINDS)
def test_fully_connected_keep_num_dims_without_bias(kind):
    fc_case(kind, (2, 3, 24), 7, False, keep=True, with_bias=False)


def test_fully_connected_int32_accumulator_wraps():
    """The int8 accumulator is int32 in LiteRT: a sum past 2**31 wraps around."""
    depth = 70000
    x = np.full((1, depth), -128, np.int8)
    w = np.full((2, depth), -127, np.int8)
    model = conv_model(
        "FULLY_CONNECTED",
        [x, const(w), const(np.zeros(2, np.int32))],
        [qparam([0.01], [127]), qparam([0.01, 0.01]), qparam([1e-4, 1e-4])],
        new_options("FullyConnectedOptions"),
        "int8",
        qparam([1e5]),
    )
    (expected,) = run_model(model, [x], REFERENCE)
    np.testing.assert_array_equal(Interpreter(model).run([x])[0], expected)
    assert (expected < 0).all()  # 255 * 127 * depth > 2**31


@pytest.mark.parametrize("kind", ["int8", "int16"])
@pytest.mark.parametrize(
    ("x_shape", "y_shape", "adj_x", "adj_y"),
    [((2, 5, 30), (2, 30, 6), False, False), ((3, 1, 4, 20), (2, 6, 20), False, True)],
)
def test_batch_matmul(kind, x_shape, y_shape, adj_x, adj_y):
    x, (sx, zx) = activations(kind, x_shape)
    y, (sy, zy) = activations(kind, y_shape)
    depth = x_shape[-1]
    oq = output_quant(kind, sx, sy, depth)
    if kind == "int16":
        oq = qparam(oq.scale * 256, 0)  # both operands span the int16 range
    options = new_options("BatchMatMulOptions", adjointLhs=adj_x, adjointRhs=adj_y)
    model = conv_model(
        "BATCH_MATMUL", [x, y], [qparam([sx], [zx]), qparam([sy], [zy])], options, kind, oq
    )
    check(model, [x, y])


def test_unsupported_fused_activation_is_refused():
    x, _ = activations("int8", (1, 4, 4, 2))
    w, wq = weights("int8", (3, 1, 1, 2), 0, True)
    model = conv_model(
        "CONV_2D",
        [x, const(w), const(np.zeros(3, np.int32))],
        [qparam([0.1]), wq, qparam(wq.scale * np.float32(0.1))],
        conv_options(activation=TANH),
        "int8",
        qparam([0.1]),
    )
    with pytest.raises(InterpreterError, match="fused activation"):
        Interpreter(model).run([x])


def test_int8_fixture_model(fixture_path):
    """The converter's int8 model (CONV_2D, RESHAPE, FULLY_CONNECTED) within 1 LSB."""
    path = fixture_path("int8_quant.tflite")
    model = one_cmds.load(path)
    for seed in range(3):
        inputs = random_inputs(model, seed=seed)
        (expected,) = run_tflite(path, inputs, REFERENCE)
        (got,) = Interpreter(model).run(inputs)
        assert got.dtype == expected.dtype and got.shape == expected.shape
        diff = np.abs(got.astype(np.int64) - expected.astype(np.int64))
        assert diff.max(initial=0) <= 1
