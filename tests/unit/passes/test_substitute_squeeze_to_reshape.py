"""substitute_squeeze_to_reshape (reference SubstituteSqueezeToReshapePass)."""

import numpy as np
import pytest

from support.passes import (
    Net,
    assert_optimized,
    assert_same_outputs,
    kinds,
    new_options,
    op_named,
    optimized,
    origin_names,
)

PASS = "substitute_squeeze_to_reshape"


def squeeze_net(axes, shape=(1, 3, 1, 2)):
    net = Net()
    x = net.input("x", shape)
    relu = net.op("RELU", [x], name="relu")
    net.outputs(
        net.op("SQUEEZE", [relu], new_options("SqueezeOptions", squeezeDims=axes), name="squeeze")
    )
    return net.model()


@pytest.mark.parametrize(
    ("axes", "target"), [([], [3, 2]), ([2], [1, 3, 2]), ([-4, 2], [3, 2]), ([0], [3, 1, 2])]
)
def test_squeeze_becomes_a_reshape(axes, target):
    model = squeeze_net(axes)
    after = optimized(model, PASS)
    assert kinds(after) == ["RELU", "RESHAPE"]
    reshape = op_named(after, "RESHAPE")
    np.testing.assert_array_equal(reshape.inputs[1].data, target)
    assert origin_names(after, reshape) == {"squeeze"}
    assert_same_outputs(model, after)


def test_squeeze_to_a_scalar():
    model = squeeze_net([], shape=(1, 1))
    assert_optimized(model, PASS, expect=["RELU", "RESHAPE"])


@pytest.mark.parametrize("shape", [(1, None, 1, 2), (1, 0, 1, 2)])
def test_unknown_or_empty_dimensions_stay(shape):
    model = squeeze_net([0], shape)
    assert kinds(optimized(model, PASS)) == ["RELU", "SQUEEZE"]
