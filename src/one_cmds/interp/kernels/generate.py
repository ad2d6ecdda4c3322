"""Tensors made from shapes and scalars: SHAPE, RANK, FILL, ZEROS_LIKE, RANGE."""

from __future__ import annotations

import numpy as np

from ..registry import kernel
from .layout import int_list

_SHAPE_DTYPES = {2: np.int32, 4: np.int64}  # TensorType INT32, INT64


@kernel("SHAPE")
def shape(op, args, ctx):
    """The input's shape as a vector of ``outType`` (INT32 unless INT64 is asked for)."""
    dtype = _SHAPE_DTYPES.get(getattr(op.options, "outType", 2), np.int32)
    return np.array(args[0].shape, dtype=dtype)


@kernel("RANK")
def rank(op, args, ctx):
    return np.array(args[0].ndim, dtype=np.int32)


@kernel("FILL")
def fill(op, args, ctx):
    """Inputs (dims, value): ``value`` (a scalar) repeated over the shape ``dims``."""
    dims, value = int_list(args[0]), np.asarray(args[1])
    if value.size != 1:
        raise ValueError("the fill value must be a scalar")
    if min(dims, default=0) < 0:
        raise ValueError(f"negative dimension in {dims}")
    return np.full(dims, value.reshape(()), dtype=value.dtype)


@kernel("ZEROS_LIKE")
def zeros_like(op, args, ctx):
    return np.zeros_like(args[0])


@kernel("RANGE")
def range_(op, args, ctx):
    """Inputs (start, limit, delta). Elements are accumulated one delta at a time, as LiteRT
    does (so float ranges carry the same rounding)."""
    start, limit, delta = (np.asarray(a).reshape(()) for a in args[:3])
    if delta == 0:
        raise ValueError("delta must not be zero")
    if (start > limit and delta > 0) or (start < limit and delta < 0):
        raise ValueError(f"range from {start} to {limit} never ends with delta {delta}")
    dtype = start.dtype
    if np.issubdtype(dtype, np.floating):
        count = int(np.ceil(np.abs((limit - start) / delta)))
    else:
        count = int((abs(int(limit) - int(start)) + abs(int(delta)) - 1) // abs(int(delta)))
    steps = np.full(count, delta, dtype=dtype)
    if count:
        steps[0] = start
    return np.cumsum(steps, dtype=dtype)
