"""Reductions over a list of axes: MEAN, SUM, REDUCE_MAX/MIN/PROD/ANY.

The second input lists the axes (a scalar or a vector; negative and repeated axes allowed,
an empty list reduces nothing); ``keepDims`` of the ReducerOptions keeps them as size 1.
"""

from __future__ import annotations

import numpy as np

from ..registry import kernel
from .layout import axes_of


def _reduce(op, args, fn, **kwargs) -> np.ndarray:
    x = args[0]
    axes = axes_of(args[1], x.ndim)
    keep = bool(getattr(op.options, "keepDims", False))
    return np.asarray(fn(x, axis=axes, keepdims=keep, **kwargs))


def _float_sum(op, args) -> tuple[np.ndarray, int]:
    """(sum, element count per sum) of a float reduction, accumulated in the input precision
    one element after the other, in row-major order of the reduced axes, as LiteRT's builtin
    kernel does (``add.accumulate`` is sequential where ``add.reduce`` may sum pairwise)."""
    x = args[0]
    axes = sorted(axes_of(args[1], x.ndim))
    kept = [a for a in range(x.ndim) if a not in axes]
    count = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    size = int(np.prod([x.shape[a] for a in kept], dtype=np.int64))
    rows = np.ascontiguousarray(np.transpose(x, kept + axes).reshape(size, count))
    if count:
        total = np.add.accumulate(rows, axis=1, dtype=x.dtype)[:, -1]
    else:
        total = np.zeros(size, x.dtype)
    keep = bool(getattr(op.options, "keepDims", False))
    shape = (
        [1 if a in axes else d for a, d in enumerate(x.shape)]
        if keep
        else [x.shape[a] for a in kept]
    )
    return total.reshape(shape), count


@kernel("MEAN", real_valued=True)
def mean(op, args, ctx):
    """Float: the float sum (see ``_float_sum``) divided by the count. Integer: the exact sum
    divided by the count, truncated toward zero."""
    x = args[0]
    if np.issubdtype(x.dtype, np.floating):
        total, count = _float_sum(op, args)
        return np.asarray(total / x.dtype.type(count))
    count = int(np.prod([x.shape[a] for a in axes_of(args[1], x.ndim)], dtype=np.int64))
    if count == 0:
        raise ValueError("integer mean over an empty axis")
    total = _reduce(op, args, np.sum, dtype=np.int64)
    return np.asarray(np.sign(total) * (np.abs(total) // count)).astype(x.dtype)


@kernel("SUM", real_valued=True)
def sum_(op, args, ctx):
    x = args[0]
    if np.issubdtype(x.dtype, np.floating):
        return _float_sum(op, args)[0]
    return _reduce(op, args, np.sum, dtype=x.dtype)


@kernel("REDUCE_PROD", real_valued=True)
def reduce_prod(op, args, ctx):
    return _reduce(op, args, np.prod, dtype=args[0].dtype)


def _max_or_min(op, args, largest: bool) -> np.ndarray:
    """REDUCE_MAX / REDUCE_MIN, starting from LiteRT's initial value (the type's lowest or
    highest) so that an empty axis gives it; on booleans, any / all."""
    x = args[0]
    if x.dtype == np.bool_:
        return _reduce(op, args, np.any if largest else np.all)
    info = np.finfo(x.dtype) if np.issubdtype(x.dtype, np.floating) else np.iinfo(x.dtype)
    if largest:
        return _reduce(op, args, np.max, initial=info.min)
    return _reduce(op, args, np.min, initial=info.max)


@kernel("REDUCE_MAX")
def reduce_max(op, args, ctx):
    return _max_or_min(op, args, largest=True)


@kernel("REDUCE_MIN")
def reduce_min(op, args, ctx):
    return _max_or_min(op, args, largest=False)


@kernel("REDUCE_ANY")
def reduce_any(op, args, ctx):
    return _reduce(op, args, np.any)
