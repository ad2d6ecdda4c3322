"""Index-driven kernels: gathers, scatters, one-hot, arg-max/min, top-k, where, cumsum."""

from __future__ import annotations

import math

import numpy as np

from ..ggml_blocks import dequantize_rows
from ..real_weights import is_block
from ..registry import kernel
from .layout import axis_index, int_list, scalar_int

_INDEX_DTYPES = {2: np.int32, 4: np.int64}  # TensorType INT32, INT64


def _check_indices(indices: np.ndarray, limit: int | np.ndarray, what: str) -> None:
    """LiteRT rejects negative and too-large indices (no wrapping)."""
    if np.any(indices < 0) or np.any(indices >= limit):
        raise ValueError(f"{what} out of range [0, {limit})")


@kernel("GATHER")
def gather(op, args, ctx):
    """``params[..., indices, ...]`` along ``axis``; the first ``batchDims`` axes are shared.
    GGML params: the selected rows, dequantized (FLOAT32)."""
    params, indices = args[0], np.asarray(args[1])
    if is_block(op.inputs[0]):
        return _gather_blocks(op, op.inputs[0], params, indices)
    options = op.options
    axis = axis_index(getattr(options, "axis", 0), params.ndim)
    batch_dims = getattr(options, "batchDims", 0)
    if batch_dims < 0:
        batch_dims += indices.ndim
    if not 0 <= batch_dims <= min(axis, indices.ndim):
        raise ValueError(f"batch_dims {batch_dims} must lie in [0, min(axis, indices rank)]")
    if params.shape[:batch_dims] != indices.shape[:batch_dims]:
        raise ValueError("params and indices disagree on the batch dimensions")
    _check_indices(indices, params.shape[axis], "gather index")
    if batch_dims == 0:
        return np.asarray(np.take(params, indices, axis=axis))
    batch = params.shape[:batch_dims]
    flat_batch = int(np.prod(batch, dtype=np.int64))
    outer = params.shape[batch_dims:axis]
    p = params.reshape(flat_batch, -1, params.shape[axis], int(np.prod(params.shape[axis + 1 :])))
    idx = indices.reshape(flat_batch, -1)
    rows = np.arange(flat_batch)[:, None, None]
    cols = np.arange(p.shape[1])[None, :, None]
    out = p[rows, cols, idx[:, None, :]]
    return out.reshape(*batch, *outer, *indices.shape[batch_dims:], *params.shape[axis + 1 :])


def _gather_blocks(op, tensor, raw, indices):
    """GATHER along axis 0 of GGML params [n, ..., C]: only the selected rows are decoded."""
    axis = getattr(op.options, "axis", 0)
    batch_dims = getattr(op.options, "batchDims", 0)
    shape = tensor.shape
    if len(shape) < 2 or None in shape or axis not in (0, -len(shape)) or batch_dims:
        raise ValueError(
            f"{tensor.dtype} params {list(shape)} are gathered along axis 0 of a static shape "
            f"of rank 2 or more, without batch dims (axis {axis}, batch_dims {batch_dims})"
        )
    _check_indices(indices, shape[0], "gather index")
    per_index = math.prod(shape[1:-1])  # rows of the [rows, C] view under one index
    rows = indices[..., None].astype(np.int64) * per_index + np.arange(per_index)
    values = dequantize_rows(tensor.dtype, raw, shape, rows)
    return values.reshape(*indices.shape, *shape[1:])


@kernel("GATHER_ND")
def gather_nd(op, args, ctx):
    """``params[indices[..., 0], ..., indices[..., k-1]]`` for the last axis of ``indices``."""
    params, indices = args[0], np.asarray(args[1])
    depth = indices.shape[-1]
    if depth > params.ndim:
        raise ValueError(f"index depth {depth} exceeds the params rank {params.ndim}")
    _check_indices(indices, np.array(params.shape[:depth]), "gather_nd index")
    return np.asarray(params[tuple(np.moveaxis(indices, -1, 0))])


@kernel("SCATTER_ND")
def scatter_nd(op, args, ctx):
    """Zeros of ``shape`` with ``updates`` added at ``indices`` (duplicates accumulate)."""
    indices, updates, shape = np.asarray(args[0]), args[1], int_list(args[2])
    depth = indices.shape[-1]
    if depth > len(shape):
        raise ValueError(f"index depth {depth} exceeds the output rank {len(shape)}")
    expected = indices.shape[:-1] + tuple(shape[depth:])
    if updates.shape != expected:
        raise ValueError(f"updates have shape {list(updates.shape)}, expected {list(expected)}")
    _check_indices(indices, np.array(shape[:depth]), "scatter_nd index")
    out = np.zeros(shape, dtype=updates.dtype)
    np.add.at(out, tuple(np.moveaxis(indices, -1, 0)), updates)
    return out


