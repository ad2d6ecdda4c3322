"""Reductions over axes."""

from __future__ import annotations

from ..common import int_list, normalize_axis, option, require_rank, scalar_int, unknown
from ..registry import ShapeError, rule


@rule("MEAN", "SUM", "REDUCE_MAX", "REDUCE_MIN", "REDUCE_PROD", "REDUCE_ANY")
def reduction(op, ctx):
    """Input 1 lists the axes (repeats allowed); they are removed, or set to 1 with
    ``keep_dims``. Unknown axes: all dims unknown, rank less the number of axes."""
    x = ctx.shape(0)
    keep = option(op, "keepDims", False)
    axes = int_list(ctx.value(1))
    if axes is None:
        if keep:
            return [(unknown(len(x)), ctx.dtype(0))]
        count = require_rank(ctx, 1, 0, 1)
        if count and count[0] is None:
            raise ShapeError("reduction axes of unknown count")
        return [(unknown(len(x) - (count[0] if count else 1)), ctx.dtype(0))]
    reduced = {normalize_axis(a, len(x)) for a in axes}
    if keep:
        return [(tuple(1 if a in reduced else d for a, d in enumerate(x)), ctx.dtype(0))]
    return [(tuple(d for a, d in enumerate(x) if a not in reduced), ctx.dtype(0))]


@rule("ARG_MAX", "ARG_MIN")
def arg_reduction(op, ctx):
    """Input 1 is the axis, removed from the output; the index type is an attribute."""
    x = ctx.shape(0)
    axis = scalar_int(ctx.value(1))
    if axis is None:
        return [(unknown(len(x) - 1), ctx.output_dtype(0))]
    axis = normalize_axis(axis, len(x))
    return [(x[:axis] + x[axis + 1 :], ctx.output_dtype(0))]
