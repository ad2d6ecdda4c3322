"""Pooling kernels against LiteRT."""

import numpy as np
import pytest

from support.single_op import check_against_litert, pool2d_options

RNG = np.random.default_rng(0)

SAME, VALID = 0, 1
POOLS = ["AVERAGE_POOL_2D", "MAX_POOL_2D", "L2_POOL_2D"]


def rand(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("opcode", POOLS)
@pytest.mark.parametrize("padding", [SAME, VALID])
@pytest.mark.parametrize("stride", [1, 2])
@pytest.mark.parametrize("k", [1, 2, 3, 5])
def test_pool(opcode, padding, stride, k):
    check_against_litert(
        opcode, [rand(2, 11, 9, 3)], pool2d_options((k, k), (stride, stride), padding)
    )


@pytest.mark.parametrize("opcode", POOLS)
@pytest.mark.parametrize("padding", [SAME, VALID])
@pytest.mark.parametrize(
    ("filter_hw", "stride"), [((2, 3), (1, 2)), ((3, 1), (3, 2)), ((4, 4), (3, 3))]
)
def test_pool_rectangular(opcode, padding, filter_hw, stride):
    check_against_litert(opcode, [rand(1, 10, 13, 4)], pool2d_options(filter_hw, stride, padding))


@pytest.mark.parametrize("opcode", POOLS)
@pytest.mark.parametrize("activation", [1, 2, 3])
def test_pool_activation(opcode, activation):
    check_against_litert(
        opcode, [rand(1, 8, 8, 2) * 4], pool2d_options((3, 3), (2, 2), SAME, activation)
    )


@pytest.mark.parametrize("opcode", POOLS)
def test_global_pool(opcode):
    check_against_litert(opcode, [rand(1, 7, 7, 16)], pool2d_options((7, 7), (1, 1), VALID))


@pytest.mark.parametrize("opcode", POOLS)
def test_pool_window_larger_than_input(opcode):
    # SAME padding: every window is cut by the borders; averages count valid elements only.
    check_against_litert(opcode, [rand(2, 3, 4, 2)], pool2d_options((5, 5), (1, 2), SAME))
