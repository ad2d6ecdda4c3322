"""Comparisons (bool results, broadcasting), logical operators and SELECT/SELECT_V2."""

from __future__ import annotations

import numpy as np

from ..registry import kernel


@kernel("EQUAL", real_valued=True)
def equal(op, args, ctx):
    return np.equal(args[0], args[1])


@kernel("NOT_EQUAL", real_valued=True)
def not_equal(op, args, ctx):
    return np.not_equal(args[0], args[1])


@kernel("LESS", real_valued=True)
def less(op, args, ctx):
    return np.less(args[0], args[1])


@kernel("LESS_EQUAL", real_valued=True)
def less_equal(op, args, ctx):
    return np.less_equal(args[0], args[1])


@kernel("GREATER", real_valued=True)
def greater(op, args, ctx):
    return np.greater(args[0], args[1])


@kernel("GREATER_EQUAL", real_valued=True)
def greater_equal(op, args, ctx):
    return np.greater_equal(args[0], args[1])


@kernel("LOGICAL_AND")
def logical_and(op, args, ctx):
    return np.logical_and(args[0], args[1])


@kernel("LOGICAL_OR")
def logical_or(op, args, ctx):
    return np.logical_or(args[0], args[1])


@kernel("LOGICAL_NOT")
def logical_not(op, args, ctx):
    return np.logical_not(args[0])


@kernel("SELECT")
def select(op, args, ctx):
    """TF1 select: ``x`` and ``y`` of one shape; the condition of that shape, a scalar, or a
    vector choosing whole slices along the first axis."""
    condition, x, y = args
    if x.shape != y.shape:
        raise ValueError(f"SELECT needs x and y of one shape, got {x.shape} and {y.shape}")
    if condition.ndim == 1 and x.ndim > 1 and condition.shape[0] == x.shape[0]:
        condition = condition.reshape(condition.shape + (1,) * (x.ndim - 1))
    elif condition.ndim != 0 and condition.shape != x.shape:
        raise ValueError(f"SELECT condition of shape {condition.shape} does not fit {x.shape}")
    return np.where(condition, x, y)


@kernel("SELECT_V2")
def select_v2(op, args, ctx):
    """``where(condition, x, y)`` with all three broadcast together."""
    return np.where(args[0], args[1], args[2])
