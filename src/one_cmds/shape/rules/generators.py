"""Operators whose output shape comes from values: SHAPE, RANK, FILL, RANGE."""

from __future__ import annotations

import numpy as np

from ..common import shape_operand
from ..registry import ShapeError, rule


@rule("SHAPE")
def shape(op, ctx):
    """[rank]; its value is known when every input dim is (see values.py)."""
    return [((len(ctx.shape(0)),), ctx.output_dtype(0))]


@rule("RANK")
def rank(op, ctx):
    return [((), ctx.output_dtype(0))]


@rule("FILL")
def fill(op, ctx):
    """Inputs (dims, value): the shape is the value of input 0."""
    return [(shape_operand(ctx, 0), ctx.dtype(1))]


@rule("RANGE")
def range_(op, ctx):
    """Inputs (start, limit, delta) scalars; the element count as TFLite computes it."""
    values = [ctx.value(i) for i in range(3)]
    if any(v is None for v in values):
        return [((None,), ctx.dtype(0))]
    start, limit, delta = (np.asarray(v).reshape(()).item() for v in values)
    if delta == 0 or (start < limit and delta < 0) or (start > limit and delta > 0):
        raise ShapeError(f"range from {start} to {limit} by {delta} is invalid")
    if isinstance(start, int):
        return [(((abs(limit - start) + abs(delta) - 1) // abs(delta),), ctx.dtype(0))]
    count = np.ceil(np.abs((np.float32(limit) - np.float32(start)) / np.float32(delta)))
    return [((int(count),), ctx.dtype(0))]
