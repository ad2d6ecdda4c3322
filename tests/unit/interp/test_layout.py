"""Data-movement kernels (reshape, transpose, joins, splits, tiles, reversals) against LiteRT."""

import numpy as np
import pytest

import one_cmds
from one_cmds.interp import InterpreterError
from support.litert import BUILTIN, run_model
from support.single_op import (
    TYPE_NAMES,
    check_against_litert,
    const,
    new_options,
    op_model,
    randoms,
    run_ours,
)

rand = randoms(0)


def out(dtype):
    """The output-type list for ``check_against_litert`` of a numpy dtype."""
    return [TYPE_NAMES[dtype]]


@pytest.mark.parametrize(
    ("shape", "target"),
    [
        ((2, 3, 4), [6, 4]),
        ((2, 3, 4), [-1, 2]),
        ((2, 3, 4), [4, -1, 3]),
        ((1, 6), [6]),
        ((1,), []),
        ((4,), [1, 1, 4, 1]),
    ],
)
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_])
def test_reshape_shape_input(shape, target, dtype):
    check_against_litert(
        "RESHAPE",
        [rand(*shape, dtype=dtype), const(target, np.int32)],
        new_options("ReshapeOptions"),
        outputs=out(dtype),
    )


@pytest.mark.parametrize(("shape", "target"), [((2, 3, 4), [3, -1]), ((1,), [0])])
def test_reshape_new_shape_option(shape, target):
    """Without a shape input the target comes from newShape ([0] is a legacy scalar)."""
    check_against_litert("RESHAPE", [rand(*shape)], new_options("ReshapeOptions", newShape=target))


def test_reshape_errors():
    with pytest.raises(InterpreterError, match="more than one -1"):
        run_ours("RESHAPE", [rand(2, 3), const([-1, -1], np.int32)])
    with pytest.raises(InterpreterError, match="cannot reshape"):
        run_ours("RESHAPE", [rand(2, 3), const([4, -1], np.int32)])


@pytest.mark.parametrize(
    ("shape", "perm"),
    [
        ((2, 3), [1, 0]),
        ((2, 3, 4), [2, 0, 1]),
        ((1, 2, 3, 4), [0, 3, 1, 2]),
        ((2, 3, 4, 5, 2), [4, 3, 2, 1, 0]),
        ((5,), [0]),
    ],
)
@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.bool_])
def test_transpose(shape, perm, dtype):
    check_against_litert(
        "TRANSPOSE",
        [rand(*shape, dtype=dtype), const(perm, np.int32)],
        new_options("TransposeOptions"),
        outputs=out(dtype),
    )


def test_transpose_bad_permutation():
    with pytest.raises(InterpreterError, match="not a permutation"):
        run_ours("TRANSPOSE", [rand(2, 3), const([0, 0], np.int32)])


@pytest.mark.parametrize(
    ("shape", "dims"),
    [
        ((1, 3, 1, 2), []),
        ((1, 3, 1, 2), [0]),
        ((1, 3, 1, 2), [-2]),
        ((1, 3, 1, 2), [2, 0, -4]),
        ((1, 1), []),
    ],
)
def test_squeeze(shape, dims):
    check_against_litert("SQUEEZE", [rand(*shape)], new_options("SqueezeOptions", squeezeDims=dims))


def test_squeeze_non_unit_dimension_is_an_error():
    with pytest.raises(InterpreterError):
        run_ours("SQUEEZE", [rand(2, 3)], new_options("SqueezeOptions", squeezeDims=[0]))


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
@pytest.mark.parametrize("axis_dtype", [np.int32, np.int64])
def test_expand_dims(axis, axis_dtype):
    check_against_litert(
        "EXPAND_DIMS", [rand(2, 3), const(axis, axis_dtype)], new_options("ExpandDimsOptions")
    )


def test_expand_dims_scalar_and_vector_axis():
    check_against_litert(
        "EXPAND_DIMS", [rand(), const([0], np.int32)], new_options("ExpandDimsOptions")
    )
    check_against_litert(
        "EXPAND_DIMS",
        [rand(4, dtype=np.int32), const([-1], np.int32)],
        new_options("ExpandDimsOptions"),
        outputs=["INT32"],
    )


@pytest.mark.parametrize(
    ("shapes", "axis"),
    [
        ([(2, 3), (4, 3)], 0),
        ([(2, 3), (2, 1), (2, 5)], -1),
        ([(1, 2, 3, 4), (1, 2, 1, 4)], 2),
        ([(3,)], 0),
        ([(2, 0), (2, 3)], 1),
    ],
)
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64, np.bool_])
def test_concatenation(shapes, axis, dtype):
    check_against_litert(
        "CONCATENATION",
        [rand(*s, dtype=dtype) for s in shapes],
        new_options("ConcatenationOptions", axis=axis),
        outputs=out(dtype),
    )


@pytest.mark.parametrize(("activation", "low", "high"), [(1, 0, np.inf), (2, -1, 1), (3, 0, 6)])
def test_concatenation_fused_activation(activation, low, high):
    """LiteRT's builtin kernel rejects a fused activation and XNNPACK ignores it; the schema
    says it applies, so the interpreter applies it."""
    a, b = rand(2, 3) * 4, rand(2, 2) * 4
    (got,) = run_ours(
        "CONCATENATION",
        [a, const(b)],
        new_options("ConcatenationOptions", axis=1, fusedActivationFunction=activation),
    )
    np.testing.assert_array_equal(got, np.clip(np.concatenate([a, b], axis=1), low, high))


