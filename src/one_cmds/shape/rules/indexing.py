"""Operators that select, scatter or sort elements by index."""

from __future__ import annotations

from ..common import int_list, normalize_axis, option, scalar_int, shape_operand
from ..registry import ShapeError, rule


@rule("GATHER")
def gather(op, ctx):
    """params[:axis] + indices[batch_dims:] + params[axis + 1:]; FLOAT32 from GGML params
    (the interpreter dequantizes the gathered rows)."""
    params, indices = ctx.shape(0), ctx.shape(1)
    axis = normalize_axis(option(op, "axis", 0), len(params))
    batch_dims = option(op, "batchDims", 0)
    if batch_dims < 0:
        batch_dims += len(indices)
    if not 0 <= batch_dims <= min(axis, len(indices)):
        raise ShapeError(f"batch_dims {option(op, 'batchDims', 0)} is out of range")
    dtype = ctx.dtype(0)
    if dtype is not None and dtype.startswith("GGML_"):
        dtype = "FLOAT32"
    return [((*params[:axis], *indices[batch_dims:], *params[axis + 1 :]), dtype)]


@rule("GATHER_ND")
def gather_nd(op, ctx):
    """indices[:-1] + params[indices[-1]:]."""
    params, indices = ctx.shape(0), ctx.shape(1)
    if not indices or indices[-1] is None:
        raise ShapeError("the last dimension of the indices must be known")
    if indices[-1] > len(params):
        raise ShapeError(f"index depth {indices[-1]} exceeds the params rank {len(params)}")
    return [((*indices[:-1], *params[indices[-1] :]), ctx.dtype(0))]


@rule("SCATTER_ND")
def scatter_nd(op, ctx):
    """Inputs (indices, updates, shape): the output shape is the value of input 2."""
    return [(shape_operand(ctx, 2), ctx.dtype(1))]


@rule("SPARSE_TO_DENSE")
def sparse_to_dense(op, ctx):
    """Inputs (indices, output_shape, values, default_value)."""
    return [(shape_operand(ctx, 1), ctx.dtype(2))]


@rule("ONE_HOT")
def one_hot(op, ctx):
    """Inputs (indices, depth, on_value, off_value); depth inserted at ``axis`` (-1: last)."""
    indices = ctx.shape(0)
    axis = option(op, "axis", -1)
    axis = len(indices) if axis == -1 else normalize_axis(axis, len(indices) + 1)
    depth = scalar_int(ctx.value(1))
    return [((*indices[:axis], depth, *indices[axis:]), ctx.dtype(2))]


@rule("WHERE")
def where(op, ctx):
    """[number of true elements (unknown), rank of the condition]."""
    return [((None, len(ctx.shape(0))), ctx.output_dtype(0))]


@rule("UNIQUE")
def unique(op, ctx):
    """Outputs (values [unknown count], index of each input element)."""
    return [((None,), ctx.dtype(0)), (ctx.shape(0), ctx.output_dtype(1))]


@rule("SEGMENT_SUM")
def segment_sum(op, ctx):
    """Inputs (data, sorted segment_ids): [last id + 1, data dims after the first]."""
    data = ctx.shape(0)
    ids = int_list(ctx.value(1))
    segments = None if ids is None else (max(ids) + 1 if ids else 0)
    return [((segments, *data[1:]), ctx.dtype(0))]


@rule("TOPK_V2")
def topk_v2(op, ctx):
    """Inputs (x, k): values and indices, the last dimension replaced by k."""
    x = ctx.shape(0)
    if not x:
        raise ShapeError("input must have at least one dimension")
    k = scalar_int(ctx.value(1))
    return [((*x[:-1], k), ctx.dtype(0)), ((*x[:-1], k), ctx.output_dtype(1))]


@rule("NON_MAX_SUPPRESSION_V4")
def non_max_suppression_v4(op, ctx):
    """Outputs (selected indices [max_output_size], valid count)."""
    size = scalar_int(ctx.value(2))
    return [((size,), ctx.output_dtype(0)), ((), ctx.output_dtype(1))]


@rule("NON_MAX_SUPPRESSION_V5")
def non_max_suppression_v5(op, ctx):
    """Outputs (selected indices, selected scores [max_output_size], valid count)."""
    size = scalar_int(ctx.value(2))
    return [((size,), ctx.output_dtype(0)), ((size,), ctx.dtype(1)), ((), ctx.output_dtype(2))]


@rule("MATRIX_DIAG")
def matrix_diag(op, ctx):
    """[..., n] -> [..., n, n]."""
    x = ctx.shape(0)
    if not x:
        raise ShapeError("input must have at least one dimension")
    return [((*x, x[-1]), ctx.dtype(0))]
