"""Unknown dimensions: the tables of resize.md §9 (None = unknown)."""

import numpy as np
import pytest

from one_cmds.shape import ShapeInferenceError
from support.shape_helpers import infer_op, infer_shape, rand
from support.single_op import const, new_options

N = None


def i32(*values):
    return const(np.array(values, np.int32))


def operand(shape):
    """A graph input of ``shape`` (unknown dims taken as 1 for the builder)."""
    return rand(*(1 if d is None else d for d in shape))


def infer_with(opcode, shapes, extra=(), options=None, **kwargs):
    """Infer an operator whose first operands are graph inputs of ``shapes``."""
    return infer_shape(opcode, [*map(operand, shapes), *extra], options, shapes=shapes, **kwargs)


# -- §9.1 the broadcast table ----------------------------------------------------------------

CELLS = [
    (1, 1, 1), (1, 5, 5), (1, N, N),
    (5, 1, 5), (5, 5, 5), (5, N, 5),
    (N, 1, N), (N, 5, 5), (N, N, N),
]  # fmt: skip


@pytest.mark.parametrize(("a", "b", "expected"), CELLS)
@pytest.mark.parametrize("opcode", ["ADD", "MUL", "MAXIMUM", "LESS"])
def test_broadcast_table(opcode, a, b, expected):
    assert infer_with(opcode, [(2, a), (2, b)]) == (2, expected)


def test_broadcast_two_known_sizes_disagree():
    with pytest.raises(ShapeInferenceError, match="Cannot produce expand_dimension of two shapes"):
        infer_with("ADD", [(3, N), (4, 1)])


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [((N, 3), (3,), (N, 3)), ((), (N, 2), (N, 2)), ((N, 2), (), (N, 2)), ((), (), ()),
     ((N, 1, 4), (5, N, 1), (5, N, 4)), ((2, N), (3, 1, 1), (3, 2, N)), ((1,), (), (1,))],
)  # fmt: skip
def test_broadcast_ranks_align_right(a, b, expected):
    assert infer_with("ADD", [a, b]) == expected


def test_two_scalars_give_a_scalar():
    assert infer_with("ADD", [(), ()]) == ()


def test_select_v2_and_broadcast_to():
    assert infer_with("SELECT_V2", [(N, 1), (1, 4), (N, N)]) == (N, 4)
    assert infer_with("BROADCAST_TO", [(N, 1)], [i32(2, 3, 4)], version=2) == (2, 3, 4)
    assert infer_with("BROADCAST_TO", [(3,), (2,)], version=2) == (N, 3)


# -- §9.2 other rules -------------------------------------------------------------------------


@pytest.mark.parametrize("opcode", ["EXP", "RELU", "TANH", "LOGISTIC", "RSQRT", "ABS"])
def test_unary_keeps_unknown(opcode):
    assert infer_with(opcode, [(N, 3, N)]) == (N, 3, N)


def test_conversions_keep_unknown():
    assert infer_with("CAST", [(N, 2)], outputs=["INT32"]) == (N, 2)
    assert infer_with("QUANTIZE", [(N, 2)], outputs=["INT8"]) == (N, 2)


@pytest.mark.parametrize("opcode", ["PAD", "MIRROR_PAD"])
def test_pad_known_paddings(opcode):
    pads = const(np.array([[1, 2], [0, 0], [3, 3]], np.int32))
    options = new_options("MirrorPadOptions") if opcode == "MIRROR_PAD" else None
    assert infer_with(opcode, [(N, 4, 2)], [pads], options) == (N, 4, 8)


def test_pad_unknown_paddings():
    assert infer_with("PAD", [(2, 4, 2), (3, 2)]) == (N, N, N)
    assert infer_with("PADV2", [(2, 4), (2, 2)], [const(np.float32(0))]) == (N, N)


