"""Activation kernels against LiteRT."""

import numpy as np
import pytest

from support.single_op import check_against_litert, const, new_options

RNG = np.random.default_rng(2)

SHAPES = [(5,), (2, 7), (2, 3, 4), (1, 4, 4, 3), (1, 2, 2, 3, 2)]


def rand(*shape, scale=4.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize(
    ("opcode", "options"),
    [
        ("LOGISTIC", None),
        ("TANH", None),
        ("RELU", None),
        ("RELU6", None),
        ("RELU_N1_TO_1", None),
        ("RELU_0_TO_1", None),
        ("ELU", None),
        ("HARD_SWISH", new_options("HardSwishOptions")),
        ("LEAKY_RELU", new_options("LeakyReluOptions", alpha=0.2)),
        ("GELU", new_options("GeluOptions", approximate=False)),
        ("GELU", new_options("GeluOptions", approximate=True)),
        ("LOG_SOFTMAX", new_options("LogSoftmaxOptions")),
        ("SOFTMAX", new_options("SoftmaxOptions", beta=1.0)),
    ],
)
def test_activation(opcode, options, shape):
    check_against_litert(opcode, [rand(*shape)], options)


@pytest.mark.parametrize("beta", [0.0, 0.5, 2.0, -1.0])
def test_softmax_beta(beta):
    check_against_litert("SOFTMAX", [rand(2, 3, 10)], new_options("SoftmaxOptions", beta=beta))


def test_softmax_large_values():
    x = np.array([[1000, 1001, 999, -1000], [-50, -50, -50, -50]], np.float32)
    check_against_litert("SOFTMAX", [x], new_options("SoftmaxOptions", beta=1.0))
    check_against_litert("LOG_SOFTMAX", [x], new_options("LogSoftmaxOptions"))


@pytest.mark.parametrize("alpha", [0.0, 0.01, 1.5, -0.3])
def test_leaky_relu_alpha(alpha):
    check_against_litert("LEAKY_RELU", [rand(3, 8)], new_options("LeakyReluOptions", alpha=alpha))


@pytest.mark.parametrize("approximate", [False, True])
def test_gelu_range(approximate):
    """Far tails included: the exact form needs an erfc accurate in relative terms."""
    x = np.linspace(-12, 12, 481, dtype=np.float32)
    check_against_litert("GELU", [x], new_options("GeluOptions", approximate=approximate))


@pytest.mark.parametrize(
    ("x", "alpha"),
    [
        ((1, 4, 4, 3), (3,)),
        ((1, 4, 4, 3), (1, 1, 3)),
        ((1, 4, 4, 3), (4, 4, 3)),
        ((2, 4, 4, 3), (1, 4, 1, 1)),
        ((2, 5), (5,)),
        ((2, 5), ()),
    ],
)
def test_prelu(x, alpha):
    check_against_litert("PRELU", [rand(*x), const(rand(*alpha, scale=0.5))])


def test_prelu_variable_alpha():
    check_against_litert("PRELU", [rand(2, 3, 4), rand(3, 4)])


def test_edge_values():
    x = np.array([-np.inf, -100, -1e-3, -0.0, 0.0, 1e-3, 100, np.inf, np.nan], np.float32)
    for opcode in ("RELU", "RELU6", "RELU_N1_TO_1", "RELU_0_TO_1", "TANH", "LOGISTIC", "ELU"):
        check_against_litert(opcode, [x])
