"""SLICE, STRIDED_SLICE, PAD, PADV2 and MIRROR_PAD against LiteRT."""

import numpy as np
import pytest

from one_cmds.interp import Interpreter, InterpreterError
from one_cmds.ir import QuantParam
from support.litert import BUILTIN, run_model
from support.single_op import (
    TYPE_NAMES,
    check_against_litert,
    const,
    new_options,
    op_model,
    randoms,
    run_both,
    run_ours,
)

rand = randoms(1)


@pytest.mark.parametrize(
    ("shape", "begin", "size"),
    [
        ((4, 5), [1, 2], [2, 3]),
        ((4, 5), [0, 0], [-1, -1]),
        ((2, 3, 4), [1, 0, 2], [1, -1, 2]),
        ((4, 5), [2, 1], [0, 4]),
        ((3,), [3], [0]),
        ((1, 4, 4, 3), [0, 1, 1, 0], [1, 2, 3, 3]),
    ],
)
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int8, np.bool_])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_slice(shape, begin, size, dtype, index_dtype):
    check_against_litert(
        "SLICE",
        [rand(*shape, dtype=dtype), const(begin, index_dtype), const(size, index_dtype)],
        new_options("SliceOptions"),
        outputs=[TYPE_NAMES[dtype]],
    )


def test_slice_outside_the_input_is_an_error():
    with pytest.raises(InterpreterError, match="outside"):
        run_ours("SLICE", [rand(4), const([2], np.int32), const([3], np.int32)])


def strided(x, begin, end, strides, dtype="FLOAT32", **masks):
    """Compare with LiteRT's builtin kernel, exactly."""
    model = op_model(
        "STRIDED_SLICE",
        [x, const(begin, np.int32), const(end, np.int32), const(strides, np.int32)],
        new_options("StridedSliceOptions", **masks),
        outputs=[dtype],
    )
    (expected,) = run_model(model, [x], BUILTIN)
    (got,) = Interpreter(model).run([x])
    assert got.shape == expected.shape
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize(
    ("begin", "end", "strides"),
    [
        ([0, 0], [4, 6], [1, 1]),
        ([1, 2], [3, 5], [1, 2]),
        ([-3, -1], [-1, -6], [1, -1]),  # negative indices and stride
        ([3, 5], [0, 0], [-1, -2]),
        ([0, 0], [4, 6], [3, 4]),  # strides larger than the slice
        ([-10, -10], [10, 10], [1, 1]),  # clamped on both sides
        ([10, 10], [-10, -10], [-1, -1]),
        ([2, 3], [2, 1], [1, 1]),  # empty
        ([0, 1], [0, 0], [1, 1]),  # empty (XNNPACK would read end 0 as "to the end")
        ([1, 0], [3, 6], [-1, 1]),  # empty (wrong direction)
        ([4, 6], [-7, -7], [-2, -3]),
    ],
)
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int8])
def test_strided_slice_bounds(begin, end, strides, dtype):
    strided(rand(4, 6, dtype=dtype), begin, end, strides, TYPE_NAMES[dtype])


@pytest.mark.parametrize(("begin_mask", "end_mask"), [(1, 0), (0, 2), (3, 3), (2, 1)])
@pytest.mark.parametrize("strides", [[1, 1], [-1, -2], [2, -1]])
def test_strided_slice_begin_end_masks(begin_mask, end_mask, strides):
    strided(rand(5, 6), [2, -2], [3, 1], strides, beginMask=begin_mask, endMask=end_mask)


@pytest.mark.parametrize(
    ("begin", "end", "strides", "shrink"),
    [
        ([1, 0, 0], [2, 3, 4], [1, 1, 1], 1),
        ([0, -1, 0], [2, 0, 4], [1, 1, 1], 2),  # shrink with a negative index
        ([1, 2, 3], [0, 0, 0], [1, 1, 1], 7),  # scalar result
        ([0, 1, -1], [2, 3, 0], [1, 1, 1], 5),
        ([-9, 0, 0], [0, 3, 4], [1, 1, 1], 1),  # clamped index
    ],
)
def test_strided_slice_shrink_axis(begin, end, strides, shrink):
    strided(rand(2, 3, 4), begin, end, strides, shrinkAxisMask=shrink)


