"""fuse_batchnorm_with_conv (optimization.md §5.1)."""

import numpy as np
import pytest

from support.passes import (
    Net,
    assert_optimized,
    assert_same_outputs,
    batchnorm_model,
    conv2d_options,
    kinds,
    new_options,
    op_named,
    optimized,
    origin_names,
)

PASS = "fuse_batchnorm_with_conv"
BEFORE = ["CONV_2D", "MUL", "ADD"]


def bn_net(
    *,
    swap_mul=False,
    swap_add=False,
    scale_shape=(1, 1, 1, 4),
    add_act=0,
    conv_act=0,
    mul_act=0,
    second_use=False,
):
    net = Net()
    x = net.input("x", [1, 6, 6, 3])
    conv = net.op(
        "CONV_2D",
        [x, net.random("w", [4, 3, 3, 3]), net.random("b", [4])],
        conv2d_options(conv_act),
        name="conv",
    )
    return batchnorm_model(
        net,
        conv,
        scale_shape,
        gamma_range=(0.5, 2.0),
        swap_mul=swap_mul,
        swap_add=swap_add,
        mul_act=mul_act,
        add_act=add_act,
        second_use="RELU" if second_use else None,
    )


@pytest.mark.parametrize("swap_mul", [False, True])
@pytest.mark.parametrize("swap_add", [False, True])
@pytest.mark.parametrize("add_act", [0, 1, 3])
def test_fuses_into_one_conv_with_the_adds_activation(swap_mul, swap_add, add_act):
    model = bn_net(swap_mul=swap_mul, swap_add=swap_add, add_act=add_act)
    after = optimized(model, PASS)
    assert kinds(after) == ["CONV_2D"]
    conv = op_named(after, "CONV_2D")
    assert conv.options.fusedActivationFunction == add_act
    assert origin_names(after, conv) == {"conv", "mul", "add"}
    assert after.main.outputs[0].name == "add"
    assert_same_outputs(model, after)
    assert kinds(model) == ["CONV_2D", "MUL", "ADD"], "the input model is untouched"


@pytest.mark.parametrize("scale_shape", [(1,), (1, 1, 1, 1), ()])
def test_one_value_scale_and_shift_fuse(scale_shape):
    """A scalar affine after the Conv (PP-LCNetV3's learnable affine block), adopted beyond
    §5.1: every output channel is scaled and shifted by the one value."""
    model = bn_net(scale_shape=scale_shape)
    after = optimized(model, PASS)
    assert kinds(after) == ["CONV_2D"]
    assert_same_outputs(model, after)


def test_a_shared_conv_is_duplicated_not_mutated():
    expect = ["CONV_2D", "CONV_2D", "RELU"]
    assert_optimized(bn_net(second_use=True), PASS, expect=expect, any_order=True)


@pytest.mark.parametrize(
    "variant",
    [
        {"scale_shape": (4,)},  # rank 1 is not the pattern of §5.1
        {"conv_act": 1},
        {"mul_act": 1},
    ],
)
def test_near_misses_stay(variant):
    assert_optimized(bn_net(**variant), PASS, expect=BEFORE)


def test_non_constant_scale_stays():
    net = Net()
    x = net.input("x", [1, 4, 4, 2])
    s = net.input("s", [1, 1, 1, 2])
    conv = net.op(
        "CONV_2D", [x, net.random("w", [2, 1, 1, 2]), net.random("b", [2])], conv2d_options()
    )
    mul = net.op("MUL", [conv, s], new_options("MulOptions"))
    net.outputs(net.op("ADD", [mul, net.random("t", [1, 1, 1, 2])], new_options("AddOptions")))
    model = net.model()
    assert kinds(optimized(model, PASS)) == BEFORE


def test_weights_are_scaled_per_output_channel():
    model = bn_net()
    after = optimized(model, PASS)
    conv = op_named(after, "CONV_2D")
    w = model.main.operators[0].inputs[1].data
    scale = model.main.operators[1].inputs[1].data.reshape(-1)
    np.testing.assert_allclose(conv.inputs[1].data, w * scale[:, None, None, None], rtol=1e-6)


def test_conv_without_bias_stays():
    net = Net()
    x = net.input("x", [1, 4, 4, 2])
    conv = net.op("CONV_2D", [x, net.random("w", [2, 1, 1, 2])], conv2d_options())
    mul = net.op("MUL", [conv, net.random("s", [1, 1, 1, 2])], new_options("MulOptions"))
    net.outputs(net.op("ADD", [mul, net.random("t", [1, 1, 1, 2])], new_options("AddOptions")))
    model = net.model()
    assert kinds(optimized(model, PASS)) == BEFORE
