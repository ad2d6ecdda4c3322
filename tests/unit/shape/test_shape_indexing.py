"""Reduction, indexing and generator rules against LiteRT."""

import numpy as np
import pytest

from support.shape_helpers import check_litert, ints, rand
from support.single_op import const, new_options

REDUCTIONS = ["MEAN", "SUM", "REDUCE_MAX", "REDUCE_MIN", "REDUCE_PROD"]


@pytest.mark.parametrize("opcode", REDUCTIONS)
@pytest.mark.parametrize("axes", [[1], [-1], [0, 2], [2, -1], [], [0, 1, 2]])
@pytest.mark.parametrize("keep", [False, True])
def test_reduction(opcode, axes, keep):
    check_litert(opcode, [rand(2, 3, 4), const(np.array(axes, np.int32))],
                 new_options("ReducerOptions", keepDims=keep))  # fmt: skip


def test_reduction_scalar_axis():
    check_litert("SUM", [rand(2, 3), const(np.int32(1))], new_options("ReducerOptions"))


@pytest.mark.parametrize("keep", [False, True])
def test_reduce_any(keep):
    check_litert("REDUCE_ANY", [np.ones((2, 3), bool), const(np.array([0], np.int32))],
                 new_options("ReducerOptions", keepDims=keep), outputs=["BOOL"])  # fmt: skip


@pytest.mark.parametrize("opcode", ["ARG_MAX", "ARG_MIN"])
@pytest.mark.parametrize(("axis", "out_type"), [(0, "INT32"), (-1, "INT64"), (1, "INT32")])
def test_arg_reduction(opcode, axis, out_type):
    name = "ArgMaxOptions" if opcode == "ARG_MAX" else "ArgMinOptions"
    options = new_options(name, outputType=2 if out_type == "INT32" else 4)
    check_litert(opcode, [rand(2, 3, 4), const(np.array([axis], np.int32))], options,
                 outputs=[out_type])  # fmt: skip


@pytest.mark.parametrize(
    ("params", "indices", "axis", "batch_dims"),
    [((5, 3), (2,), 0, 0), ((2, 5, 3), (4, 2), 1, 0), ((2, 5, 3), (), -1, 0),
     ((2, 5, 3), (2, 4), 1, 1), ((2, 5, 3), (2, 4), -2, -1)],
)  # fmt: skip
def test_gather(params, indices, axis, batch_dims):
    idx = const(ints(*indices, high=2))
    options = new_options("GatherOptions", axis=axis, batchDims=batch_dims)
    check_litert("GATHER", [rand(*params), idx], options)


@pytest.mark.parametrize(("params", "indices"), [((4, 5, 6), (3, 2)), ((4, 5), (2, 3, 2)),
                                                 ((4, 5), (2,))])  # fmt: skip
def test_gather_nd(params, indices):
    check_litert("GATHER_ND", [rand(*params), const(ints(*indices, high=4))])


def test_scatter_nd():
    operands = [
        const(np.array([[1], [3]], np.int32)),
        rand(2, 5),
        const(np.array([4, 5], np.int32)),
    ]
    check_litert("SCATTER_ND", operands)


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_one_hot(axis):
    operands = [const(ints(2, 3, high=4)), const(np.int32(4)), const(np.float32(1)),
                const(np.float32(0))]  # fmt: skip
    check_litert("ONE_HOT", operands, new_options("OneHotOptions", axis=axis))


def test_where_count_is_unknown():
    [(shape, _)] = check_litert("WHERE", [np.array([[True, False], [True, True]])],
                                outputs=["INT64"], partial=True)  # fmt: skip
    assert shape == (None, 2)


def test_unique():
    x = np.array([1, 2, 2, 5, 1], np.float32)
    [(values, _), (idx, _)] = check_litert("UNIQUE", [x], new_options("UniqueOptions", idxOutType=2),
                                           outputs=["FLOAT32", "INT32"], partial=True)  # fmt: skip
    assert (values, idx) == ((None,), (5,))


def test_sparse_to_dense():
    operands = [const(np.array([[0, 1], [2, 3]], np.int32)), const(np.array([3, 5], np.int32)),
                const(np.array([1.0, 2.0], np.float32)), const(np.float32(0))]  # fmt: skip
    check_litert("SPARSE_TO_DENSE", operands)


def test_segment_sum():
    check_litert("SEGMENT_SUM", [rand(5, 3), const(np.array([0, 0, 1, 2, 2], np.int32))])


def test_topk_v2():
    check_litert("TOPK_V2", [rand(2, 3, 6), const(np.int32(4))], outputs=["FLOAT32", "INT32"])


def _nms_operands(extra):
    boxes = np.array([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, 2, 1, 3]], np.float32)
    scores = np.array([0.9, 0.8, 0.7], np.float32)
    return [
        boxes,
        scores,
        const(np.int32(5)),
        const(np.float32(0.5)),
        const(np.float32(0.0)),
        *extra,
    ]


def test_non_max_suppression_v4():
    check_litert("NON_MAX_SUPPRESSION_V4", _nms_operands([]), outputs=["INT32", "INT32"])


def test_non_max_suppression_v5():
    check_litert("NON_MAX_SUPPRESSION_V5", _nms_operands([const(np.float32(0.0))]),
                 outputs=["INT32", "FLOAT32", "INT32"])  # fmt: skip


def test_matrix_diag():
    check_litert("MATRIX_DIAG", [rand(2, 3)])


# -- generators ----------------------------------------------------------------------------


@pytest.mark.parametrize(("out_type", "dtype"), [(2, "INT32"), (4, "INT64")])
def test_shape(out_type, dtype):
    check_litert("SHAPE", [rand(2, 3, 4)], new_options("ShapeOptions", outType=out_type),
                 outputs=[dtype])  # fmt: skip


def test_rank():
    check_litert("RANK", [rand(2, 3, 4)], outputs=["INT32"])


def test_fill():
    check_litert("FILL", [const(np.array([2, 4], np.int32)), const(np.float32(3))])


@pytest.mark.parametrize(
    ("start", "limit", "delta"),
    [(0, 10, 3), (10, 0, -4), (2, 3, 5), (np.float32(0.5), np.float32(2.0), np.float32(0.4)),
     (np.float32(1.0), np.float32(-1.0), np.float32(-0.3))],
)  # fmt: skip
def test_range(start, limit, delta):
    dtype = np.float32 if isinstance(start, np.floating) else np.int32
    operands = [const(np.array(v, dtype)) for v in (start, limit, delta)]
    check_litert("RANGE", operands, outputs=["FLOAT32" if dtype is np.float32 else "INT32"])
