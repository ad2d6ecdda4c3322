"""FULLY_CONNECTED and BATCH_MATMUL against LiteRT."""

import numpy as np
import pytest

from one_cmds.interp import Interpreter
from one_cmds.shape import infer_shapes
from support.passes import Net
from support.single_op import check_against_litert, const, new_options, op_model

RNG = np.random.default_rng(0)


def rand(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def fc_options(keep=False, activation=0):
    return new_options(
        "FullyConnectedOptions", keepNumDims=keep, fusedActivationFunction=activation
    )


@pytest.mark.parametrize("shape", [(3, 8), (1, 8), (2, 3, 8), (2, 2, 2, 8)])
@pytest.mark.parametrize("keep", [False, True])
def test_fully_connected(shape, keep):
    check_against_litert(
        "FULLY_CONNECTED", [rand(*shape), const(rand(5, 8)), const(rand(5))], fc_options(keep)
    )


def test_fully_connected_flattens_like_tflite():
    # 2x3x4 = 24 elements, depth 6: four rows.
    check_against_litert(
        "FULLY_CONNECTED", [rand(2, 3, 4), const(rand(5, 6)), const(rand(5))], fc_options()
    )


@pytest.mark.parametrize("keep", [False, True])
def test_fully_connected_without_bias(keep):
    check_against_litert(
        "FULLY_CONNECTED", [rand(2, 3, 8), const(rand(4, 8)), None], fc_options(keep)
    )


@pytest.mark.parametrize("activation", [1, 2, 3])
def test_fully_connected_activation(activation):
    check_against_litert(
        "FULLY_CONNECTED",
        [rand(4, 8), const(rand(6, 8)), const(rand(6))],
        fc_options(activation=activation),
    )


def test_fully_connected_weights_as_input():
    check_against_litert("FULLY_CONNECTED", [rand(3, 8), rand(5, 8), rand(5)], fc_options())


def test_fully_connected_without_options():
    x, w = rand(3, 8), rand(5, 8)
    (got,) = Interpreter(op_model("FULLY_CONNECTED", [x, const(w), None])).run([x])
    np.testing.assert_allclose(got, x @ w.T, rtol=1e-6)


def bmm_options(adj_x, adj_y):
    return new_options("BatchMatMulOptions", adjointLhs=adj_x, adjointRhs=adj_y)


@pytest.mark.parametrize("adj_x", [False, True])
@pytest.mark.parametrize("adj_y", [False, True])
@pytest.mark.parametrize(
    ("lhs", "rhs"),
    [
        ((3, 4), (4, 5)),
        ((2, 3, 4), (2, 4, 5)),
        ((2, 3, 4), (4, 5)),  # rhs broadcast
        ((3, 4), (2, 4, 5)),  # lhs broadcast
        ((2, 1, 3, 4), (1, 3, 4, 5)),  # both broadcast
        ((1, 2, 1, 3, 4), (2, 1, 3, 4, 5)),
    ],
)
def test_batch_matmul(lhs, rhs, adj_x, adj_y):
    if adj_x:
        lhs = (*lhs[:-2], lhs[-1], lhs[-2])
    if adj_y:
        rhs = (*rhs[:-2], rhs[-1], rhs[-2])
    check_against_litert("BATCH_MATMUL", [rand(*lhs), rand(*rhs)], bmm_options(adj_x, adj_y))


def test_batch_matmul_constant_rhs():
    check_against_litert(
        "BATCH_MATMUL", [rand(2, 3, 4), const(rand(4, 6))], bmm_options(False, False)
    )


def test_stacked_records_give_each_record_its_lone_result():
    """``records=True``: FULLY_CONNECTED, BATCH_MATMUL of two activations and CONV_2D give
    every record of a stacked run exactly the result of running it alone."""
    net = Net()
    x = net.input("x", [9, 10, 10, 8])
    conv = net.op(
        "CONV_2D",
        [x, net.random("w", [32, 3, 3, 8]), net.random("b", [32])],
        new_options("Conv2DOptions", padding=0, strideH=1, strideW=1),
    )
    rows = net.op("RESHAPE", [conv, net.const("s", [9, 100, 32], np.int32)])
    fc = net.op(
        "FULLY_CONNECTED",
        [rows, net.random("fw", [16, 32]), net.random("fb", [16])],
        fc_options(keep=True),
    )
    product = net.op("BATCH_MATMUL", [rows, fc], new_options("BatchMatMulOptions", adjointLhs=True))
    net.outputs(product)
    model = net.model()
    batch = RNG.standard_normal((9, 10, 10, 8)).astype(np.float32)
    (stacked,) = Interpreter(model, records=True).run([batch])
    lone = model.copy()
    lone.main.inputs[0].shape = (1, 10, 10, 8)
    lone.main.operators[1].inputs[1].data = np.array([1, 100, 32], np.int32)
    infer_shapes(lone)
    each = np.concatenate([Interpreter(lone).run([batch[i : i + 1]])[0] for i in range(9)])
    assert stacked.tobytes() == each.tobytes()
