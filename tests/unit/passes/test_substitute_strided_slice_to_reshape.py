"""substitute_strided_slice_to_reshape (reference SubstituteStridedSliceToReshapePass)."""

import numpy as np
import pytest

from support.passes import (
    assert_same_outputs,
    kinds,
    op_named,
    optimized,
    origin_names,
    strided_slice_net,
)

PASS = "substitute_strided_slice_to_reshape"
SHAPE = (1, 2, 1, 3)


@pytest.mark.parametrize(
    ("begin", "end", "masks", "target"),
    [
        ([0, 0, 0, 0], [1, 2, 1, 3], {"shrinkAxisMask": 0b0001}, [2, 1, 3]),
        ([0, 0, 0, 0], [1, 2, 1, 3], {"shrinkAxisMask": 0b0101}, [2, 3]),
        (
            [0, 0, -1, 0],
            [1, 9, 0, 3],
            {"shrinkAxisMask": 0b0100},
            [1, 2, 3],
        ),  # end of a shrunk axis is ignored
        (
            [5, 1, 0, 0],
            [0, 0, 1, 3],
            {"shrinkAxisMask": 1, "beginMask": 3, "endMask": 2},
            [2, 1, 3],
        ),
    ],
)
def test_shrinking_size_one_axes_becomes_a_reshape(begin, end, masks, target):
    model = strided_slice_net(SHAPE, begin, end, **masks)
    after = optimized(model, PASS)
    assert kinds(after) == ["RELU", "RESHAPE"]
    reshape = op_named(after, "RESHAPE")
    np.testing.assert_array_equal(reshape.inputs[1].data, target)
    assert origin_names(after, reshape) == {"ss"}
    assert_same_outputs(model, after)


@pytest.mark.parametrize(
    ("begin", "end", "strides", "masks", "shape"),
    [
        ([0, 0, 0, 0], [1, 2, 1, 3], (1, 1, 1, 1), {}, (1, 2, 1, 3)),  # no shrink
        ([0, 0, 0, 0], [1, 1, 1, 3], (1, 1, 1, 1), {"shrinkAxisMask": 2}, (1, 2, 1, 3)),  # size 2
        ([0, 0, 0, 0], [1, 2, 1, 3], (1, 1, 1, 2), {"shrinkAxisMask": 1}, (1, 2, 1, 3)),  # stride
        ([0, 1, 0, 0], [1, 2, 1, 3], (1, 1, 1, 1), {"shrinkAxisMask": 1}, (1, 2, 1, 3)),  # partial
        ([0, 0, 0, 0], [1, 2, 1, 3], (1, 1, 1, 1), {"shrinkAxisMask": 1}, (1, None, 1, 3)),
        (
            [0, 0, 0, 0],
            [1, 2, 1, 3],
            (1, 1, 1, 1),
            {"shrinkAxisMask": 1, "newAxisMask": 2},
            (1, 2, 1, 3),
        ),
    ],
)
def test_near_misses_stay(begin, end, strides, masks, shape):
    model = strided_slice_net(shape, begin, end, strides, **masks)
    assert kinds(optimized(model, PASS)) == ["RELU", "STRIDED_SLICE"]
