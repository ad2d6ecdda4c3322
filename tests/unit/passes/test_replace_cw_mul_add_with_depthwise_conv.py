"""replace_cw_mul_add_with_depthwise_conv (optimization.md §5.19)."""

import numpy as np
import pytest

from support.passes import (
    Net,
    assert_optimized,
    assert_same_outputs,
    assert_stays,
    batchnorm,
    kinds,
    new_options,
    op_named,
    optimized,
    origin_names,
)

PASS = "replace_cw_mul_add_with_depthwise_conv"


def mul_add_net(
    *,
    x_shape=(1, 4, 4, 3),
    shape=(3,),
    swap=False,
    add_act=0,
    mul_act=0,
    second_use=False,
    dtype=np.float32,
):
    net = Net()
    x = net.input("x", x_shape, "FLOAT32" if dtype == np.float32 else "INT32")
    gamma = net.const("gamma", np.arange(1, 1 + np.prod(shape)).reshape(shape) - 1.5, dtype)
    beta = net.const("beta", np.arange(np.prod(shape)).reshape(shape) * 0.5 - 0.5, dtype)
    mul, add = batchnorm(
        net, x, gamma, beta, swap_mul=swap, swap_add=swap, mul_act=mul_act, add_act=add_act
    )
    net.outputs(add)
    if second_use:
        net.outputs(net.op("NEG", [mul], name="other"))
    return net.model()


@pytest.mark.parametrize("swap", [False, True])
@pytest.mark.parametrize("add_act", [0, 1, 2, 3])
def test_becomes_a_1x1_depthwise_conv(swap, add_act):
    model = mul_add_net(swap=swap, add_act=add_act)
    after = optimized(model, PASS)
    assert kinds(after) == ["DEPTHWISE_CONV_2D"]
    dw = op_named(after, "DEPTHWISE_CONV_2D")
    o = dw.options
    assert (o.padding, o.strideH, o.strideW, o.depthMultiplier) == (0, 1, 1, 1)
    assert (o.dilationHFactor, o.dilationWFactor, o.fusedActivationFunction) == (1, 1, add_act)
    np.testing.assert_array_equal(dw.inputs[1].data, np.float32([[[[-0.5, 0.5, 1.5]]]]))
    np.testing.assert_array_equal(dw.inputs[2].data, np.float32([-0.5, 0.0, 0.5]))
    assert origin_names(after, dw) == {"mul", "add"}
    assert after.main.outputs[0].name == "add"
    assert_same_outputs(model, after)


def test_every_match_is_replaced_in_one_run():
    net = Net()
    t = net.input("x", [1, 2, 2, 3])
    for i in range(3):
        mul = net.op("MUL", [t, net.random(f"g{i}", [3])], new_options("MulOptions"))
        t = net.op("ADD", [mul, net.random(f"b{i}", [3])], new_options("AddOptions"))
    net.outputs(t)
    model = net.model()
    assert_optimized(model, PASS, expect=["DEPTHWISE_CONV_2D"] * 3)


@pytest.mark.parametrize(
    "variant",
    [
        {"shape": (1, 1, 1, 3)},  # rank 1 only
        {"second_use": True},
        {"x_shape": (1, 16, 3)},  # rank 3
        {"x_shape": (1, 4, 4, 1)},  # x broadcast along the channels
        {"mul_act": 1},
        {"add_act": 4},  # TANH
        {"dtype": np.int32},
    ],
)
def test_near_misses_stay(variant):
    assert_stays(mul_add_net(**variant), PASS, any_order=True)
