"""SHAPE, RANK, FILL, ZEROS_LIKE and RANGE against LiteRT."""

import numpy as np
import pytest

from one_cmds.interp import InterpreterError
from support.single_op import TYPE_NAMES, check_against_litert, const, new_options, run_ours


@pytest.mark.parametrize("shape", [(2, 3), (1, 4, 4, 3), (5,)])
@pytest.mark.parametrize("out_type", ["INT32", "INT64"])
@pytest.mark.parametrize("dtype", [np.float32, np.int8])
def test_shape(shape, out_type, dtype):
    check_against_litert(
        "SHAPE",
        [np.zeros(shape, dtype)],
        new_options("ShapeOptions", outType={"INT32": 2, "INT64": 4}[out_type]),
        outputs=[out_type],
    )


@pytest.mark.parametrize("shape", [(2, 3), (1, 4, 4, 3), (5,), ()])
def test_rank(shape):
    (out,) = check_against_litert(
        "RANK", [np.zeros(shape, np.float32)], new_options("RankOptions"), outputs=["INT32"]
    )
    assert out.shape == ()


@pytest.mark.parametrize("dims", [[2, 3], [4], [], [1, 2, 3, 2]])
@pytest.mark.parametrize(
    ("dtype", "value"), [(np.float32, 1.5), (np.int32, -3), (np.int64, 7), (np.bool_, True)]
)
@pytest.mark.parametrize("dims_dtype", [np.int32, np.int64])
def test_fill(dims, dtype, value, dims_dtype):
    check_against_litert(
        "FILL",
        [const(dims, dims_dtype), np.array(value, dtype)],
        new_options("FillOptions"),
        outputs=[TYPE_NAMES[dtype]],
    )


@pytest.mark.parametrize("shape", [(2, 3), (5,), ()])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64])
def test_zeros_like(shape, dtype):
    x = np.ones(shape, dtype)
    check_against_litert(
        "ZEROS_LIKE", [x], new_options("ZerosLikeOptions"), outputs=[TYPE_NAMES[dtype]]
    )


@pytest.mark.parametrize(
    ("start", "limit", "delta"),
    [(0, 10, 1), (3, 18, 4), (10, 0, -3), (-5, 5, 2), (4, 5, 1), (7, -8, -5)],
)
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_range_int(start, limit, delta, dtype):
    check_against_litert(
        "RANGE",
        [const(np.array(v, dtype)) for v in (start, limit, delta)],
        new_options("RangeOptions"),
        outputs=[TYPE_NAMES[dtype]],
    )


@pytest.mark.parametrize(
    ("start", "limit", "delta"),
    [(0.0, 1.0, 0.1), (0.5, 3.2, 0.7), (2.0, -1.0, -0.3), (-1.0, 1.0, 0.01), (0.1, 100.0, 0.37)],
)
def test_range_float(start, limit, delta):
    """Bit-exact: the elements accumulate one delta at a time, as in LiteRT."""
    operands = [np.float32(start), np.float32(limit), np.float32(delta)]
    (expected,) = check_against_litert("RANGE", operands, new_options("RangeOptions"))
    (got,) = run_ours("RANGE", operands, new_options("RangeOptions"))
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize(("start", "limit", "delta"), [(0, 5, 0), (0, 5, -1), (5, 0, 1)])
def test_range_that_never_ends_is_an_error(start, limit, delta):
    with pytest.raises(InterpreterError):
        run_ours("RANGE", [const(np.int32(v)) for v in (start, limit, delta)], outputs=["INT32"])


def test_empty_results():
    """Zero-size outputs (LiteRT's Python binding cannot return them)."""
    (got,) = run_ours(
        "SHAPE", [np.float32(1)], new_options("ShapeOptions", outType=4), outputs=["INT64"]
    )
    assert got.shape == (0,)
    assert got.dtype == np.int64
    (got,) = run_ours("RANGE", [const(np.float32(v)) for v in (1.0, 1.0, 0.5)])
    assert got.shape == (0,)
