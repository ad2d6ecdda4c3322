"""remove_unnecessary_slice (optimization.md §5.13)."""

import numpy as np
import pytest

from support.passes import Net, assert_optimized, kinds, new_options, optimized

PASS = "remove_unnecessary_slice"


def slice_net(begin, size, *, dtype=np.int32, dynamic=False):
    net = Net()
    x = net.input("x", [2, 3, 4])
    relu = net.op("RELU", [x], name="relu")
    b = net.input("begin", [3], "INT32") if dynamic else net.const("begin", begin, dtype)
    s = net.const("size", size, dtype)
    net.outputs(net.op("SLICE", [relu, b, s], new_options("SliceOptions"), name="slice"))
    return net.model()


@pytest.mark.parametrize(
    ("size", "dtype"), [([-1, -1, -1], np.int32), ([2, 3, 4], np.int32), ([2, -1, 4], np.int64)]
)
def test_slice_of_everything_is_removed(size, dtype):
    model = slice_net([0, 0, 0], size, dtype=dtype)
    assert_optimized(model, PASS, expect=["RELU"])


@pytest.mark.parametrize(
    "variant",
    [
        {"begin": [0, 1, 0], "size": [-1, -1, -1]},
        {"begin": [0, 0, 0], "size": [2, 2, 4]},
        {"begin": [0, 0, 0], "size": [-1, -1, -1], "dynamic": True},
    ],
)
def test_near_misses_stay(variant):
    model = slice_net(**variant)
    assert kinds(optimized(model, PASS)) == ["RELU", "SLICE"]