@pytest.mark.parametrize(
    ("begin", "end", "strides", "masks"),
    [
        # x[..., 1:3]
        ([0, 1], [0, 3], [1, 1], {"ellipsisMask": 1}),
        # x[1, ...]
        ([1, 0], [2, 0], [1, 1], {"ellipsisMask": 2, "shrinkAxisMask": 1}),
        # x[0:1, ..., ::-1]
        ([0, 0, 0], [1, 0, 0], [1, 1, -1], {"ellipsisMask": 2, "beginMask": 4, "endMask": 4}),
        # x[..., 1] (shrink after the ellipsis)
        ([0, 1], [0, 2], [1, 1], {"ellipsisMask": 1, "shrinkAxisMask": 2}),
        # x[...] covering everything
        ([0], [0], [1], {"ellipsisMask": 1}),
        # x[1:2, 0:2, 1:3, 0:1, ...] (ellipsis covering nothing)
        ([1, 0, 1, 0, 0], [2, 2, 3, 1, 0], [1, 1, 1, 1, 1], {"ellipsisMask": 16}),
    ],
)
def test_strided_slice_ellipsis(begin, end, strides, masks):
    strided(rand(2, 3, 4, 5), begin, end, strides, **masks)


@pytest.mark.parametrize(
    ("begin", "end", "strides", "masks"),
    [
        # x[None, 1:3]
        ([0, 1], [1, 3], [1, 1], {"newAxisMask": 1}),
        # x[:, None, :, None]
        (
            [0, 0, 0, 0],
            [0, 0, 0, 0],
            [1, 1, 1, 1],
            {"newAxisMask": 10, "beginMask": 5, "endMask": 5},
        ),
        # x[..., None]
        ([0, 0], [0, 0], [1, 1], {"ellipsisMask": 1, "newAxisMask": 2}),
        # x[None, ..., 1]
        (
            [0, 0, 1],
            [0, 0, 2],
            [1, 1, 1],
            {"newAxisMask": 1, "ellipsisMask": 2, "shrinkAxisMask": 4},
        ),
        # x[1, None] (shrink and new axis)
        ([1, 0], [2, 0], [1, 1], {"newAxisMask": 2, "shrinkAxisMask": 1}),
    ],
)
def test_strided_slice_new_axis(begin, end, strides, masks):
    strided(rand(3, 4, 2), begin, end, strides, **masks)


@pytest.mark.parametrize(
    ("begin", "end", "strides"),
    [
        ([1, 2], [2, 3], [1, 1]),
        ([-2, -5], [1, 3], [1, 1]),
        ([-1, 0], [1, 6], [1, 2]),
        ([3, 4], [-2, -3], [-1, -1]),
        ([0, 1], [0, 0], [1, 1]),
        ([-9, 9], [2, -4], [1, -1]),
        ([1, 2], [3, -2], [1, 1]),
    ],
)
@pytest.mark.parametrize("masks", [{}, {"beginMask": 1}])
def test_strided_slice_offset(begin, end, strides, masks):
    """With ``offset`` the end is a size from the resolved begin."""
    strided(rand(4, 6), begin, end, strides, offset=True, **masks)


@pytest.mark.parametrize(
    ("begin", "end", "masks", "match"),
    [([-1], [2], {}, "outside"), ([1], [2], {"endMask": 1}, "end mask")],
)
def test_strided_slice_offset_errors(begin, end, masks, match):
    """LiteRT reads out of bounds (past the end) or lays the output out inconsistently (end
    mask); the interpreter refuses both."""
    with pytest.raises(InterpreterError, match=match):
        run_ours(
            "STRIDED_SLICE",
            [rand(8), const(begin, np.int32), const(end, np.int32), const([1], np.int32)],
            new_options("StridedSliceOptions", offset=True, **masks),
        )


def test_strided_slice_shrink_with_a_negative_stride():
    """TF semantics (the element at begin); LiteRT's kernel writes nothing there."""
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    (got,) = run_ours(
        "STRIDED_SLICE",
        [x, const([1, 3], np.int32), const([2, 0], np.int32), const([-1, -1], np.int32)],
        new_options("StridedSliceOptions", shrinkAxisMask=1),
    )
    np.testing.assert_array_equal(got, x[1, 3:0:-1])


def test_strided_slice_random_specifications():
    """Seeded random specifications (masks, ellipsis, new axes, clamping) vs LiteRT."""
    rng = np.random.default_rng(7)
    compared = 0
    while compared < 150:
        rank = int(rng.integers(1, 5))
        shape = rng.integers(1, 6, rank)
        count = int(rng.integers(1, rank + 2))
        begin, end = rng.integers(-7, 8, (2, count))
        masks = {
            key: int(rng.integers(0, 1 << count)) if rng.random() < 0.5 else 0
            for key in ("beginMask", "endMask", "shrinkAxisMask", "newAxisMask")
        }
        if rng.random() < 0.4:
            masks["ellipsisMask"] = 1 << int(rng.integers(0, count))
        strides = rng.choice([-3, -2, -1, 1, 2, 3], count)
        shrunk = [(masks["shrinkAxisMask"] >> i) & 1 for i in range(count)]
        strides = np.where(shrunk, np.abs(strides), strides)  # see the test above
        x = rand(*shape)
        model = op_model(
            "STRIDED_SLICE",
            [x, const(begin, np.int32), const(end, np.int32), const(strides, np.int32)],
            new_options("StridedSliceOptions", **masks),
        )
        try:
            (got,) = Interpreter(model).run([x])
        except InterpreterError:
            continue  # out-of-range shrink index: LiteRT reads out of bounds
        (expected,) = run_model(model, [x], BUILTIN)
        assert got.shape == expected.shape, (shape, begin, end, strides, masks)
        np.testing.assert_array_equal(got, expected)
        compared += 1