@kernel("ONE_HOT")
def one_hot(op, args, ctx):
    """Inputs (indices, depth, on_value, off_value); indices outside [0, depth) give all off."""
    indices, on, off = np.asarray(args[0]), args[2], args[3]
    depth = scalar_int(args[1], "depth")
    if depth < 0:
        raise ValueError(f"depth {depth} must not be negative")
    axis = axis_index(getattr(op.options, "axis", -1), indices.ndim + 1)
    hot = indices[..., None] == np.arange(depth)
    return np.moveaxis(np.where(hot, on.reshape(()), off.reshape(())), -1, axis)


def _arg_reduce(op, args, fn):
    x = args[0]
    axis = axis_index(scalar_int(args[1], "the axis"), x.ndim)
    return np.asarray(fn(x, axis=axis)).astype(
        _INDEX_DTYPES.get(getattr(op.options, "outputType", 4), np.int64)
    )


@kernel("ARG_MAX")
def arg_max(op, args, ctx):
    """Index of the first largest element along the axis; ``outputType`` INT32 or INT64."""
    return _arg_reduce(op, args, np.argmax)


@kernel("ARG_MIN")
def arg_min(op, args, ctx):
    """Index of the first smallest element along the axis; ``outputType`` INT32 or INT64."""
    return _arg_reduce(op, args, np.argmin)


@kernel("TOPK_V2")
def topk_v2(op, args, ctx):
    """The ``k`` largest values of the last axis, largest first, ties by lower index."""
    x = args[0]
    k = scalar_int(args[1], "k")
    n = x.shape[-1] if x.ndim else 0
    if not 0 <= k <= n:
        raise ValueError(f"k {k} must lie in [0, {n}]")
    # A stable ascending sort of the reversed row, read backwards: descending values with
    # equal values in increasing index order, for every dtype (no negation overflow).
    order = (n - 1 - np.argsort(x[..., ::-1], axis=-1, kind="stable"))[..., ::-1][..., :k]
    return [np.take_along_axis(x, order, axis=-1), order.astype(np.int32)]


@kernel("WHERE")
def where(op, args, ctx):
    """Coordinates (int64, one row per element) of the non-zero elements, in row-major order."""
    return np.argwhere(args[0]).astype(np.int64)


@kernel("CUMSUM")
def cumsum(op, args, ctx):
    """Running sum along the axis (accumulated in the input dtype, in order); ``exclusive``
    starts from zero, ``reverse`` runs from the end."""
    x = args[0]
    axis = axis_index(scalar_int(args[1], "the axis"), x.ndim)
    exclusive = bool(getattr(op.options, "exclusive", False))
    reverse = bool(getattr(op.options, "reverse", False))
    data = np.flip(x, axis) if reverse else x
    out = np.cumsum(data, axis=axis, dtype=x.dtype)
    if exclusive and out.size:
        out = np.roll(out, 1, axis=axis)
        out[(slice(None),) * axis + (0,)] = 0
    return np.flip(out, axis) if reverse else out


@kernel("SPARSE_TO_DENSE")
def sparse_to_dense(op, args, ctx):
    """Inputs (indices, output_shape, values, default_value).

    ``indices`` is a scalar or a vector (positions in a 1-D output) or a matrix with one
    coordinate row per value; ``values`` a scalar (shared) or one per index.
    """
    indices, shape, values, default = np.asarray(args[0]), int_list(args[1]), args[2], args[3]
    if indices.ndim > 2:
        raise ValueError(f"indices must be of rank 0, 1 or 2, got {indices.ndim}")
    coords = indices.reshape(-1, 1) if indices.ndim < 2 else indices
    if coords.shape[1] != len(shape):
        raise ValueError(f"indices of depth {coords.shape[1]} for a rank-{len(shape)} output")
    if values.size != 1 and values.size != coords.shape[0]:
        raise ValueError(f"{values.size} values for {coords.shape[0]} indices")
    _check_indices(coords, np.array(shape), "sparse_to_dense index")
    out = np.full(shape, np.asarray(default).reshape(()), dtype=values.dtype)
    out[tuple(coords.T)] = values.reshape(-1)
    return out
