"""Convolution, pooling, resizing and matrix-product rules against LiteRT."""

import numpy as np
import pytest

from one_cmds.shape import infer_shapes
from support.litert import run_model
from support.shape_helpers import check_litert, rand
from support.single_op import const, new_options, op_model

SAME, VALID = 0, 1


def conv_options(padding, stride, dilation=(1, 1), name="Conv2DOptions", **extra):
    return new_options(
        name, padding=padding, strideH=stride[0], strideW=stride[1],
        dilationHFactor=dilation[0], dilationWFactor=dilation[1], **extra,
    )  # fmt: skip


CONV_CASES = [
    ((1, 8, 8, 3), (3, 3), SAME, (1, 1), (1, 1)),
    ((1, 8, 8, 3), (3, 3), VALID, (1, 1), (1, 1)),
    ((2, 9, 7, 3), (3, 2), SAME, (2, 3), (1, 1)),
    ((2, 9, 7, 3), (3, 2), VALID, (2, 3), (1, 1)),
    ((1, 11, 10, 2), (3, 3), SAME, (1, 1), (2, 3)),
    ((1, 11, 10, 2), (3, 3), VALID, (2, 1), (2, 2)),
    ((1, 4, 4, 2), (4, 4), VALID, (3, 3), (1, 1)),
    ((1, 1, 1, 2), (1, 1), SAME, (2, 2), (1, 1)),
]


@pytest.mark.parametrize(("x", "k", "padding", "stride", "dilation"), CONV_CASES)
def test_conv_2d(x, k, padding, stride, dilation):
    filt = const(rand(5, *k, x[3]))
    bias = const(rand(5))
    check_litert("CONV_2D", [rand(*x), filt, bias], conv_options(padding, stride, dilation))


@pytest.mark.parametrize(("x", "k", "padding", "stride", "dilation"), CONV_CASES)
@pytest.mark.parametrize("multiplier", [1, 2])
def test_depthwise_conv_2d(x, k, padding, stride, dilation, multiplier):
    channels = x[3] * multiplier
    options = conv_options(padding, stride, dilation, "DepthwiseConv2DOptions",
                           depthMultiplier=multiplier)  # fmt: skip
    check_litert("DEPTHWISE_CONV_2D", [rand(*x), const(rand(1, *k, channels)),
                                       const(rand(channels))], options)  # fmt: skip


@pytest.mark.parametrize("opcode", ["AVERAGE_POOL_2D", "MAX_POOL_2D", "L2_POOL_2D"])
@pytest.mark.parametrize(
    ("x", "window", "padding", "stride"),
    [((1, 8, 8, 3), (2, 2), VALID, (2, 2)), ((2, 7, 9, 1), (3, 2), SAME, (2, 3)),
     ((1, 7, 9, 2), (3, 3), VALID, (1, 2)), ((1, 5, 5, 1), (5, 5), VALID, (1, 1))],
)  # fmt: skip
def test_pool_2d(opcode, x, window, padding, stride):
    options = new_options("Pool2DOptions", padding=padding, strideH=stride[0],
                          strideW=stride[1], filterHeight=window[0], filterWidth=window[1])  # fmt: skip
    check_litert(opcode, [rand(*x)], options)


@pytest.mark.parametrize(
    ("x", "out", "padding", "stride"),
    [((1, 4, 4, 2), (1, 8, 8, 3), SAME, (2, 2)), ((1, 3, 3, 2), (1, 7, 7, 3), VALID, (2, 2))],
)
def test_transpose_conv(x, out, padding, stride):
    options = new_options("TransposeConvOptions", padding=padding, strideH=stride[0],
                          strideW=stride[1])  # fmt: skip
    operands = [const(np.array(out, np.int32)), const(rand(3, 3, 3, 2)), rand(*x)]
    check_litert("TRANSPOSE_CONV", operands, options)


@pytest.mark.parametrize("opcode", ["RESIZE_BILINEAR", "RESIZE_NEAREST_NEIGHBOR"])
def test_resize_image(opcode):
    name = (
        "ResizeBilinearOptions" if opcode == "RESIZE_BILINEAR" else "ResizeNearestNeighborOptions"
    )
    size = const(np.array([7, 3], np.int32))
    check_litert(opcode, [rand(2, 4, 5, 3), size], new_options(name))


@pytest.mark.parametrize(
    ("x", "keep"),
    [((3, 8), False), ((2, 3, 8), False), ((2, 3, 8), True), ((1, 2, 4), False), ((8,), False)],
)
def test_fully_connected(x, keep):
    options = new_options("FullyConnectedOptions", keepNumDims=keep)
    check_litert("FULLY_CONNECTED", [rand(*x), const(rand(5, 8)), const(rand(5))], options)


def test_fully_connected_without_bias():
    check_litert("FULLY_CONNECTED", [rand(4, 6), const(rand(2, 6)), None],
                 new_options("FullyConnectedOptions"))  # fmt: skip


@pytest.mark.parametrize(
    ("a", "b", "adj_x", "adj_y"),
    [((2, 3, 4), (2, 4, 5), False, False), ((2, 4, 3), (2, 4, 5), True, False),
     ((2, 3, 4), (2, 5, 4), False, True), ((1, 3, 4), (6, 4, 5), False, False),
     ((2, 1, 3, 4), (5, 4, 2), False, False), ((3, 4), (2, 4, 5), False, False)],
)  # fmt: skip
def test_batch_matmul(a, b, adj_x, adj_y):
    options = new_options("BatchMatMulOptions", adjointLhs=adj_x, adjointRhs=adj_y)
    check_litert("BATCH_MATMUL", [rand(*a), rand(*b)], options)


def test_svdf():
    """The state (input 4) is a variable tensor, not a graph input."""
    batch, size, units, rank, memory = 2, 3, 4, 2, 5
    filters = units * rank
    x = rand(batch, size)
    operands = [x, const(rand(filters, size)), const(rand(filters, memory)), const(rand(units)),
                np.zeros((batch, memory * filters), np.float32)]  # fmt: skip
    model = op_model("SVDF", operands, new_options("SVDFOptions", rank=rank))
    state = model.main.inputs.pop()
    state.is_variable = True
    infer_shapes(model)
    [out] = run_model(model, [x])
    assert model.main.outputs[0].shape == out.shape == (batch, units)


@pytest.mark.parametrize("projection", [False, True])
def test_unidirectional_sequence_lstm(projection):
    """Output [batch, time, n_output]; the states are variable tensors."""
    batch, time, n_input, n_cell = 2, 3, 4, 5
    n_output = 3 if projection else n_cell
    x = rand(batch, time, n_input)
    weights = [const(rand(n_cell, n_input)) for _ in range(4)]
    recurrent = [const(rand(n_cell, n_output)) for _ in range(4)]
    biases = [const(rand(n_cell)) for _ in range(4)]
    proj = [const(rand(n_output, n_cell)), None] if projection else [None, None]
    states = [np.zeros((batch, n_output), np.float32), np.zeros((batch, n_cell), np.float32)]
    operands = [x, *weights, *recurrent, None, None, None, *biases, *proj, *states, *[None] * 4]
    options = new_options("UnidirectionalSequenceLSTMOptions", fusedActivationFunction=4,
                          timeMajor=False)  # fmt: skip
    model = op_model("UNIDIRECTIONAL_SEQUENCE_LSTM", operands, options)
    for state in model.main.inputs[1:]:
        state.is_variable = True
    del model.main.inputs[1:]
    infer_shapes(model)
    [out] = run_model(model, [x])
    assert model.main.outputs[0].shape == out.shape == (batch, time, n_output)
