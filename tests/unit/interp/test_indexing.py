"""Gathers, scatters, one-hot, arg-max/min, top-k, where, cumsum, sparse-to-dense vs LiteRT."""

import numpy as np
import pytest

from one_cmds.interp import InterpreterError
from support.single_op import (
    TYPE_NAMES,
    check_against_litert,
    const,
    new_options,
    randoms,
    run_ours,
)

RNG = np.random.default_rng(2)
rand = randoms(2)


@pytest.mark.parametrize(
    ("shape", "indices", "axis"),
    [
        ((5, 3), [[0, 4], [2, 2]], 0),
        ((2, 5, 3), [4, 0, 1], 1),
        ((2, 5, 3), [2], -1),
        ((4,), 3, 0),
        ((3, 4), [], 1),
    ],
)
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int8, np.bool_])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_gather(shape, indices, axis, dtype, index_dtype):
    check_against_litert(
        "GATHER",
        [rand(*shape, dtype=dtype), const(indices, index_dtype)],
        new_options("GatherOptions", axis=axis),
        outputs=[TYPE_NAMES[dtype]],
    )


@pytest.mark.parametrize(
    ("shape", "indices_shape", "axis", "batch_dims"),
    [
        ((2, 5, 3), (2, 4), 1, 1),
        ((2, 3, 5, 4), (2, 3, 2), 2, 2),
        ((2, 3, 5, 4), (2, 6), -1, 1),
        ((2, 3, 5), (2, 3), 2, -1),
        ((2, 3, 4, 5), (2, 2, 2), 3, 1),
    ],
)
def test_gather_batch_dims(shape, indices_shape, axis, batch_dims):
    limit = shape[axis]
    indices = RNG.integers(0, limit, indices_shape).astype(np.int32)
    check_against_litert(
        "GATHER",
        [rand(*shape), const(indices)],
        new_options("GatherOptions", axis=axis, batchDims=batch_dims),
        version=5,
    )


@pytest.mark.parametrize("index", [-1, 5])
def test_gather_out_of_range_is_an_error(index):
    with pytest.raises(InterpreterError, match="out of range"):
        run_ours("GATHER", [rand(5, 2), const([0, index], np.int32)], new_options("GatherOptions"))


@pytest.mark.parametrize(
    ("shape", "indices"),
    [
        ((4, 3), [[0, 1], [3, 2]]),
        ((4, 3), [[1], [3], [0]]),
        ((2, 3, 4), [[[0, 2], [1, 0]]]),
        ((2, 3, 4), [1, 2, 3]),
        ((5,), [[4], [0]]),
    ],
)
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64])
def test_gather_nd(shape, indices, dtype):
    check_against_litert(
        "GATHER_ND",
        [rand(*shape, dtype=dtype), const(indices, np.int32)],
        new_options("GatherNdOptions"),
        outputs=[TYPE_NAMES[dtype]],
    )


def test_gather_nd_out_of_range_is_an_error():
    with pytest.raises(InterpreterError, match="out of range"):
        run_ours(
            "GATHER_ND", [rand(4, 3), const([[1, 3]], np.int32)], new_options("GatherNdOptions")
        )


@pytest.mark.parametrize(
    ("indices", "updates_shape", "shape"),
    [
        ([[0], [2], [0]], (3, 4), [4, 4]),  # duplicate rows accumulate
        ([[1, 1], [0, 3]], (2,), [2, 4]),
        ([[[0, 1], [1, 2]]], (1, 2, 5), [2, 3, 5]),
        ([[3]], (1,), [5]),
    ],
)
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_scatter_nd(indices, updates_shape, shape, dtype):
    check_against_litert(
        "SCATTER_ND",
        [const(indices, np.int32), rand(*updates_shape, dtype=dtype), const(shape, np.int32)],
        new_options("ScatterNdOptions"),
        outputs=[TYPE_NAMES[dtype]],
    )


def test_scatter_nd_out_of_range_is_an_error():
    with pytest.raises(InterpreterError, match="out of range"):
        run_ours(
            "SCATTER_ND",
            [const([[4]], np.int32), rand(1), const([4], np.int32)],
            new_options("ScatterNdOptions"),
        )


@pytest.mark.parametrize(
    ("indices", "axis"),
    [([0, 2, 1, 5, -1], -1), ([[0, 2], [1, 1]], 0), ([[0, 2], [1, 1]], 1), (2, -1)],
)
@pytest.mark.parametrize(
    ("dtype", "on", "off"), [(np.float32, 1.5, -0.5), (np.int32, 7, 2), (np.bool_, True, False)]
)
def test_one_hot(indices, axis, dtype, on, off):
    check_against_litert(
        "ONE_HOT",
        [
            const(indices, np.int32),
            const(3, np.int32),
            const(np.array(on, dtype)),
            const(np.array(off, dtype)),
        ],
        new_options("OneHotOptions", axis=axis),
        outputs=[TYPE_NAMES[dtype]],
    )


