"""fuse_horizontal_fc_layers (reference FuseHorizontalFullyConnectedPass)."""

import numpy as np
import pytest

from support.passes import (
    Net,
    assert_optimized,
    assert_same_outputs,
    fc_options,
    kinds,
    op_named,
    optimized,
    origin_names,
)

PASS = "fuse_horizontal_fc_layers"
UNFUSED = ["FULLY_CONNECTED", "FULLY_CONNECTED", "ADD"]


def horizontal_net(
    *,
    add_act=0,
    act1=0,
    act2=0,
    keep=(False, False),
    in_shape=(3, 5),
    bias=("const", "const"),
    bias_shapes=((4,), (4,)),
    const_w2=True,
    other_input=False,
    second_use=False,
):
    net = Net()
    x = net.input("x", in_shape)
    x2 = net.input("x2", in_shape) if other_input else x

    def make_bias(kind, k):
        if kind == "const":
            return net.random(f"b{k}", bias_shapes[k - 1])
        return net.input(f"b{k}", [4]) if kind == "input" else None

    w1 = net.random("w1", [4, 5])
    w2 = net.random("w2", [4, 5]) if const_w2 else net.input("w2", [4, 5])
    fc1 = net.op(
        "FULLY_CONNECTED", [x, w1, make_bias(bias[0], 1)], fc_options(act1, keep[0]), name="fc1"
    )
    fc2 = net.op(
        "FULLY_CONNECTED", [x2, w2, make_bias(bias[1], 2)], fc_options(act2, keep[1]), name="fc2"
    )
    net.outputs(net.binary("ADD", fc1, fc2, act=add_act, name="add"))
    if second_use:
        net.outputs(net.op("RELU", [fc2], name="other"))
    return net.model()


@pytest.mark.parametrize("add_act", [0, 1, 2, 3])
@pytest.mark.parametrize(
    "variant",
    [
        {},
        {"bias": (None, None)},
        {"keep": (True, True), "in_shape": (2, 3, 5)},
        {"keep": (True, False), "in_shape": (1, 5)},  # equal result shapes [1, 4]
    ],
)
def test_two_fcs_of_one_input_become_one(add_act, variant):
    model = horizontal_net(add_act=add_act, **variant)
    after = optimized(model, PASS)
    assert kinds(after) == ["FULLY_CONNECTED"]
    fc = op_named(after, "FULLY_CONNECTED")
    assert fc.options.fusedActivationFunction == add_act
    assert origin_names(after, fc) == {"fc1", "fc2", "add"}
    out = after.main.outputs[0]
    assert (out.name, out.shape) == ("add", model.main.outputs[0].shape)
    # exact=False: x·W1 + x·W2 becomes x·(W1 + W2); these values stay within 1e-5.
    assert_same_outputs(model, after)
    assert kinds(model) == UNFUSED, "the input model is untouched"


def test_weights_and_biases_are_summed():
    model = horizontal_net()
    after = optimized(model, PASS)
    fc1, fc2 = model.main.operators[:2]
    fused = op_named(after, "FULLY_CONNECTED")
    np.testing.assert_array_equal(fused.inputs[1].data, fc1.inputs[1].data + fc2.inputs[1].data)
    np.testing.assert_array_equal(fused.inputs[2].data, fc1.inputs[2].data + fc2.inputs[2].data)


def test_a_shared_fc_stays_for_its_other_user():
    expect = ["FULLY_CONNECTED", "FULLY_CONNECTED", "RELU"]
    assert_optimized(horizontal_net(second_use=True), PASS, expect=expect, any_order=True)


@pytest.mark.parametrize(
    "variant",
    [
        {"act1": 1},
        {"act2": 3},
        {"add_act": 4},  # TANH: LiteRT's FC kernel refuses it
        {"other_input": True},
        {"const_w2": False},
        {"bias": ("const", None)},  # one bias and no bias (reference TODO)
        {"bias": ("input", "input")},  # non-constant biases
        {"bias_shapes": ((4,), (1, 4))},
    ],
)
def test_near_misses_stay(variant):
    model = horizontal_net(**variant)
    after = optimized(model, PASS)
    assert kinds(after) == UNFUSED