@pytest.mark.parametrize(
    ("shape", "count", "axis"),
    [((2, 3), 3, 0), ((2, 3), 2, 2), ((4,), 2, -1), ((), 3, 0), ((2, 3), 1, -2)],
)
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int8])
def test_pack(shape, count, axis, dtype):
    check_against_litert(
        "PACK",
        [rand(*shape, dtype=dtype) for _ in range(count)],
        new_options("PackOptions", valuesCount=count, axis=axis),
        outputs=out(dtype),
    )


@pytest.mark.parametrize(
    ("shape", "axis"), [((3, 2), 0), ((2, 3, 4), 1), ((2, 3, 4), -1), ((4,), 0)]
)
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_])
def test_unpack(shape, axis, dtype):
    num = shape[axis]
    check_against_litert(
        "UNPACK",
        [rand(*shape, dtype=dtype)],
        new_options("UnpackOptions", num=num, axis=axis),
        outputs=out(dtype) * num,
    )


@pytest.mark.parametrize(
    ("shape", "axis", "num"), [((4, 6), 1, 3), ((4, 6), -2, 2), ((6,), 0, 1), ((2, 4, 3), -1, 3)]
)
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_split(shape, axis, num, dtype):
    check_against_litert(
        "SPLIT",
        [const(axis, np.int32), rand(*shape, dtype=dtype)],
        new_options("SplitOptions", numSplits=num),
        outputs=out(dtype) * num,
    )


def test_split_uneven_is_an_error():
    with pytest.raises(InterpreterError, match="equal parts"):
        run_ours(
            "SPLIT",
            [const(1, np.int32), rand(2, 5)],
            new_options("SplitOptions", numSplits=2),
            outputs=2,
        )


@pytest.mark.parametrize(
    ("shape", "sizes", "axis"),
    [((4, 6), [1, 2, 3], 1), ((4, 6), [3, -1], 0), ((4, 6), [-1, 0, 2], -1), ((5,), [5], 0)],
)
@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_split_v(shape, sizes, axis, dtype):
    check_against_litert(
        "SPLIT_V",
        [rand(*shape, dtype=dtype), const(sizes, np.int32), const(axis, np.int32)],
        new_options("SplitVOptions", numSplits=len(sizes)),
        outputs=out(dtype) * len(sizes),
    )


@pytest.mark.parametrize(
    ("shape", "multiples"),
    [((2, 3), [2, 1]), ((2, 3), [1, 3]), ((1, 2, 3), [2, 2, 2]), ((3,), [0])],
)
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_])
@pytest.mark.parametrize("multiples_dtype", [np.int32, np.int64])
def test_tile(shape, multiples, dtype, multiples_dtype):
    check_against_litert(
        "TILE",
        [rand(*shape, dtype=dtype), const(multiples, multiples_dtype)],
        new_options("TileOptions"),
        outputs=out(dtype),
    )


@pytest.mark.parametrize(
    ("shape", "target"), [((3,), [2, 3]), ((2, 1), [2, 4]), ((1, 3, 1), [2, 2, 3, 5]), ((), [2, 2])]
)
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int8])
def test_broadcast_to(shape, target, dtype):
    check_against_litert(
        "BROADCAST_TO",
        [rand(*shape, dtype=dtype), const(target, np.int32)],
        new_options("BroadcastToOptions"),
        outputs=out(dtype),
        version=2,
    )


@pytest.mark.parametrize(
    ("shape", "axes"),
    [((4,), [0]), ((2, 3, 4), [1]), ((2, 3, 4), [-1]), ((2, 3, 4), [1, 2]), ((2, 3), [-2, 1])],
)
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_])
def test_reverse_v2(shape, axes, dtype):
    """LiteRT only reverses contiguous axes; the interpreter takes any set."""
    check_against_litert(
        "REVERSE_V2",
        [rand(*shape, dtype=dtype), const(axes, np.int32)],
        new_options("ReverseV2Options"),
        outputs=out(dtype),
        version=3,
    )


def test_reverse_v2_non_contiguous_axes():
    x = rand(2, 3, 4)
    (got,) = run_ours("REVERSE_V2", [x, const([0, -1], np.int32)], new_options("ReverseV2Options"))
    np.testing.assert_array_equal(got, x[::-1, :, ::-1])


def test_a_zero_element_shape_constant_read_back_from_a_file(tmp_path):
    """The target shape of a reshape to a scalar has no elements, so the file holds an empty
    buffer for it (as for no value at all): read back, it still runs (issue 17, the resized
    Hugging Face decoders), equal to LiteRT."""
    model = op_model("RESHAPE", [np.zeros([1], np.float32), const(np.zeros([0], np.int32))])
    model.main.outputs[0].shape = ()
    one_cmds.save(model, str(tmp_path / "m.circle"))
    loaded = one_cmds.load(str(tmp_path / "m.circle"))
    x = np.array([3.5], np.float32)
    (got,) = one_cmds.Interpreter(loaded).run([x])
    (want,) = run_model(loaded, [x], BUILTIN)
    assert got.shape == () and got == want == np.float32(3.5)
