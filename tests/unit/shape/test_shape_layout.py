"""Layout, slicing, padding and splitting rules against LiteRT."""

import numpy as np
import pytest

from support.shape_helpers import check_litert, rand
from support.single_op import const, new_options


def i32(*values):
    return const(np.array(values, np.int32))


@pytest.mark.parametrize(
    ("x", "target"),
    [((2, 3, 4), [6, 4]), ((2, 3, 4), [-1, 2]), ((2, 3, 4), [4, -1, 3]), ((1, 1), []),
     ((6,), [1, 1, 6, 1]), ((2, 0, 3), [0, -1]), ((2, 0, 3), [3, -1, 0]), ((0, 4), [-1, 2])],
)  # fmt: skip
def test_reshape_shape_operand(x, target):
    check_litert("RESHAPE", [rand(*x), const(np.array(target, np.int32).reshape(-1))])


def test_reshape_new_shape_option():
    check_litert("RESHAPE", [rand(2, 3, 4)], new_options("ReshapeOptions", newShape=[3, -1]))


@pytest.mark.parametrize("perm", [[0, 1, 2], [2, 0, 1], [1, 2, 0]])
def test_transpose(perm):
    check_litert("TRANSPOSE", [rand(2, 3, 4), const(np.array(perm, np.int32))])


@pytest.mark.parametrize("dims", [[], [0], [-1], [0, 2], [2, -4]])
@pytest.mark.parametrize("as_array", [False, True], ids=["list", "array"])
def test_squeeze(dims, as_array):
    """Listed axes as a list or as the int32 array a file gives (``[0]`` is not "none")."""
    listed = np.array(dims, np.int32) if as_array else dims
    check_litert("SQUEEZE", [rand(1, 3, 1, 1)], new_options("SqueezeOptions", squeezeDims=listed))


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
def test_expand_dims(axis):
    check_litert("EXPAND_DIMS", [rand(2, 3), const(np.int32(axis))])


@pytest.mark.parametrize("axis", [0, 1, -1, -3])
def test_concatenation(axis):
    shapes = [[2, 3, 4], [2, 3, 4], [2, 3, 4]]
    for s in shapes[1:]:
        s[axis] = 1 + len(s)
    check_litert("CONCATENATION", [rand(*s) for s in shapes],
                 new_options("ConcatenationOptions", axis=axis))  # fmt: skip


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_pack(axis):
    check_litert("PACK", [rand(2, 3), rand(2, 3)],
                 new_options("PackOptions", valuesCount=2, axis=axis))  # fmt: skip


@pytest.mark.parametrize(("axis", "num"), [(0, 2), (1, 3), (-1, 4)])
def test_unpack(axis, num):
    check_litert("UNPACK", [rand(2, 3, 4)], new_options("UnpackOptions", num=num, axis=axis),
                 outputs=num)  # fmt: skip


@pytest.mark.parametrize("multiples", [[1, 1], [2, 3], [0, 2]])
def test_tile(multiples):
    check_litert("TILE", [rand(2, 3), const(np.array(multiples, np.int32))])


@pytest.mark.parametrize(("x", "target"), [((3,), [2, 3]), ((2, 1), [2, 2, 4]), ((1,), [3])])
def test_broadcast_to(x, target):
    check_litert("BROADCAST_TO", [rand(*x), const(np.array(target, np.int32))], version=2)


def test_depth_to_space():
    check_litert(
        "DEPTH_TO_SPACE", [rand(1, 2, 3, 8)], new_options("DepthToSpaceOptions", blockSize=2)
    )


def test_space_to_depth():
    check_litert(
        "SPACE_TO_DEPTH", [rand(1, 4, 6, 3)], new_options("SpaceToDepthOptions", blockSize=2)
    )


@pytest.mark.parametrize(("x", "block", "crops"),
                         [((4, 2, 3, 1), [2, 2], [[0, 0], [0, 1]]), ((6, 2, 3), [3], [[1, 2]])])  # fmt: skip
def test_batch_to_space_nd(x, block, crops):
    operands = [rand(*x), const(np.array(block, np.int32)), const(np.array(crops, np.int32))]
    check_litert("BATCH_TO_SPACE_ND", operands)


@pytest.mark.parametrize(("x", "block", "pads"),
                         [((1, 4, 5, 2), [2, 3], [[0, 0], [0, 1]]), ((2, 4, 3), [3], [[1, 1]])])  # fmt: skip