@pytest.mark.parametrize("opcode", ["ARG_MAX", "ARG_MIN"])
@pytest.mark.parametrize(("shape", "axis"), [((3, 4), 1), ((3, 4), 0), ((2, 3, 4), -2), ((5,), 0)])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int8, np.uint8])
@pytest.mark.parametrize("output_type", ["INT32", "INT64"])
def test_arg_min_max(opcode, shape, axis, dtype, output_type):
    options_name = "ArgMaxOptions" if opcode == "ARG_MAX" else "ArgMinOptions"
    x = rand(*shape, dtype=dtype) if dtype != np.uint8 else RNG.integers(0, 4, shape).astype(dtype)
    check_against_litert(
        opcode,
        [x, const([axis], np.int32)],
        new_options(options_name, outputType={"INT32": 2, "INT64": 4}[output_type]),
        outputs=[output_type],
    )


@pytest.mark.parametrize("opcode", ["ARG_MAX", "ARG_MIN"])
def test_arg_min_max_ties_and_scalar_axis(opcode):
    """Ties resolve to the first index; the axis may be a scalar (int64 here)."""
    x = np.array([[1, 3, 3, 1], [2, 2, 2, 2]], np.int32)
    options_name = "ArgMaxOptions" if opcode == "ARG_MAX" else "ArgMinOptions"
    check_against_litert(
        opcode, [x, const(-1, np.int64)], new_options(options_name, outputType=2), outputs=["INT32"]
    )


@pytest.mark.parametrize(("shape", "k"), [((6,), 3), ((2, 5), 5), ((2, 3, 7), 1), ((3, 4), 0)])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint8, np.int64])
def test_topk_v2(shape, k, dtype):
    x = (RNG.integers(0, 4, shape) if dtype == np.uint8 else rand(*shape, dtype=dtype)).astype(
        dtype
    )
    check_against_litert(
        "TOPK_V2",
        [x, const(k, np.int32)],
        new_options("TopKV2Options"),
        outputs=[TYPE_NAMES[dtype], "INT32"],
    )


def test_topk_v2_ties_take_the_lower_index_first():
    x = np.array([[1, 5, 3, 5, 1, 3]], np.int32)
    _, indices = check_against_litert(
        "TOPK_V2", [x, const(4, np.int32)], new_options("TopKV2Options"), outputs=["INT32", "INT32"]
    )
    assert indices.tolist() == [[1, 3, 2, 5]]


@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 3, 2), (1, 2, 1, 3)])
@pytest.mark.parametrize("dtype", [np.bool_, np.float32, np.int32])
def test_where(shape, dtype):
    x = RNG.integers(0, 2, shape).astype(dtype)
    x.flat[0] = 1  # LiteRT's Python binding cannot return the empty result of all-false
    check_against_litert("WHERE", [x], new_options("WhereOptions"), outputs=["INT64"])


def test_where_nothing_true():
    """An empty result (LiteRT's Python binding cannot return a zero-size tensor)."""
    (got,) = run_ours(
        "WHERE", [np.zeros((2, 3), np.float32)], new_options("WhereOptions"), outputs=["INT64"]
    )
    assert got.shape == (0, 2)
    assert got.dtype == np.int64


@pytest.mark.parametrize(("shape", "axis"), [((6,), 0), ((3, 4), 1), ((3, 4), -2), ((2, 3, 4), 1)])
@pytest.mark.parametrize(
    ("exclusive", "reverse"), [(False, False), (True, False), (False, True), (True, True)]
)
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64])
def test_cumsum(shape, axis, exclusive, reverse, dtype):
    check_against_litert(
        "CUMSUM",
        [rand(*shape, dtype=dtype), const(axis, np.int32)],
        new_options("CumsumOptions", exclusive=exclusive, reverse=reverse),
        outputs=[TYPE_NAMES[dtype]],
    )


@pytest.mark.parametrize(
    ("indices", "shape", "values"),
    [
        ([[0, 1], [2, 3], [1, 0]], [3, 4], [1, 2, 3]),
        ([[0, 1], [2, 3]], [3, 4], 9),  # one shared value
        ([4, 0, 2], [6], [1, 2, 3]),  # vector indices
        (3, [5], 8),  # scalar index
        ([[1, 0, 2]], [2, 2, 3], [5]),
    ],
)
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64])
def test_sparse_to_dense(indices, shape, values, dtype):
    check_against_litert(
        "SPARSE_TO_DENSE",
        [
            const(indices, np.int32),
            const(shape, np.int32),
            const(np.array(values, dtype)),
            const(np.array(-1, dtype)),
        ],
        new_options("SparseToDenseOptions"),
        outputs=[TYPE_NAMES[dtype]],
    )


def test_sparse_to_dense_out_of_range_is_an_error():
    with pytest.raises(InterpreterError, match="out of range"):
        run_ours(
            "SPARSE_TO_DENSE",
            [
                const([[0, 4]], np.int32),
                const([2, 4], np.int32),
                const([1.0], np.float32),
                const(np.float32(0)),
            ],
            new_options("SparseToDenseOptions"),
        )
