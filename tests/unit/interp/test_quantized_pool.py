"""Quantized AVERAGE_POOL_2D, MAX_POOL_2D and MEAN against LiteRT's reference kernels (exact)."""

import numpy as np
import pytest

from support.quantized import (
    NUMPY,
    assert_exact,
    feeds,
    qparam,
    qrand,
    quantized_model,
    zero_point,
)
from support.single_op import const, new_options, pool2d_options

RNG = np.random.default_rng(12)
SAME, VALID = 0, 1
POOLS = ["AVERAGE_POOL_2D", "MAX_POOL_2D"]
DTYPES = ["INT8", "UINT8", "INT16"]


def check(opcode, operands, quants, dtype, out_quant, options):
    """Build the single-operator model with quantized tensors; ours equals LiteRT bit for bit."""
    assert_exact(
        quantized_model(opcode, operands, quants, dtype, out_quant, options), feeds(operands)
    )


@pytest.mark.parametrize("opcode", POOLS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("padding", [SAME, VALID])
@pytest.mark.parametrize(
    ("filter_hw", "stride"), [((3, 3), (2, 2)), ((2, 3), (1, 2)), ((4, 4), (3, 3))]
)
def test_pool(opcode, dtype, padding, filter_hw, stride):
    """Padded windows (SAME) average over their valid elements only."""
    q = qparam(0.04, zero_point(RNG, dtype))
    options = pool2d_options(filter_hw, stride, padding)
    check(opcode, [qrand(RNG, dtype, 2, 9, 11, 3)], [q], dtype, q, options)


@pytest.mark.parametrize("opcode", POOLS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("activation", [1, 2, 3])
def test_pool_activation(opcode, dtype, activation):
    """Fused activations clamp in the quantized domain (scale 0.02: RELU6 is inside INT8)."""
    q = qparam(0.02, zero_point(RNG, dtype))
    options = pool2d_options((2, 2), (1, 1), SAME, activation)
    check(opcode, [qrand(RNG, dtype, 1, 6, 6, 4)], [q], dtype, q, options)


@pytest.mark.parametrize("dtype", DTYPES)
def test_average_pool_rounding(dtype):
    """Sums at every residue of the count, negative ones included (ties away from zero)."""
    x = np.tile(np.arange(-8, 9), 12)[: 2 * 8 * 8].reshape(2, 8, 8, 1)
    x = (x if dtype != "UINT8" else x + 8).astype(NUMPY[dtype])
    q = qparam(0.1, 8 if dtype == "UINT8" else 0)
    for k in (2, 3, 4):
        check("AVERAGE_POOL_2D", [x], [q], dtype, q, pool2d_options((k, k), (1, 1), SAME))


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
        q_in = qparam(RNG.uniform(0.01, 0.1), zero_point(RNG, dtype))
        q_out = qparam(RNG.uniform(0.005, 0.08), zero_point(RNG, dtype))
        options = new_options("ReducerOptions", keepDims=keep)
        operands = [qrand(RNG, dtype, *shape), const(np.array(axes, np.int32))]
        check("MEAN", operands, [q_in, None], dtype, q_out, options)


@pytest.mark.parametrize("dtype", DTYPES)
def test_mean_same_parameters(dtype):
    q = qparam(0.05, zero_point(RNG, dtype))
    operands = [qrand(RNG, dtype, 1, 13, 11, 4), const(np.array([1, 2], np.int32))]
    check("MEAN", operands, [q, None], dtype, q, new_options("ReducerOptions", keepDims=True))


def test_mean_large_count():
    """A count beyond 2**16: the multiplier's shift growth is capped."""
    q_in, q_out = qparam(0.02, 3), qparam(0.0001, -2)
    operands = [qrand(RNG, "INT8", 1, 300, 260), const(np.array([1, 2], np.int32))]
    check("MEAN", operands, [q_in, None], "INT8", q_out, new_options("ReducerOptions"))