def test_space_to_batch_nd(x, block, pads):
    operands = [rand(*x), const(np.array(block, np.int32)), const(np.array(pads, np.int32))]
    check_litert("SPACE_TO_BATCH_ND", operands)


# -- slicing -------------------------------------------------------------------------------


@pytest.mark.parametrize(("begin", "size"), [([0, 0, 0], [1, 2, 3]), ([1, 1, 0], [-1, -1, 2]),
                                             ([0, 2, 1], [2, 0, -1])])  # fmt: skip
def test_slice(begin, size):
    check_litert("SLICE", [rand(2, 3, 4), i32(*begin), i32(*size)])


STRIDED = [
    # begin, end, strides, options
    ([0, 0, 0], [2, 3, 4], [1, 1, 1], {}),
    ([1, -1, 0], [2, 0, 4], [1, -1, 2], {}),
    ([0, 1, 3], [0, 3, 0], [1, 1, -1], {"beginMask": 1, "endMask": 5}),
    ([1, 0, 0], [2, 3, 4], [1, 1, 1], {"shrinkAxisMask": 1}),
    ([-1, 0, -2], [0, 3, 0], [1, 1, 1], {"shrinkAxisMask": 5}),
    ([0, 0], [1, 2], [1, 1], {"shrinkAxisMask": 1}),
    ([0, 1], [0, 3], [1, 1], {"ellipsisMask": 1}),
    ([1, 0, 0], [2, 0, 2], [1, 1, 1], {"ellipsisMask": 2}),
    ([0, 0, 0, 0], [2, 0, 3, 4], [1, 1, 1, 1], {"newAxisMask": 2}),
    ([0, 0], [0, 0], [1, 1], {"newAxisMask": 1, "ellipsisMask": 2}),
    ([1, 0, 0], [1, 2, 2], [1, 1, 2], {"offset": True}),
    ([0, 0, 0], [10, 10, 10], [3, 2, 5], {}),
    ([5, 0, 0], [10, 10, 10], [1, 1, 1], {}),
]


@pytest.mark.parametrize(("begin", "end", "strides", "masks"), STRIDED)
def test_strided_slice(begin, end, strides, masks):
    options = new_options("StridedSliceOptions", **masks)
    operands = [rand(2, 3, 4), i32(*begin), i32(*end), i32(*strides)]
    check_litert("STRIDED_SLICE", operands, options)


@pytest.mark.parametrize(("axis", "parts"), [(0, 2), (1, 3), (-1, 4), (2, 1)])
def test_split(axis, parts):
    check_litert("SPLIT", [const(np.int32(axis)), rand(2, 3, 4)],
                 new_options("SplitOptions", numSplits=parts), outputs=parts)  # fmt: skip


@pytest.mark.parametrize(("sizes", "axis"), [([1, 2, 1], 2), ([2, -1], 1), ([-1], 0), ([3, 0], -2)])
def test_split_v(sizes, axis):
    operands = [rand(2, 3, 4), const(np.array(sizes, np.int32)), const(np.int32(axis))]
    check_litert("SPLIT_V", operands, new_options("SplitVOptions", numSplits=len(sizes)),
                 outputs=len(sizes))  # fmt: skip


PADS = [[0, 1], [2, 0], [1, 1]]


def test_pad():
    check_litert("PAD", [rand(2, 3, 4), const(np.array(PADS, np.int32))])


def test_padv2():
    check_litert("PADV2", [rand(2, 3, 4), const(np.array(PADS, np.int32)), const(np.float32(3))])


@pytest.mark.parametrize("mode", [0, 1])
def test_mirror_pad(mode):
    check_litert("MIRROR_PAD", [rand(2, 3, 4), const(np.array(PADS, np.int32))],
                 new_options("MirrorPadOptions", mode=mode))  # fmt: skip


@pytest.mark.parametrize(
    ("begin", "end", "strides", "masks"),
    [([0, 1], [0, 3], [1, 2], {"ellipsisMask": 1}), ([1, 0, 0], [2, 0, 2], [1, 1, 1], {"ellipsisMask": 2}),
     ([0, 0, 0], [1, 0, 2], [1, 1, 1], {"ellipsisMask": 2, "newAxisMask": 4, "shrinkAxisMask": 1})],
)  # fmt: skip
def test_strided_slice_ellipsis_over_several_dims(begin, end, strides, masks):
    operands = [rand(2, 3, 4, 5), i32(*begin), i32(*end), i32(*strides)]
    check_litert("STRIDED_SLICE", operands, new_options("StridedSliceOptions", **masks))
