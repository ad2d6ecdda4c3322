"""fuse_preactivation_batchnorm (reference FusePreActivationBatchNormPass): changes results on
purpose (Samsung/ONE#5782), so the tests check the documented transformation."""

import numpy as np
import pytest

from one_cmds.passes import load_passes
from support.litert import random_inputs
from support.passes import (
    Net,
    assert_same_outputs,
    assert_stays,
    batchnorm,
    conv2d_options,
    kinds,
    new_options,
    optimized,
    origin_names,
    pool_options,
    run_reference,
)

PASS = "fuse_preactivation_batchnorm"
RELU = 1
GAMMA = np.float32([0.5, 2.0, 1.25, 0.75])
BETA = np.float32([0.3, 2.0, -0.4, 0.1])


def conv(net, x, w_shape, name):
    return net.op(
        "CONV_2D",
        [x, net.random(f"{name}_w", w_shape), net.random(f"{name}_b", w_shape[:1])],
        conv2d_options(),
        name=name,
    )


def bn(net, t, gamma=GAMMA, beta=BETA, *, add_act=RELU, mul_act=0):
    """The batch norm with beta first in the Add; returns the Add's output."""
    gamma, beta = net.const("gamma", gamma), net.const("beta", beta)
    return batchnorm(net, t, gamma, beta, swap_add=True, mul_act=mul_act, add_act=add_act)[1]


def by_origin(model, kind, names):
    found = [
        op
        for op in model.main.operators
        if op.kind == kind and origin_names(model, op) == set(names)
    ]
    assert len(found) == 1, [(op.kind, origin_names(model, op)) for op in model.main.operators]
    return found[0]


def test_registered_as_changing_results():
    spec = load_passes()[PASS]
    assert spec.changes_results and not spec.exact


