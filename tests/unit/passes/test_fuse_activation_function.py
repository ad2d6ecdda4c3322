"""fuse_activation_function (optimization.md §5.4)."""

import numpy as np
import pytest

from support.passes import (
    Net,
    assert_optimized,
    assert_same_outputs,
    assert_stays,
    conv2d_options,
    depthwise_options,
    fc_options,
    kinds,
    new_options,
    optimized,
    origin_names,
    pool_options,
    tconv_options,
)

PASS = "fuse_activation_function"
NONE, RELU, RELU_N1_TO_1, RELU6, TANH = 0, 1, 2, 3, 4


def conv(net, x, act):
    return net.op(
        "CONV_2D",
        [x, net.random("w", [3, 3, 3, 2], -3, 3), net.random("b", [3])],
        conv2d_options(act),
        name="p",
    )


def producer_net(kind, p_act, act_kind, *, second_use=False, p_is_output=False):
    net = Net()
    x = net.input("x", [1, 5, 5, 2])
    if kind == "CONV_2D":
        p = conv(net, x, p_act)
    elif kind in ("ADD", "SUB", "MUL", "DIV"):
        p = net.binary(kind, x, net.random("c", [2], 0.5, 4.0), act=p_act, name="p")
    elif kind == "FULLY_CONNECTED":
        w = net.random("w", [4, 2], -4, 4)
        p = net.op(kind, [x, w, None], fc_options(p_act, keep=True), name="p")
    elif kind in ("MAX_POOL_2D", "AVERAGE_POOL_2D"):
        scaled = net.op("MUL", [x, net.const("k", [6.0])], new_options("MulOptions"))
        p = net.op(kind, [scaled], pool_options(p_act), name="p")
    else:  # DEPTHWISE_CONV_2D
        w, b = net.random("w", [1, 2, 2, 2], -4, 4), net.random("b", [2])
        p = net.op(kind, [x, w, b], depthwise_options(p_act, padding=1), name="p")
    net.outputs(net.op(act_kind, [p], name="act"))
    if second_use:
        net.outputs(net.op("NEG", [p], name="other"))
    if p_is_output:
        net.outputs(p)
    return net.model()


@pytest.mark.parametrize(
    "act_kind, p_act, combined",
    [
        ("RELU", NONE, RELU),
        ("RELU", RELU, RELU),
        ("RELU", RELU6, RELU6),
        ("RELU6", NONE, RELU6),
        ("RELU6", RELU, RELU6),
        ("RELU6", RELU6, RELU6),
        ("RELU_N1_TO_1", NONE, RELU_N1_TO_1),
        ("RELU_N1_TO_1", RELU_N1_TO_1, RELU_N1_TO_1),
    ],
)
def test_the_table_of_combinations(act_kind, p_act, combined):
    model = producer_net("CONV_2D", p_act, act_kind)
    after = optimized(model, PASS)
    assert kinds(after) == ["CONV_2D"]
    p = after.main.operators[0]
    assert p.options.fusedActivationFunction == combined
    assert origin_names(after, p) == {"p", "act"}
    assert after.main.outputs[0].name == "act"
    assert_same_outputs(model, after)
    assert model.main.operators[0].options.fusedActivationFunction == p_act


@pytest.mark.parametrize(
    "kind",
    [
        "ADD",
        "SUB",
        "MUL",
        "DIV",
        "FULLY_CONNECTED",
        "MAX_POOL_2D",
        "AVERAGE_POOL_2D",
        "DEPTHWISE_CONV_2D",
    ],
)
def test_other_producers(kind):
    model = producer_net(kind, NONE, "RELU6")
    after = optimized(model, PASS)
    assert kinds(after) == kinds(model)[:-1]
    p = after.main.operators[-1]
    assert (p.opcode, p.options.fusedActivationFunction) == (kind, RELU6)
    assert origin_names(after, p) == {"p", "act"}
    assert_same_outputs(model, after)


def test_a_chain_of_activations_collapses():
    net = Net()
    x = net.input("x", [1, 5, 5, 2])
    relu = net.op("RELU", [conv(net, x, NONE)], name="relu")
    net.outputs(net.op("RELU6", [relu], name="relu6"))
    model = net.model()
    after = optimized(model, PASS)
    assert kinds(after) == ["CONV_2D"]
    p = after.main.operators[0]
    assert p.options.fusedActivationFunction == RELU6
    assert origin_names(after, p) == {"p", "relu", "relu6"}
    assert_same_outputs(model, after)


@pytest.mark.parametrize(
    "act_kind, p_act",
    [
        ("RELU", RELU_N1_TO_1),
        ("RELU6", RELU_N1_TO_1),
        ("RELU_N1_TO_1", RELU),
        ("RELU_N1_TO_1", RELU6),
        ("RELU", TANH),
        ("TANH", NONE),  # never fused
    ],
)
def test_other_combinations_stay(act_kind, p_act):
    assert_optimized(producer_net("ADD", p_act, act_kind), PASS, expect=["ADD", act_kind])


@pytest.mark.parametrize("use", [{"second_use": True}, {"p_is_output": True}])
def test_a_producer_with_another_use_stays(use):
    assert_stays(producer_net("CONV_2D", NONE, "RELU", **use), PASS, any_order=True)


def test_concatenation_and_operators_without_the_attribute_stay():
    net = Net()
    x = net.input("x", [1, 4, 3])
    cat = net.op("CONCATENATION", [x, x], new_options("ConcatenationOptions", axis=2))
    shape = net.const("shape", [1, 12], np.int32)
    net.outputs(
        net.op("RELU", [cat]),
        net.op(
            "RELU", [net.op("RESHAPE", [x, shape], new_options("ReshapeOptions", newShape=[1, 12]))]
        ),
    )
    assert_stays(net.model(), PASS)


def test_transpose_conv_stays():
    net = Net()
    x = net.input("x", [1, 3, 3, 2])
    inputs = [net.const("s", [1, 3, 3, 2], np.int32), net.random("w", [2, 3, 3, 2]), x]
    net.outputs(net.op("RELU", [net.op("TRANSPOSE_CONV", inputs, tconv_options())]))
    assert_optimized(net.model(), PASS, expect=["TRANSPOSE_CONV", "RELU"])
