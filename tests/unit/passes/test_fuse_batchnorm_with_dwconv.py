"""fuse_batchnorm_with_dwconv (optimization.md §5.2)."""

import numpy as np
import pytest

from support.passes import (
    Net,
    assert_optimized,
    assert_same_outputs,
    batchnorm_model,
    depthwise_options,
    kinds,
    new_options,
    op_named,
    optimized,
    origin_names,
)

PASS = "fuse_batchnorm_with_dwconv"
BEFORE = ["DEPTHWISE_CONV_2D", "MUL", "ADD"]
STRIDE = (2, 1)


def dw_bn_net(
    *,
    shape=(4,),
    in_channels=4,
    multiplier=1,
    swap=False,
    add_act=0,
    dw_act=0,
    mul_act=0,
    bias="const",
    shared=False,
):
    net = Net()
    x = net.input("x", [1, 7, 7, in_channels])
    out_channels = in_channels * multiplier
    if bias is not None:
        bias = net.random("b", [4]) if bias == "const" else net.input("b", [4])
    dw = net.op(
        "DEPTHWISE_CONV_2D",
        [x, net.random("w", [1, 3, 3, out_channels]), bias],
        depthwise_options(dw_act, multiplier=multiplier, stride=STRIDE),
        name="dw",
    )
    return batchnorm_model(
        net,
        dw,
        shape,
        swap_mul=swap,
        swap_add=swap,
        mul_act=mul_act,
        add_act=add_act,
        second_use="NEG" if shared else None,
    )


@pytest.mark.parametrize("shape", [(4,), (1, 1, 1, 4), (1,), ()])
@pytest.mark.parametrize("swap", [False, True])
@pytest.mark.parametrize("add_act", [0, 3])
def test_fuses_into_one_dwconv_with_the_adds_activation(shape, swap, add_act):
    model = dw_bn_net(shape=shape, swap=swap, add_act=add_act)
    after = optimized(model, PASS)
    assert kinds(after) == ["DEPTHWISE_CONV_2D"]
    dw = op_named(after, "DEPTHWISE_CONV_2D")
    assert dw.options.fusedActivationFunction == add_act
    assert (dw.options.strideH, dw.options.strideW, dw.options.padding) == (2, 1, 0)
    assert origin_names(after, dw) == {"dw", "mul", "add"}
    assert after.main.outputs[0].name == "add"
    assert_same_outputs(model, after)


def test_filter_and_bias_follow_the_formula():
    model = dw_bn_net()
    after = optimized(model, PASS)
    dw = op_named(after, "DEPTHWISE_CONV_2D")
    w, b = (model.main.operators[0].inputs[i].data for i in (1, 2))
    scale = model.main.operators[1].inputs[1].data
    shift = model.main.operators[2].inputs[1].data
    np.testing.assert_allclose(dw.inputs[1].data, w * scale, rtol=1e-6)
    np.testing.assert_allclose(dw.inputs[2].data, b * scale + shift, rtol=1e-6)


def test_a_shared_dwconv_stays_for_its_other_user():
    expect = ["DEPTHWISE_CONV_2D", "DEPTHWISE_CONV_2D", "NEG"]
    assert_optimized(dw_bn_net(shared=True), PASS, expect=expect, any_order=True)


@pytest.mark.parametrize(
    "variant",
    [
        {"multiplier": 2, "in_channels": 2},  # adopted: multiplier 1 only
        {"shape": (1, 4, 1, 1)},  # not per channel
        {"shape": (1, 1, 4)},  # rank 3
        {"add_act": 1},  # RELU is not among NONE/RELU6
        {"dw_act": 1},
        {"mul_act": 1},
        {"bias": "input"},  # not a constant
    ],
)
def test_near_misses_stay(variant):
    assert_optimized(dw_bn_net(**variant), PASS, expect=BEFORE)


def test_dwconv_without_bias_stays():
    model = dw_bn_net(bias=None)  # LiteRT cannot run it: structure only
    assert kinds(optimized(model, PASS)) == BEFORE


def test_non_constant_shift_stays():
    net = Net()
    x = net.input("x", [1, 5, 5, 2])
    t = net.input("t", [2])
    dw = net.op(
        "DEPTHWISE_CONV_2D",
        [x, net.random("w", [1, 3, 3, 2]), net.random("b", [2])],
        depthwise_options(stride=STRIDE),
    )
    mul = net.op("MUL", [dw, net.random("s", [2])], new_options("MulOptions"))
    net.outputs(net.op("ADD", [mul, t], new_options("AddOptions")))
    model = net.model()
    assert kinds(optimized(model, PASS)) == BEFORE


def test_dwconv_with_two_inputs_stays():
    net = Net()
    x = net.input("x", [1, 5, 5, 2])
    dw = net.op(
        "DEPTHWISE_CONV_2D", [x, net.random("w", [1, 3, 3, 2])], depthwise_options(stride=STRIDE)
    )
    mul = net.op("MUL", [dw, net.random("s", [2])], new_options("MulOptions"))
    net.outputs(net.op("ADD", [mul, net.random("t", [2])], new_options("AddOptions")))
    model = net.model()
    assert kinds(optimized(model, PASS)) == BEFORE
