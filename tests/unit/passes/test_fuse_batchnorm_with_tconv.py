"""fuse_batchnorm_with_tconv (optimization.md §5.3)."""

import numpy as np
import pytest

from support.passes import (
    Net,
    assert_optimized,
    assert_same_outputs,
    batchnorm_model,
    kinds,
    op_named,
    optimized,
    origin_names,
    tconv_options,
)

PASS = "fuse_batchnorm_with_tconv"
BEFORE = ["TRANSPOSE_CONV", "MUL", "ADD"]
VALID = 1


def tconv_bn_net(
    *, shape=(2,), bias="const", swap=False, add_act=0, tconv_act=0, mul_act=0, shared=False
):
    net = Net()
    x = net.input("x", [1, 4, 4, 3])
    if bias == "const":
        b = net.random("b", [2])
    elif bias == "rank4":
        b = net.random("b", [1, 1, 1, 2])
    elif bias == "input":
        b = net.input("b", [2])
    else:
        b = None
    options = tconv_options(tconv_act, padding=VALID, stride=(2, 2))
    shape_t = net.const("out_shape", [1, 9, 9, 2], np.int32)
    inputs = [shape_t, net.random("w", [2, 3, 3, 3]), x] + ([b] if b is not None else [])
    tconv = net.op("TRANSPOSE_CONV", inputs, options, name="tconv")
    return batchnorm_model(
        net,
        tconv,
        shape,
        swap_mul=swap,
        swap_add=swap,
        mul_act=mul_act,
        add_act=add_act,
        second_use="NEG" if shared else None,
    )


@pytest.mark.parametrize("shape", [(2,), (1, 1, 1, 2), (1,), (1, 1, 1, 1)])
@pytest.mark.parametrize("bias", ["const", "rank4", None])
@pytest.mark.parametrize("swap", [False, True])
def test_fuses_into_one_tconv(shape, bias, swap):
    model = tconv_bn_net(shape=shape, bias=bias, swap=swap)
    after = optimized(model, PASS)
    assert kinds(after) == ["TRANSPOSE_CONV"]
    tconv = op_named(after, "TRANSPOSE_CONV")
    assert tconv.options.fusedActivationFunction == 0
    assert (tconv.options.padding, tconv.options.strideH) == (VALID, 2)
    assert origin_names(after, tconv) == {"tconv", "mul", "add"}
    assert after.main.outputs[0].name == "add"
    assert_same_outputs(model, after)


@pytest.mark.parametrize("add_act, kind", [(1, "RELU"), (3, "RELU6")])
def test_the_adds_relu_becomes_its_own_operator(add_act, kind):
    model = tconv_bn_net(add_act=add_act)
    after = optimized(model, PASS)
    assert kinds(after) == ["TRANSPOSE_CONV", kind]
    tconv, act = after.main.operators
    assert tconv.options.fusedActivationFunction == 0
    assert origin_names(after, tconv) == {"tconv", "mul", "add"}
    assert origin_names(after, act) == {"add"}
    assert after.main.outputs[0].name == "add"
    assert_same_outputs(model, after)


def test_filter_and_bias_follow_the_formula():
    model = tconv_bn_net()
    after = optimized(model, PASS)
    tconv = op_named(after, "TRANSPOSE_CONV")
    w, b = (model.main.operators[0].inputs[i].data for i in (1, 3))
    scale = model.main.operators[1].inputs[1].data
    shift = model.main.operators[2].inputs[1].data
    np.testing.assert_allclose(tconv.inputs[1].data, w * scale[:, None, None, None], rtol=1e-6)
    np.testing.assert_allclose(tconv.inputs[3].data, shift + b * scale, rtol=1e-6)
    assert tconv.inputs[3].shape == (2,)


def test_a_shared_tconv_stays_for_its_other_user():
    expect = ["NEG", "TRANSPOSE_CONV", "TRANSPOSE_CONV"]
    assert_optimized(tconv_bn_net(shared=True), PASS, expect=expect, any_order=True)


@pytest.mark.parametrize(
    "variant",
    [
        {"shape": (1, 1, 2)},  # rank 3
        {"tconv_act": 2},  # RELU_N1_TO_1 stays fused in the TransposeConv
        {"add_act": 2},  # RELU_N1_TO_1 is not accepted on the Add
        {"mul_act": 1},
        {"bias": "input"},  # not a constant
    ],
)
def test_near_misses_stay(variant):
    assert_optimized(tconv_bn_net(**variant), PASS, expect=BEFORE)
