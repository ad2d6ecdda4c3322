"""substitute_transpose_to_reshape (optimization.md §5.12)."""

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

PASS = "substitute_transpose_to_reshape"


def transpose_net(perm, shape):
    net = Net()
    x = net.input("x", shape)
    relu = net.op("RELU", [x], name="relu")
    p = net.const("perm", perm, np.int32)
    net.outputs(net.op("TRANSPOSE", [relu, p], new_options("TransposeOptions"), name="transpose"))
    return net.model()


@pytest.mark.parametrize(
    ("perm", "shape", "target"),
    [
        ([0, 3, 1, 2], (1, 5, 6, 1), [1, 1, 5, 6]),
        ([2, 1, 0, 3], (1, 2, 1, 3), [1, 2, 1, 3]),
        ([1, 0, 2], (4, 1, None), [1, 4, -1]),
        ([0, 1], (2, 3), [2, 3]),
    ],
)
def test_transpose_moving_only_size_one_axes_becomes_a_reshape(perm, shape, target):
    model = transpose_net(perm, shape)
    after = optimized(model, PASS)
    assert kinds(after) == ["RELU", "RESHAPE"]
    reshape = op_named(after, "RESHAPE")
    np.testing.assert_array_equal(reshape.inputs[1].data, target)
    assert origin_names(after, reshape) == {"transpose"}
    inputs = [np.random.default_rng(2).standard_normal([d or 3 for d in shape]).astype(np.float32)]
    assert_same_outputs(model, after, inputs)


@pytest.mark.parametrize(
    ("perm", "shape"),
    [
        ([0, 2, 1, 3], (1, 5, 6, 1)),  # swaps two axes larger than 1
        ([1, 0, 2], (None, 1, None)),  # two unknown dimensions
        ([1, 0], (None, 2)),  # an unknown dimension might be larger than 1
    ],
)
def test_near_misses_stay(perm, shape):
    model = transpose_net(perm, shape)
    assert kinds(optimized(model, PASS)) == ["RELU", "TRANSPOSE"]