@pytest.mark.parametrize(
    ("x", "target", "expected"),
    [((2, 3, 4), [-1, 4], (6, 4)), ((N, 3, 4), [-1, 4], (N, 4)), ((N, 3, 4), [-1, 12], (N, 12)),
     ((2, 3, 4), [2, -1, 2], (2, 6, 2)), ((N, 3), [3, -1], (3, N)), ((N, 3), [-1], (N,))],
)  # fmt: skip
def test_reshape_minus_one(x, target, expected):
    assert infer_with("RESHAPE", [x], [const(np.array(target, np.int32))]) == expected


def test_reshape_shape_operand_of_unknown_value():
    """A non-constant shape operand: rank = its length, all dims unknown."""
    assert infer_with("RESHAPE", [(2, 3, 4), (3,)]) == (N, N, N)


def test_reshape_new_shape_option_with_unknown_input():
    assert infer_with(
        "RESHAPE", [(N, 6)], [], new_options("ReshapeOptions", newShape=[-1, 3, 2])
    ) == (N, 3, 2)


def test_reshape_element_count_mismatch():
    with pytest.raises(
        ShapeInferenceError, match=r"RESHAPE \(graph 0, operator 0\): cannot reshape"
    ):
        infer_with("RESHAPE", [(2, 3)], [i32(4, 2)])


@pytest.mark.parametrize(
    ("x", "begin", "size", "expected"),
    [((N, 5), [0, 1], [-1, -1], (N, 4)), ((N, 5), [1, 0], [2, 3], (2, 3)),
     ((4, N), [1, 0], [-1, 2], (3, 2))],
)  # fmt: skip
def test_slice_unknown_input(x, begin, size, expected):
    assert infer_with("SLICE", [x], [i32(*begin), i32(*size)]) == expected


def test_slice_unknown_bounds():
    assert infer_with("SLICE", [(2, 3, 4), (3,), (3,)]) == (N, N, N)


@pytest.mark.parametrize(
    ("x", "masks", "expected"),
    [((N, 5, 6), {}, (N, 4, 2)), ((N, 5, 6), {"shrinkAxisMask": 1}, (4, 2)),
     ((N, N, 6), {"beginMask": 3, "endMask": 3}, (N, N, 2)),
     ((4, 5, 6), {"newAxisMask": 2, "shrinkAxisMask": 1}, (1, 2, 6))],
)  # fmt: skip
def test_strided_slice_unknown_input(x, masks, expected):
    operands = [i32(0, 1, 0), i32(1, 5, 6), i32(1, 1, 3)]
    options = new_options("StridedSliceOptions", **masks)
    assert infer_with("STRIDED_SLICE", [x], operands, options) == expected


@pytest.mark.parametrize(
    ("masks", "expected"),
    [({}, (N, N, N)), ({"shrinkAxisMask": 5}, (N,)), ({"newAxisMask": 1}, (1, N, N, N)),
     ({"ellipsisMask": 1}, (2, 3, 4))],
)  # fmt: skip
def test_strided_slice_unknown_bounds_rank_from_masks(masks, expected):
    options = new_options("StridedSliceOptions", **masks)
    shapes = (
        [(2, 3, 4), (3,), (3,), (3,)]
        if "newAxisMask" not in masks
        else [(2, 3, 4), (4,), (4,), (4,)]
    )
    if "ellipsisMask" in masks:
        shapes = [(2, 3, 4), (1,), (1,), (1,)]
    assert infer_with("STRIDED_SLICE", shapes, [], options) == expected


@pytest.mark.parametrize("opcode", ["CONV_2D", "DEPTHWISE_CONV_2D"])
@pytest.mark.parametrize(
    ("x", "expected"), [((N, N, N, 3), (N, N, N, 6)), ((2, N, 8, 3), (2, N, 4, 6))]
)
def test_conv_unknown_spatial(opcode, x, expected):
    name = "Conv2DOptions" if opcode == "CONV_2D" else "DepthwiseConv2DOptions"
    options = new_options(
        name, padding=1, strideH=2, strideW=2, dilationHFactor=1, dilationWFactor=1
    )
    filt = const(rand(6, 1, 1, 3) if opcode == "CONV_2D" else rand(1, 1, 1, 6))
    assert infer_with(opcode, [x], [filt, const(rand(6))], options) == expected


