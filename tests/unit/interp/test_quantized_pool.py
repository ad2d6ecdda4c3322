"""Quantized AVERAGE_POOL_2D, MAX_POOL_2D and MEAN against LiteRT's reference kernels (exact)."""

import numpy as np
import pytest

from one_cmds.interp import Interpreter
from one_cmds.ir import QuantParam
from support.litert import REFERENCE, run_model
from support.single_op import const, new_options, op_model

RNG = np.random.default_rng(12)
NUMPY = {"INT8": np.int8, "UINT8": np.uint8, "INT16": np.int16}
SAME, VALID = 0, 1
POOLS = ["AVERAGE_POOL_2D", "MAX_POOL_2D"]
DTYPES = ["INT8", "UINT8", "INT16"]


def qparam(scale, zero_point=0):
    return QuantParam(
        scale=np.array([scale], np.float32),
        zero_point=np.array([zero_point], np.int64),
        quantized_dimension=0,
    )


def qrand(dtype, *shape):
    info = np.iinfo(NUMPY[dtype])
    return RNG.integers(info.min, info.max + 1, shape).astype(NUMPY[dtype])


def zero_point(dtype):
    return {"INT8": int(RNG.integers(-30, 30)), "UINT8": int(RNG.integers(100, 156))}.get(dtype, 0)


def check(opcode, operands, quants, dtype, out_quant, options):
    """Build the single-operator model with quantized tensors; ours equals LiteRT bit for bit."""
    model = op_model(opcode, operands, options, outputs=[dtype])
    op = model.main.operators[0]
    for tensor, quant in zip(op.inputs, quants, strict=True):
        tensor.quant = quant
    op.outputs[0].quant = out_quant
    inputs = [o for o in operands if isinstance(o, np.ndarray)]
    (expected,) = run_model(model, inputs, REFERENCE)
    (got,) = Interpreter(model).run(inputs)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


def pool_options(filter_hw, stride, padding, activation=0):
    return new_options(
        "Pool2DOptions",
        padding=padding,
        filterHeight=filter_hw[0],
        filterWidth=filter_hw[1],
        strideH=stride[0],
        strideW=stride[1],
        fusedActivationFunction=activation,
    )


@pytest.mark.parametrize("opcode", POOLS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("padding", [SAME, VALID])
@pytest.mark.parametrize(
    ("filter_hw", "stride"), [((3, 3), (2, 2)), ((2, 3), (1, 2)), ((4, 4), (3, 3))]
)
def test_pool(opcode, dtype, padding, filter_hw, stride):
    """Padded windows (SAME) average over their valid elements only."""
    q = qparam(0.04, zero_point(dtype))
    options = pool_options(filter_hw, stride, padding)
    check(opcode, [qrand(dtype, 2, 9, 11, 3)], [q], dtype, q, options)


@pytest.mark.parametrize("opcode", POOLS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("activation", [1, 2, 3])
def test_pool_activation(opcode, dtype, activation):
    """Fused activations clamp in the quantized domain (scale 0.02: RELU6 is inside INT8)."""
    q = qparam(0.02, zero_point(dtype))
    options = pool_options((2, 2), (1, 1), SAME, activation)
    check(opcode, [qrand(dtype, 1, 6, 6, 4)], [q], dtype, q, options)


@pytest.mark.parametrize("dtype", DTYPES)
def test_average_pool_rounding(dtype):
    """Sums at every residue of the count, negative ones included (ties away from zero)."""
    x = np.tile(np.arange(-8, 9), 12)[: 2 * 8 * 8].reshape(2, 8, 8, 1)
    x = (x if dtype != "UINT8" else x + 8).astype(NUMPY[dtype])
    q = qparam(0.1, 8 if dtype == "UINT8" else 0)
    for k in (2, 3, 4):
        check("AVERAGE_POOL_2D", [x], [q], dtype, q, pool_options((k, k), (1, 1), SAME))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    ("shape", "axes", "keep"),
    [
        ((2, 5, 7, 3), [1, 2], True),
        ((2, 5, 7, 3), [1, 2], False),
        ((4, 6, 5), [-1], False),
        ((4, 6, 5), [0, 2], True),
        ((3, 17), [1, 1], False),
        ((2, 3, 4), [0, 1, 2], False),
    ],
)
def test_mean(dtype, shape, axes, keep):
    """Input and output scales differ (ratios above and below 1)."""
    for _ in range(3):
        q_in = qparam(RNG.uniform(0.01, 0.1), zero_point(dtype))
        q_out = qparam(RNG.uniform(0.005, 0.08), zero_point(dtype))
        options = new_options("ReducerOptions", keepDims=keep)
        operands = [qrand(dtype, *shape), const(np.array(axes, np.int32))]
        check("MEAN", operands, [q_in, None], dtype, q_out, options)


@pytest.mark.parametrize("dtype", DTYPES)
def test_mean_same_parameters(dtype):
    q = qparam(0.05, zero_point(dtype))
    operands = [qrand(dtype, 1, 13, 11, 4), const(np.array([1, 2], np.int32))]
    check("MEAN", operands, [q, None], dtype, q, new_options("ReducerOptions", keepDims=True))


def test_mean_large_count():
    """A count beyond 2**16: the multiplier's shift growth is capped."""
    q_in, q_out = qparam(0.02, 3), qparam(0.0001, -2)
    operands = [qrand("INT8", 1, 300, 260), const(np.array([1, 2], np.int32))]
    check("MEAN", operands, [q_in, None], "INT8", q_out, new_options("ReducerOptions"))
