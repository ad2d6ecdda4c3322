"""substitute_pack_to_reshape (reference SubstitutePackToReshapePass)."""

import numpy as np
import pytest

from support.passes import (
    Net,
    assert_same_outputs,
    kinds,
    new_options,
    op_named,
    optimized,
    origin_names,
)

PASS = "substitute_pack_to_reshape"


def pack_net(axis, *, shape=(2, 3), count=1):
    net = Net()
    x = net.input("x", shape)
    relu = net.op("RELU", [x], name="relu")
    options = new_options("PackOptions", valuesCount=count, axis=axis)
    net.outputs(net.op("PACK", [relu] * count, options, name="pack"))
    return net.model()


@pytest.mark.parametrize(
    ("axis", "shape", "target"),
    [
        (0, (2, 3), [1, 2, 3]),
        (1, (2, 3), [2, 1, 3]),
        (-1, (2, 3), [2, 3, 1]),
        (0, (), [1]),
        (1, (None, 3), [-1, 1, 3]),
    ],
)
def test_single_value_pack_becomes_a_reshape(axis, shape, target):
    model = pack_net(axis, shape=shape)
    after = optimized(model, PASS)
    assert kinds(after) == ["RELU", "RESHAPE"]
    reshape = op_named(after, "RESHAPE")
    np.testing.assert_array_equal(reshape.inputs[1].data, target)
    assert origin_names(after, reshape) == {"pack"}
    assert after.main.outputs[0].name == "pack"
    inputs = [np.random.default_rng(1).standard_normal([d or 4 for d in shape]).astype(np.float32)]
    assert_same_outputs(model, after, inputs)


@pytest.mark.parametrize("variant", [{"axis": 0, "count": 2}, {"axis": 0, "shape": (None, None)}])
def test_near_misses_stay(variant):
    model = pack_net(**variant)
    assert kinds(optimized(model, PASS)) == ["RELU", "PACK"]
