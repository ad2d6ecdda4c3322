"""remove_unnecessary_strided_slice (optimization.md §5.13, the exact TFLite condition)."""

import numpy as np
import pytest

from support.passes import Net, assert_same_outputs, kinds, new_options, optimized

PASS = "remove_unnecessary_strided_slice"


def strided_slice_net(begin, end, strides=(1, 1, 1), **masks):
    net = Net()
    x = net.input("x", [2, 3, 4])
    relu = net.op("RELU", [x], name="relu")
    operands = [net.const(n, v, np.int32) for n, v in [("b", begin), ("e", end), ("s", strides)]]
    options = new_options("StridedSliceOptions", **masks)
    net.outputs(net.op("STRIDED_SLICE", [relu, *operands], options, name="ss"))
    return net.model()


@pytest.mark.parametrize(
    ("begin", "end", "masks"),
    [
        ([0, 0, 0], [2, 3, 4], {}),
        ([0, 0, 0], [5, 30, 400], {}),  # ends beyond the dimension are clamped
        ([-2, -3, -40], [2, 3, 4], {}),  # negative begins count from the end (and clamp)
        ([1, 2, 3], [0, 0, 0], {"beginMask": 7, "endMask": 7}),
        ([0, 1, 0], [2, -1, 4], {"beginMask": 2, "endMask": 2}),
    ],
)
def test_slice_of_everything_is_removed(begin, end, masks):
    model = strided_slice_net(begin, end, **masks)
    after = optimized(model, PASS)
    assert kinds(after) == ["RELU"]
    assert after.main.outputs[0].name == "ss"
    assert_same_outputs(model, after)


@pytest.mark.parametrize(
    ("begin", "end", "strides", "masks"),
    [
        ([0, 0, 0], [2, 3, -1], (1, 1, 1), {}),  # the reference's "end -1": drops the last
        ([0, 1, 0], [2, 3, 4], (1, 1, 1), {}),
        ([0, 0, 0], [2, 3, 4], (1, 1, 2), {}),
        ([0, 0, 0], [2, 3, 0], (1, 1, 1), {}),
        ([0, 0, 0], [2, 3, 4], (1, 1, 1), {"newAxisMask": 1}),
        ([0, 0, 0], [2, 3, 4], (1, 1, 1), {"ellipsisMask": 2}),
        ([0, 0, 0], [1, 3, 4], (1, 1, 1), {"shrinkAxisMask": 1}),
    ],
)
def test_near_misses_stay(begin, end, strides, masks):
    model = strided_slice_net(begin, end, strides, **masks)
    assert kinds(optimized(model, PASS)) == ["RELU", "STRIDED_SLICE"]
