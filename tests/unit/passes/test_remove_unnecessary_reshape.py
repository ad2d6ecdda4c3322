"""remove_unnecessary_reshape (optimization.md §5.11)."""

import numpy as np
import pytest

from support.passes import Net, assert_optimized, assert_same_outputs, kinds, new_options, optimized

PASS = "remove_unnecessary_reshape"


def reshape_net(target, *, shape=(2, 3, 4), operand=True, dynamic=False):
    net = Net()
    x = net.input("x", shape)
    relu = net.op("RELU", [x], name="relu")
    options = new_options("ReshapeOptions", newShape=list(target))
    if dynamic:
        inputs = [relu, net.input("shape", [len(target)], "INT32")]
    elif operand:
        inputs = [relu, net.const("shape", target, np.int32)]
    else:
        inputs = [relu]
    net.outputs(net.op("RESHAPE", inputs, options, name="reshape"))
    return net.model()


@pytest.mark.parametrize(
    ("target", "operand"),
    [([2, 3, 4], True), ([2, -1, 4], True), ([-1, 3, 4], False), ([2, 3, 4], False)],
)
def test_reshape_to_the_same_shape_is_removed(target, operand):
    model = reshape_net(target, operand=operand)
    after = optimized(model, PASS)
    assert kinds(after) == ["RELU"]
    assert after.main.outputs[0].name == "reshape"
    assert_same_outputs(model, after)


def test_unknown_dimension_matched_by_minus_one():
    model = reshape_net([-1, 3], shape=(None, 3))
    assert_optimized(model, PASS, expect=["RELU"], inputs=[np.ones((5, 3), np.float32)])


@pytest.mark.parametrize(
    "variant",
    [
        {"target": [3, 2, 4]},
        {"target": [6, 4]},
        {"target": [2, 3, 4, 1]},
        {"target": [2, 3, 4], "dynamic": True},
        {"target": [-1, 3], "shape": (None, None)},  # the second dimension is not known to be 3
    ],
)
def test_near_misses_stay(variant):
    model = reshape_net(**variant)
    assert kinds(optimized(model, PASS)) == ["RELU", "RESHAPE"]