def test_swap_mul_and_add():
    gamma = np.float32([0.5, 2.0, 0.0, 1.25])
    beta = np.float32([0.3, 2.0, 0.7, -0.4])  # beta == gamma in channel 1, gamma 0 in 2
    net = Net()
    net.outputs(bn(net, net.input("x", [1, 3, 3, 4]), gamma, beta))
    model = net.model()
    after = optimized(model, PASS)
    assert kinds(after) == ["ADD", "MUL", "RELU"]
    add, mul, relu = after.main.operators
    ratio = np.float32([0.3 / 0.5, 1.0, np.float32(0.7) / np.float32(1e-10), -0.4 / 1.25])
    np.testing.assert_allclose(add.inputs[1].data, ratio, rtol=1e-6)
    assert add.options.fusedActivationFunction == 0
    assert mul.inputs == [add.outputs[0], mul.inputs[1]]
    np.testing.assert_array_equal(mul.inputs[1].data, gamma)
    assert relu.inputs == [mul.outputs[0]] and after.main.outputs == relu.outputs
    assert after.main.outputs[0].name == "add"
    assert origin_names(after, add) == origin_names(after, relu) == {"add"}
    assert origin_names(after, mul) == {"mul"}
    # Same values where gamma > 0; where gamma is 0 the channel becomes 0 (was relu(beta)).
    inputs = random_inputs(model, seed=1)
    (want,) = run_reference(model, inputs)
    (got,) = run_reference(after, inputs)
    keep = [0, 1, 3]
    np.testing.assert_allclose(got[..., keep], want[..., keep], rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(got[..., 2], 0)
    np.testing.assert_allclose(want[..., 2], 0.7)


def test_batchnorm_between_two_convs_goes_into_both():
    net = Net()
    x = net.input("x", [1, 6, 6, 3])
    net.outputs(conv(net, bn(net, conv(net, x, [4, 3, 3, 3], "c0")), [2, 3, 3, 4], "c1"))
    model = net.model()
    after = optimized(model, PASS)
    assert kinds(after) == ["CONV_2D", "RELU", "CONV_2D"]
    c0, relu, c1 = after.main.operators
    old_c0, _, _, old_c1 = model.main.operators
    np.testing.assert_array_equal(c0.inputs[1].data, old_c0.inputs[1].data)
    np.testing.assert_allclose(c0.inputs[2].data, old_c0.inputs[2].data + BETA / GAMMA, rtol=1e-6)
    np.testing.assert_allclose(c1.inputs[1].data, old_c1.inputs[1].data * GAMMA, rtol=1e-6)
    np.testing.assert_array_equal(c1.inputs[2].data, old_c1.inputs[2].data)
    assert origin_names(after, c0) == {"c0", "add"}
    assert origin_names(after, relu) == {"add"}
    assert origin_names(after, c1) == {"c1", "mul"}
    assert_same_outputs(model, after, rtol=1e-4, atol=1e-4)  # gamma > 0, no Pad: same values


@pytest.mark.parametrize("axes, fused", [([1, 2], True), ([-3, 2], True), ([3], False)])
def test_mul_moves_through_a_mean_that_keeps_the_channels(axes, fused):
    net = Net()
    x = net.input("x", [1, 4, 4, 4])
    mean = net.op(
        "MEAN",
        [bn(net, x), net.const("axes", axes, np.int32)],
        new_options("ReducerOptions", keepDims=True),
        name="mean",
    )
    channels = 1 if axes == [3] else 4
    net.outputs(conv(net, mean, [2, 1, 1, channels], "c1"))
    model = net.model()
    after = optimized(model, PASS)
    assert ("MUL" in kinds(after)) != fused
    if fused:
        assert origin_names(after, after.main.operators[-1]) == {"c1", "mul"}
    assert_same_outputs(model, after, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("pool_act, walked", [(0, True), (RELU, False)])
def test_beta_moves_up_through_a_max_pool_without_activation(pool_act, walked):
    net = Net()
    c0 = conv(net, net.input("x", [1, 6, 6, 3]), [4, 1, 1, 3], "c0")
    options = pool_options(pool_act, padding=1, stride=(2, 2))
    pooled = net.op("MAX_POOL_2D", [c0], options, name="pool")
    net.outputs(conv(net, bn(net, pooled), [2, 1, 1, 4], "c1"))
    model = net.model()
    after = optimized(model, PASS)
    stays = [] if walked else ["ADD"]
    assert kinds(after) == ["CONV_2D", "MAX_POOL_2D", *stays, "RELU", "CONV_2D"]
    assert origin_names(after, after.main.operators[0]) == ({"c0", "add"} if walked else {"c0"})
    assert_same_outputs(model, after, rtol=1e-4, atol=1e-4)


def residual_net(*, relu_is_output=False):
    """y = ca(x) + x; out = y + c1(relu(bn(y))): y feeds the batch norm and the next sum."""
    net = Net()
    x = net.input("x", [1, 5, 5, 4])
    y = net.op("ADD", [conv(net, x, [4, 3, 3, 4], "ca"), x], new_options("AddOptions"), name="y")
    act = bn(net, y)
    out = net.op(
        "ADD", [y, conv(net, act, [4, 3, 3, 4], "c1")], new_options("AddOptions"), name="out"
    )
    net.outputs(out, *([act] if relu_is_output else []))
    return net.model()


def test_residual_sum_moves_beta_across_the_block():
    model = residual_net()
    after = optimized(model, PASS)
    assert sorted(kinds(after)) == ["ADD", "ADD", "CONV_2D", "CONV_2D", "RELU"]
    ca = by_origin(after, "CONV_2D", {"ca", "add"})
    c1 = by_origin(after, "CONV_2D", {"c1", "mul", "add"})  # gamma, then -beta/gamma
    old = {op.outputs[0].name: op for op in model.main.operators}
    ratio = BETA / GAMMA
    np.testing.assert_allclose(ca.inputs[2].data, old["ca"].inputs[2].data + ratio, rtol=1e-6)
    np.testing.assert_allclose(
        c1.inputs[2].data, old["c1"].inputs[2].data - ratio, rtol=1e-5, atol=1e-6
    )
    assert_same_outputs(model, after, rtol=1e-4, atol=1e-4)


def test_residual_sum_without_the_mul_fused_forward():
    # The Relu is also a graph output, so the Mul stays; the reference fails here.
    model = residual_net(relu_is_output=True)
    after = optimized(model, PASS)
    assert sorted(kinds(after)) == ["ADD", "ADD", "CONV_2D", "CONV_2D", "MUL", "RELU"]
    by_origin(after, "CONV_2D", {"ca", "add"})
    by_origin(after, "CONV_2D", {"c1", "add"})
    assert_same_outputs(model, after, rtol=1e-4, atol=1e-4)


def test_a_pad_between_conv_and_batchnorm_changes_the_border():
    net = Net()
    x = net.input("x", [1, 4, 4, 3])
    pads = net.const("pads", [[0, 0], [1, 1], [1, 1], [0, 0]], np.int32)
    padded = net.op("PAD", [conv(net, x, [4, 1, 1, 3], "c0"), pads], name="pad")
    net.outputs(bn(net, padded))
    model = net.model()
    after = optimized(model, PASS)
    assert kinds(after) == ["CONV_2D", "PAD", "MUL", "RELU"]
    inputs = random_inputs(model, seed=2)
    (want,) = run_reference(model, inputs)
    (got,) = run_reference(after, inputs)
    inner = (slice(None), slice(1, -1), slice(1, -1))
    np.testing.assert_allclose(got[inner], want[inner], rtol=1e-4, atol=1e-4)
    border = np.ones(got.shape[1:3], bool)
    border[1:-1, 1:-1] = False
    np.testing.assert_array_equal(got[:, border], 0)  # gamma · 0 instead of gamma · 0 + beta
    np.testing.assert_allclose(want[:, border], np.broadcast_to(np.maximum(BETA, 0), (1, 20, 4)))


@pytest.mark.parametrize(
    "variant",
    [
        {"gamma": np.float32([0.5, -2.0, 1.25, 0.75])},  # a negative gamma
        {"add_act": 0},
        {"add_act": 3},
        {"gamma": GAMMA.reshape(1, 1, 1, 4)},
        {"mul_act": RELU},
    ],
)
def test_near_misses_stay(variant):
    net = Net()
    c0 = conv(net, net.input("x", [1, 4, 4, 3]), [4, 3, 3, 3], "c0")
    net.outputs(conv(net, bn(net, c0, **variant), [2, 3, 3, 4], "c1"))
    assert_stays(net.model(), PASS)


def test_a_mul_with_another_consumer_stays():
    net = Net()
    add = bn(net, net.input("x", [1, 3, 3, 4]))
    mul = net.operators[-2].outputs[0]
    net.outputs(add, net.op("NEG", [mul], name="other"))
    model = net.model()
    after = optimized(model, PASS)
    assert kinds(after) == kinds(model)