def test_pool_unknown_spatial():
    options = new_options(
        "Pool2DOptions", padding=0, strideH=2, strideW=2, filterHeight=2, filterWidth=2
    )
    assert infer_with("MAX_POOL_2D", [(N, 7, N, 3)], [], options) == (N, 4, N, 3)


def test_transpose_conv_unknown_output_shape():
    options = new_options("TransposeConvOptions", padding=0, strideH=2, strideW=2)
    operands = [operand((4,)), const(rand(5, 3, 3, 2)), operand((2, 4, 4, 2))]
    assert infer_shape("TRANSPOSE_CONV", operands, options) == (2, N, N, 5)


def test_resize_unknown_size():
    assert infer_with(
        "RESIZE_BILINEAR", [(2, N, N, 3), (2,)], [], new_options("ResizeBilinearOptions")
    ) == (2, N, N, 3)


@pytest.mark.parametrize(
    ("shapes", "axis", "expected"),
    [([(N, 3), (N, 4)], 1, (N, 7)), ([(N, 3), (2, N)], 1, (2, N)), ([(N, 3), (2, 3)], 0, (N, 3)),
     ([(2, N), (N, 5)], -1, (2, N))],
)  # fmt: skip
def test_concatenation_unknown(shapes, axis, expected):
    assert (
        infer_with("CONCATENATION", shapes, [], new_options("ConcatenationOptions", axis=axis))
        == expected
    )


def test_concatenation_known_dims_must_agree():
    with pytest.raises(ShapeInferenceError, match="differ in dimension 0"):
        infer_with(
            "CONCATENATION", [(2, 3), (4, N)], [], new_options("ConcatenationOptions", axis=1)
        )


@pytest.mark.parametrize(
    ("x", "keep", "expected"),
    [((N, 8), False, (N, 5)), ((2, N, 8), False, (N, 5)), ((2, N, 8), True, (2, N, 5)),
     ((N, 3, 8), True, (N, 3, 5)), ((4, 2, 8), False, (8, 5))],
)  # fmt: skip
def test_fully_connected_unknown(x, keep, expected):
    options = new_options("FullyConnectedOptions", keepNumDims=keep)
    assert (
        infer_with("FULLY_CONNECTED", [x], [const(rand(5, 8)), const(rand(5))], options) == expected
    )


@pytest.mark.parametrize(
    ("a", "b", "adj", "expected"),
    [((N, 3, 4), (N, 4, 5), (False, False), (N, 3, 5)), ((1, N, 4), (6, 4, N), (False, False), (6, N, N)),
     ((N, 4, 3), (5, N), (True, True), (N, 3, 5)), ((2, 1, N, 4), (N, 4, 2), (False, False), (2, N, N, 2))],
)  # fmt: skip
def test_batch_matmul_unknown(a, b, adj, expected):
    options = new_options("BatchMatMulOptions", adjointLhs=adj[0], adjointRhs=adj[1])
    assert infer_with("BATCH_MATMUL", [a, b], [], options) == expected


def test_batch_matmul_inner_dims_must_agree():
    with pytest.raises(ShapeInferenceError, match="inner dimensions differ"):
        infer_with("BATCH_MATMUL", [(2, 3), (4, 5)], [], new_options("BatchMatMulOptions"))


def test_transpose_unknown():
    assert infer_with("TRANSPOSE", [(N, 3, 4)], [i32(2, 0, 1)]) == (4, N, 3)
    assert infer_with("TRANSPOSE", [(N, 3, 4), (3,)]) == (N, N, N)


@pytest.mark.parametrize(("keep", "expected"), [(False, (N, 4)), (True, (N, 1, 4))])
def test_reduction_unknown(keep, expected):
    options = new_options("ReducerOptions", keepDims=keep)
    assert infer_with("MEAN", [(N, 3, 4)], [i32(-2)], options) == expected


