"""Element-wise binary kernels against LiteRT."""

import numpy as np
import pytest

from support.single_op import check_against_litert, const, new_options

RNG = np.random.default_rng(0)


def rand(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize(
    ("a", "b"),
    [((1, 4, 4, 3), (1, 4, 4, 3)), ((2, 3, 4), (4,)), ((1, 5, 1), (3, 1, 6)), ((), (2, 2))],
)
@pytest.mark.parametrize("activation", [0, 1, 3])
def test_add(a, b, activation):
    check_against_litert(
        "ADD", [rand(*a), rand(*b)], new_options("AddOptions", fusedActivationFunction=activation)
    )


def test_add_constant_operand():
    check_against_litert("ADD", [rand(2, 3), const(rand(3))], new_options("AddOptions"))
