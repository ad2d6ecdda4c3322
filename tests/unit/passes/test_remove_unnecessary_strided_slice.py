"""remove_unnecessary_strided_slice (optimization.md §5.13, the exact TFLite condition)."""

import pytest

from support.passes import assert_same_outputs, kinds, optimized, strided_slice_net

PASS = "remove_unnecessary_strided_slice"
SHAPE = (2, 3, 4)


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
    model = strided_slice_net(SHAPE, begin, end, **masks)
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
    model = strided_slice_net(SHAPE, begin, end, strides, **masks)
    assert kinds(optimized(model, PASS)) == ["RELU", "STRIDED_SLICE"]
