"""fuse_add_with_tconv (optimization.md §5.6)."""

import numpy as np
import pytest

from support.passes import (
    Net,
    assert_same_outputs,
    assert_stays,
    kinds,
    op_named,
    optimized,
    origin_names,
    tconv_options,
)

PASS = "fuse_add_with_tconv"
BEFORE = ["TRANSPOSE_CONV", "ADD"]
SAME = 0


def tconv_add_net(
    *,
    addend=(3,),
    swap=False,
    add_act=0,
    tconv_act=0,
    biased=False,
    shared=False,
    filter_input=False,
):
    net = Net()
    x = net.input("x", [1, 3, 3, 2])
    w = net.input("w", [3, 2, 2, 2]) if filter_input else net.random("w", [3, 2, 2, 2])
    inputs = [net.const("out_shape", [1, 6, 6, 3], np.int32), w, x]
    if biased:
        inputs.append(net.random("b", [3]))
    options = tconv_options(tconv_act, padding=SAME, stride=(2, 2))
    tconv = net.op("TRANSPOSE_CONV", inputs, options, name="tconv")
    c = net.input("c", [3]) if addend == "input" else net.random("addend", addend)
    net.outputs(net.binary("ADD", tconv, c, swap=swap, act=add_act, name="add"))
    if shared:
        net.outputs(net.op("NEG", [tconv], name="other"))
    return net.model()


@pytest.mark.parametrize("addend", [(3,), (1, 1, 1, 3)])
@pytest.mark.parametrize("swap", [False, True])
def test_the_addend_becomes_the_bias(swap, addend):
    """A ``[1, 1, 1, O]`` addend (adopted beyond §5.6) becomes a rank-1 bias."""
    model = tconv_add_net(swap=swap, addend=addend)
    after = optimized(model, PASS)
    assert kinds(after) == ["TRANSPOSE_CONV"]
    tconv = op_named(after, "TRANSPOSE_CONV")
    np.testing.assert_array_equal(
        tconv.inputs[3].data, model.main.operators[1].inputs[0 if swap else 1].data.reshape(-1)
    )
    assert tconv.inputs[3].shape == (3,)
    assert origin_names(after, tconv) == {"tconv", "add"}
    assert after.main.outputs[0].name == "add"
    assert_same_outputs(model, after)


@pytest.mark.parametrize("add_act, kind", [(1, "RELU"), (3, "RELU6")])
def test_the_adds_relu_becomes_its_own_operator(add_act, kind):
    model = tconv_add_net(add_act=add_act)
    after = optimized(model, PASS)
    assert kinds(after) == ["TRANSPOSE_CONV", kind]
    tconv, act = after.main.operators
    assert tconv.options.fusedActivationFunction == 0
    assert origin_names(after, tconv) == {"tconv", "add"}
    assert origin_names(after, act) == {"add"}
    assert_same_outputs(model, after)


@pytest.mark.parametrize(
    "variant",
    [
        {"biased": True},
        {"shared": True},  # the Add must be the only consumer
        {"tconv_act": 2},  # RELU_N1_TO_1 stays fused in the TransposeConv
        {"add_act": 2},
        {"addend": (1,)},  # not per channel
        {"addend": "input"},
        {"filter_input": True},
    ],
)
def test_near_misses_stay(variant):
    assert_stays(tconv_add_net(**variant), PASS)
