"""Convolution kernels against LiteRT."""

import numpy as np
import pytest

from one_cmds.interp import Interpreter, InterpreterError
from one_cmds.interp.kernels import conv as conv_kernels
from support.passes import window_options
from support.single_op import check_against_litert, const, op_model

RNG = np.random.default_rng(0)

SAME, VALID = 0, 1
NONE, RELU, RELU_N1_TO_1, RELU6 = 0, 1, 2, 3


def rand(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def conv_options(padding=SAME, stride=(1, 1), dilation=(1, 1), activation=NONE, **fields):
    """Conv2DOptions, or DepthwiseConv2DOptions when ``depthMultiplier`` is given."""
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


def depthwise_options(multiplier, padding=SAME, stride=(1, 1), dilation=(1, 1), activation=NONE):
    return conv_options(padding, stride, dilation, activation, depthMultiplier=multiplier)


@pytest.mark.parametrize("padding", [SAME, VALID])
@pytest.mark.parametrize("stride", [1, 2])
@pytest.mark.parametrize("dilation", [1, 2])
@pytest.mark.parametrize("k", [1, 3, 5])
def test_conv_2d(padding, stride, dilation, k):
    check_against_litert(
        "CONV_2D",
        [rand(2, 11, 9, 4), const(rand(6, k, k, 4)), const(rand(6))],
        conv_options(padding, (stride, stride), (dilation, dilation)),
    )


@pytest.mark.parametrize("padding", [SAME, VALID])
@pytest.mark.parametrize(
    ("kernel", "stride", "dilation"),
    [((2, 3), (1, 2), (2, 1)), ((3, 1), (2, 3), (1, 1)), ((4, 4), (3, 3), (1, 1))],
)
def test_conv_2d_rectangular(padding, kernel, stride, dilation):
    check_against_litert(
        "CONV_2D",
        [rand(1, 10, 13, 3), const(rand(5, *kernel, 3)), const(rand(5))],
        conv_options(padding, stride, dilation),
    )


@pytest.mark.parametrize("activation", [NONE, RELU, RELU_N1_TO_1, RELU6])
def test_conv_2d_activation(activation):
    check_against_litert(
        "CONV_2D",
        [rand(1, 7, 7, 3), const(rand(4, 3, 3, 3) * 0.3), const(rand(4))],
        conv_options(activation=activation),
    )


def check_without_bias(opcode, x, w, options):
    """LiteRT needs a float bias: compare ours without one to LiteRT with a zero bias."""
    (expected,) = check_against_litert(
        opcode,
        [x, const(w), const(np.zeros(w.shape[0 if opcode == "CONV_2D" else 3], np.float32))],
        options,
    )
    (got,) = Interpreter(op_model(opcode, [x, const(w), None], options)).run([x])
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_conv_2d_without_bias():
    check_without_bias("CONV_2D", rand(1, 8, 6, 3), rand(4, 3, 3, 3), conv_options(stride=(2, 2)))


@pytest.mark.parametrize(("k", "padding"), [(1, VALID), (3, SAME)])
def test_conv_2d_grouped(k, padding):
    check_against_litert(
        "CONV_2D",
        [rand(2, 7, 6, 8), const(rand(6, k, k, 4)), const(rand(6))],
        conv_options(padding, activation=RELU),
    )


def test_conv_2d_pointwise():
    check_against_litert(
        "CONV_2D",
        [rand(1, 40, 33, 16), const(rand(24, 1, 1, 16)), const(rand(24))],
        conv_options(activation=RELU6),
    )


@pytest.mark.parametrize("padding", [SAME, VALID])
@pytest.mark.parametrize("stride", [1, 2])
@pytest.mark.parametrize("dilation", [1, 2])
@pytest.mark.parametrize("k", [1, 3, 5])
@pytest.mark.parametrize("multiplier", [1, 2])
def test_depthwise_conv_2d(padding, stride, dilation, k, multiplier):
    check_against_litert(
        "DEPTHWISE_CONV_2D",
        [rand(2, 11, 9, 3), const(rand(1, k, k, 3 * multiplier)), const(rand(3 * multiplier))],
        depthwise_options(multiplier, padding, (stride, stride), (dilation, dilation)),
    )


@pytest.mark.parametrize("activation", [NONE, RELU, RELU_N1_TO_1, RELU6])
def test_depthwise_conv_2d_activation(activation):
    check_against_litert(
        "DEPTHWISE_CONV_2D",
        [rand(1, 9, 8, 5), const(rand(1, 3, 3, 5)), const(rand(5))],
        depthwise_options(1, stride=(2, 1), activation=activation),
    )


@pytest.mark.parametrize(
    ("shape", "k", "stride", "dilation"),
    [((1, 1, 2, 3), 3, 2, 1), ((2, 2, 1, 3), 5, 3, 2), ((1, 3, 2, 3), 5, 2, 2)],
)
def test_depthwise_conv_2d_window_mostly_padding(shape, k, stride, dilation):
    # Some stride phases of the padded input hold no input element at all.
    check_against_litert(
        "DEPTHWISE_CONV_2D",
        [rand(*shape), const(rand(1, k, k, 3)), const(rand(3))],
        depthwise_options(1, SAME, (stride, stride), (dilation, dilation)),
    )


def test_depthwise_conv_2d_without_bias_in_row_blocks(monkeypatch):
    # Blocks of 3 rows of 20 x 32 elements: the last block is shorter.
    monkeypatch.setattr(conv_kernels, "_CHUNK", 3 * 20 * 32)
    check_without_bias(
        "DEPTHWISE_CONV_2D",
        rand(2, 11, 20, 32),
        rand(1, 3, 3, 32),
        depthwise_options(1, activation=RELU6),
    )


def run_transpose_conv(out_hw, kernel, stride, padding, bias=True, activation=NONE, batch=1):
    x = rand(batch, 4, 5, 3)
    shape = const([batch, *out_hw, 2], np.int32)
    operands = [shape, const(rand(2, *kernel, 3)), x]
    if bias:
        operands.append(const(rand(2)))
    check_against_litert(
        "TRANSPOSE_CONV",
        operands,
        window_options("TransposeConvOptions", padding, stride, activation),
        version=4 if bias or activation else 1,
    )


@pytest.mark.parametrize("k", [1, 2, 3, 5])
@pytest.mark.parametrize("stride", [1, 2])
@pytest.mark.parametrize("bias", [False, True])
def test_transpose_conv_same(k, stride, bias):
    run_transpose_conv((4 * stride, 5 * stride), (k, k), (stride, stride), SAME, bias)


@pytest.mark.parametrize("k", [1, 2, 3, 5])
@pytest.mark.parametrize("stride", [1, 2])
def test_transpose_conv_valid(k, stride):
    out = [(n - 1) * stride + k for n in (4, 5)]
    run_transpose_conv(out, (k, k), (stride, stride), VALID, batch=2)


@pytest.mark.parametrize(
    ("out_hw", "kernel", "stride", "padding"),
    [
        ((8, 10), (1, 1), (2, 2), VALID),  # output larger than the kernel footprint
        ((7, 9), (3, 3), (2, 2), SAME),  # odd output: uneven padding
        ((7, 14), (3, 2), (2, 3), SAME),
        ((13, 11), (3, 2), (3, 2), VALID),  # one more row and column than the footprint
    ],
)
def test_transpose_conv_uneven(out_hw, kernel, stride, padding):
    run_transpose_conv(out_hw, kernel, stride, padding)


@pytest.mark.parametrize("activation", [RELU, RELU_N1_TO_1, RELU6])
def test_transpose_conv_activation(activation):
    run_transpose_conv((8, 10), (3, 3), (2, 2), SAME, activation=activation)


def test_quantized_conv_is_refused():
    x = np.zeros((1, 4, 4, 2), np.int8)
    model = op_model("CONV_2D", [x, const(np.ones((2, 1, 1, 2), np.int8)), None], conv_options())
    with pytest.raises(InterpreterError, match="only float operands"):
        Interpreter(model).run([x])
