"""Normalization kernels: L2 and LRN against LiteRT; the circle-only INSTANCE_NORM and
RMS_NORM (LiteRT cannot run them) against float64 numpy formulas."""

import numpy as np
import pytest

from one_cmds.interp import Interpreter, InterpreterError
from support.single_op import check_against_litert, const, new_options, op_model

RNG = np.random.default_rng(5)


def rand(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("shape", [(6,), (2, 5), (2, 3, 4), (1, 4, 4, 3), (1, 2, 2, 3, 2)])
def test_l2_normalization(shape):
    check_against_litert("L2_NORMALIZATION", [rand(*shape)], new_options("L2NormOptions"))


def test_l2_normalization_tiny_norm():
    """The norm is bounded below by 1e-6: zero and tiny vectors do not blow up."""
    x = np.array([[0, 0, 0], [1e-8, -1e-8, 0], [1e-3, 0, 0], [3, 4, 0]], np.float32)
    check_against_litert("L2_NORMALIZATION", [x], new_options("L2NormOptions"))


@pytest.mark.parametrize(
    ("radius", "bias", "alpha", "beta"),
    [
        (0, 1.0, 1.0, 0.5),
        (1, 1.0, 1.0, 0.5),
        (2, 2.0, 0.1, 0.75),
        (5, 0.5, 0.3, 1.0),
        (20, 1.0, 1.0, 0.5),
    ],
)
def test_local_response_normalization(radius, bias, alpha, beta):
    options = new_options(
        "LocalResponseNormalizationOptions", radius=radius, bias=bias, alpha=alpha, beta=beta
    )
    check_against_litert("LOCAL_RESPONSE_NORMALIZATION", [rand(2, 3, 3, 7)], options)


def run(opcode, operands, options):
    model = op_model(opcode, operands, options)
    return Interpreter(model).run([o for o in operands if isinstance(o, np.ndarray)])[0]


def instance_norm_reference(x, gamma, beta, epsilon, axes, channel_axis):
    v = x.astype(np.float64)
    shape = [1] * x.ndim
    shape[channel_axis] = -1
    mean = v.mean(axis=axes, keepdims=True)
    var = v.var(axis=axes, keepdims=True)
    g = gamma.astype(np.float64).reshape(shape)
    b = beta.astype(np.float64).reshape(shape)
    return (v - mean) / np.sqrt(var + epsilon) * g + b


@pytest.mark.parametrize("epsilon", [1e-5, 1e-3])
@pytest.mark.parametrize(
    ("shape", "channels", "axes", "channel_axis"),
    [
        ((2, 4, 5, 3), 3, (1, 2), 3),  # NHWC: over H and W
        ((1, 3, 3, 4), 1, (1, 2), 3),  # one gamma/beta for every channel
        ((2, 3, 6), 3, (2,), 1),  # (N, C, D): over D
    ],
)
def test_instance_norm(shape, channels, axes, channel_axis, epsilon):
    x = rand(*shape) * 3 + 1
    gamma, beta = rand(channels), rand(channels)
    options = new_options("InstanceNormOptions", epsilon=epsilon)
    got = run("INSTANCE_NORM", [x, const(gamma), const(beta)], options)
    expected = instance_norm_reference(x, gamma, beta, np.float32(epsilon), axes, channel_axis)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def test_instance_norm_fused_activation():
    x, gamma, beta = rand(1, 4, 4, 2), rand(2), rand(2)
    options = new_options("InstanceNormOptions", epsilon=1e-5, fusedActivationFunction=3)
    got = run("INSTANCE_NORM", [x, const(gamma), const(beta)], options)
    expected = instance_norm_reference(x, gamma, beta, np.float32(1e-5), (1, 2), 3)
    np.testing.assert_allclose(got, np.clip(expected, 0, 6), rtol=1e-5, atol=1e-6)


def test_instance_norm_other_ranks_are_refused():
    x, gamma, beta = rand(2, 3), rand(3), rand(3)
    with pytest.raises(InterpreterError, match="rank 3 or 4"):
        run("INSTANCE_NORM", [x, const(gamma), const(beta)], new_options("InstanceNormOptions"))


@pytest.mark.parametrize("epsilon", [1e-6, 1e-2])
@pytest.mark.parametrize(
    ("shape", "gamma"), [((2, 3, 8), 8), ((1, 4, 4, 6), 6), ((2, 3, 8), 1), ((5, 16), 16)]
)
def test_rms_norm(shape, gamma, epsilon):
    x, g = rand(*shape) * 2, rand(gamma)
    got = run("RMS_NORM", [x, const(g)], new_options("RmsNormOptions", epsilon=epsilon))
    v = x.astype(np.float64)
    rms = np.sqrt(np.mean(v**2, axis=-1, keepdims=True) + np.float32(epsilon))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, v / rms * g, rtol=1e-5, atol=1e-6)
