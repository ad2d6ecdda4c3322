"""transform_min_max_to_relu6 and transform_min_relu_to_relu6 (optimization.md §5.20)."""

import numpy as np
import pytest

from support.passes import (
    Net,
    assert_optimized,
    assert_same_outputs,
    assert_stays,
    kinds,
    op_named,
    optimized,
    origin_names,
)

MIN_MAX = "transform_min_max_to_relu6"
MIN_RELU = "transform_min_relu_to_relu6"


def clip_net(
    *,
    six=6.0,
    zero=0.0,
    six_shape=(),
    swap_min=False,
    swap_max=False,
    relu=False,
    then_neg=False,
    other_use=False,
):
    net = Net()
    x = net.input("x", [2, 3, 4])
    s = net.const("six", np.full(six_shape, six, np.float32))
    minimum = net.op("MINIMUM", [s, x] if swap_min else [x, s], name="minimum")
    if relu:
        out = net.op("RELU", [minimum], name="relu")
    else:
        z = net.const("zero", np.float32(zero))
        out = net.op("MAXIMUM", [z, minimum] if swap_max else [minimum, z], name="maximum")
    net.outputs(net.op("NEG", [out], name="neg") if then_neg else out)
    if other_use:
        net.outputs(net.op("ABS", [minimum], name="abs"))
    return net.model()


def inputs():
    return [np.linspace(-10, 10, 24, dtype=np.float32).reshape(2, 3, 4)]


@pytest.mark.parametrize("swap_min", [False, True])
@pytest.mark.parametrize("swap_max", [False, True])
def test_min_max_becomes_relu6(swap_min, swap_max):
    model = clip_net(swap_min=swap_min, swap_max=swap_max)
    after = optimized(model, MIN_MAX)
    assert kinds(after) == ["RELU6"]
    relu6 = op_named(after, "RELU6")
    assert relu6.inputs[0] is after.main.inputs[0]
    assert origin_names(after, relu6) == {"maximum", "minimum"}
    assert relu6.outputs[0].name == "maximum", "a graph output keeps its name"
    assert_same_outputs(model, after, inputs())


def test_relu6_inside_the_graph_is_named_after_the_maximum():
    model = clip_net(then_neg=True)
    after = optimized(model, MIN_MAX)
    assert kinds(after) == ["RELU6", "NEG"]
    assert op_named(after, "RELU6").outputs[0].name == "maximum/Relu6"
    assert_same_outputs(model, after, inputs())


@pytest.mark.parametrize("swap_min", [False, True])
def test_min_relu_becomes_relu6(swap_min):
    model = clip_net(relu=True, swap_min=swap_min, then_neg=True)
    after = optimized(model, MIN_RELU)
    assert kinds(after) == ["RELU6", "NEG"]
    relu6 = op_named(after, "RELU6")
    assert origin_names(after, relu6) == {"relu", "minimum"}
    assert relu6.outputs[0].name == "relu/Relu6"
    assert_same_outputs(model, after, inputs())


@pytest.mark.parametrize("relu", [False, True])
def test_minimum_with_another_user_stays(relu):
    model = clip_net(relu=relu, other_use=True)
    assert_optimized(
        model,
        MIN_RELU if relu else MIN_MAX,
        expect=["ABS", "MINIMUM", "RELU6"],
        any_order=True,
        inputs=inputs(),
    )


@pytest.mark.parametrize(
    "variant",
    [
        {"six": 5.0},
        {"six_shape": (1,)},
        {"zero": 0.5},
        {"relu": True, "six": 6.5},
        {"relu": True, "six_shape": (1, 1, 1)},
    ],
    ids=str,
)
def test_near_misses_stay(variant):
    assert_stays(clip_net(**variant), MIN_MAX, MIN_RELU, inputs=inputs())


def test_each_pass_only_rewrites_its_pattern():
    assert kinds(optimized(clip_net(relu=True), MIN_MAX)) == ["MINIMUM", "RELU"]
    assert kinds(optimized(clip_net(), MIN_RELU)) == ["MINIMUM", "MAXIMUM"]


def test_integer_clamps_stay():
    net = Net()
    x = net.input("x", [2, 3], "INT32")
    minimum = net.op("MINIMUM", [x, net.const("six", np.int32(6))], outputs=["INT32"])
    maximum = net.op("MAXIMUM", [minimum, net.const("zero", np.int32(0))], outputs=["INT32"])
    net.outputs(maximum, net.op("RELU", [minimum], outputs=["INT32"]))
    model = net.model()
    after = optimized(model, MIN_MAX, MIN_RELU)
    assert kinds(after) == kinds(model)