@pytest.mark.parametrize("dtype", [np.int64, np.bool_, np.int16, np.uint8])
def test_strided_slice_dtypes(dtype):
    strided(rand(3, 5, dtype=dtype), [0, 4], [3, 0], [2, -2], TYPE_NAMES[dtype])


def test_strided_slice_five_dims():
    strided(
        rand(2, 3, 2, 3, 4),
        [1, 0, 0, 2, -1],
        [2, 3, 2, 0, 0],
        [1, 2, 1, -1, -1],
        shrinkAxisMask=1,
        endMask=16,
    )


@pytest.mark.parametrize(
    ("shape", "paddings"),
    [
        ((2, 3), [[1, 0], [0, 2]]),
        ((1, 4, 4, 3), [[0, 0], [1, 1], [2, 2], [0, 0]]),
        ((3,), [[0, 0]]),
        ((2, 3, 4), [[1, 2], [0, 0], [3, 1]]),
    ],
)
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64, np.int8])
@pytest.mark.parametrize("paddings_dtype", [np.int32, np.int64])
def test_pad(shape, paddings, dtype, paddings_dtype):
    check_against_litert(
        "PAD",
        [rand(*shape, dtype=dtype), const(paddings, paddings_dtype)],
        new_options("PadOptions"),
        outputs=[TYPE_NAMES[dtype]],
    )


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int8])
def test_padv2(dtype):
    value = np.array([7], dtype=dtype)
    check_against_litert(
        "PADV2",
        [rand(2, 3, dtype=dtype), const([[1, 2], [2, 0]], np.int32), const(value)],
        new_options("PadV2Options"),
        outputs=[TYPE_NAMES[dtype]],
    )
    check_against_litert(
        "PADV2",
        [rand(2, 3, dtype=dtype), const([[0, 1], [1, 1]], np.int32), const(value[0])],
        new_options("PadV2Options"),
        outputs=[TYPE_NAMES[dtype]],
    )


def test_pad_quantized_uses_the_zero_point():
    """Quantized PAD fills with the output zero point, as LiteRT does."""
    x = rand(2, 3, dtype=np.int8)
    model = op_model("PAD", [x, const([[1, 1], [0, 1]], np.int32)], outputs=["INT8"])
    q = QuantParam(scale=np.array([0.1], np.float32), zero_point=np.array([-5], np.int64))
    model.main.inputs[0].quant = q
    model.main.outputs[0].quant = q
    expected, got = run_both(model, [x])
    np.testing.assert_array_equal(got[0], expected[0])
    assert got[0][0, 0] == -5


def test_pad_negative_is_an_error():
    with pytest.raises(InterpreterError, match="negative"):
        run_ours("PAD", [rand(2, 3), const([[1, -1], [0, 0]], np.int32)])


@pytest.mark.parametrize(
    ("shape", "paddings"),
    [
        ((3, 4), [[1, 2], [3, 0]]),
        ((1, 4, 5, 2), [[0, 0], [2, 1], [1, 3], [0, 0]]),
        ((4,), [[3, 3]]),
        ((2, 3), [[0, 0], [0, 0]]),
    ],
)
@pytest.mark.parametrize("mode", [0, 1])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int8])
def test_mirror_pad(shape, paddings, mode, dtype):
    sizes = np.array(shape)
    widths = np.array(paddings)
    if mode == 0 and np.any(widths > sizes[:, None] - 1):
        pytest.skip("REFLECT needs padding < dimension")
    check_against_litert(
        "MIRROR_PAD",
        [rand(*shape, dtype=dtype), const(paddings, np.int32)],
        new_options("MirrorPadOptions", mode=mode),
        outputs=[TYPE_NAMES[dtype]],
    )


def test_mirror_pad_too_large_is_an_error():
    with pytest.raises(InterpreterError, match="too large"):
        run_ours(
            "MIRROR_PAD",
            [rand(3), const([[3, 0]], np.int32)],
            new_options("MirrorPadOptions", mode=0),
        )