@pytest.mark.parametrize(("keep", "expected"), [(False, (N,)), (True, (N, N, N))])
def test_reduction_unknown_axes(keep, expected):
    options = new_options("ReducerOptions", keepDims=keep)
    assert infer_with("SUM", [(2, 3, 4), (2,)], [], options) == expected


def test_shape_of_unknown():
    assert infer_op("SHAPE", [operand((N, 3))], new_options("ShapeOptions", outType=2),
                    shapes=[(N, 3)], outputs=["INT32"]) == [((2,), "INT32")]  # fmt: skip


def test_gather_squeeze_expand_tile_unknown():
    assert infer_with("GATHER", [(N, 5, 3)], [i32(0, 1)], new_options("GatherOptions", axis=1)) == (
        N,
        2,
        3,
    )
    assert infer_with("GATHER", [(4, 5), (N, 2)], [], new_options("GatherOptions", axis=0)) == (
        N,
        2,
        5,
    )
    assert infer_with(
        "SQUEEZE", [(N, 1, 3)], [], new_options("SqueezeOptions", squeezeDims=[1])
    ) == (N, 3)
    assert infer_with("SQUEEZE", [(N, 1, 3)], [], new_options("SqueezeOptions")) == (N, 3)
    assert infer_with("EXPAND_DIMS", [(N, 3)], [const(np.int32(-1))]) == (N, 3, 1)
    assert infer_with("EXPAND_DIMS", [(N, 3), ()]) == (N, N, N)
    assert infer_with("TILE", [(N, 3)], [i32(2, 2)]) == (N, 6)
    assert infer_with("TILE", [(N, 3)], [i32(0, 1)]) == (0, 3)


def test_split_unpack_pack_unknown():
    options = new_options("SplitOptions", numSplits=2)
    outs = infer_op(
        "SPLIT", [const(np.int32(1)), operand((N, 4))], options, shapes=[(N, 4)], outputs=2
    )
    assert [s for s, _ in outs] == [(N, 2), (N, 2)]
    outs = infer_op(
        "SPLIT", [const(np.int32(0)), operand((N, 4))], options, shapes=[(N, 4)], outputs=2
    )
    assert [s for s, _ in outs] == [(N, 4), (N, 4)]
    options = new_options("SplitVOptions", numSplits=2)
    outs = infer_op("SPLIT_V", [operand((2, N)), i32(1, -1), const(np.int32(1))], options,
                    shapes=[(2, N)], outputs=2)  # fmt: skip
    assert [s for s, _ in outs] == [(2, 1), (2, N)]
    outs = infer_op("UNPACK", [operand((N, 2))], new_options("UnpackOptions", num=2, axis=1),
                    shapes=[(N, 2)], outputs=2)  # fmt: skip
    assert [s for s, _ in outs] == [(N,), (N,)]
    options = new_options("PackOptions", valuesCount=2, axis=1)
    assert infer_with("PACK", [(N, 3), (2, N)], [], options) == (2, 2, 3)


def test_split_not_divisible():
    with pytest.raises(
        ShapeInferenceError, match=r"^SPLIT \(graph 0, operator 0\): dimension 1 of size 5"
    ):
        infer_op(
            "SPLIT",
            [const(np.int32(1)), operand((2, 5))],
            new_options("SplitOptions", numSplits=2),
            outputs=2,
        )


def test_wrong_rank_messages():
    with pytest.raises(
        ShapeInferenceError,
        match=r"^CONV_2D \(graph 0, operator 0\): input rank 3, expected 4 \(result 'output0'\)$",
    ):
        infer_with(
            "CONV_2D",
            [(8, 8, 3)],
            [const(rand(2, 1, 1, 3))],
            new_options("Conv2DOptions", strideH=1, strideW=1),
        )
    with pytest.raises(
        ShapeInferenceError, match=r"input 1 rank 3, expected 2 \(result 'output0'\)$"
    ):
        infer_with("FULLY_CONNECTED", [(2, 3)], [const(rand(2, 3, 1))])
