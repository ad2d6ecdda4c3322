"""Comparisons (bool results, broadcasting), logical operators and SELECT/SELECT_V2."""

from __future__ import annotations

import numpy as np

from .binary import value_kernel


@value_kernel("EQUAL")
def equal(op, args, ctx):
    return np.equal(args[0], args[1])


@value_kernel("NOT_EQUAL")
def not_equal(op, args, ctx):
    return np.not_equal(args[0], args[1])


@value_kernel("LESS")
def less(op, args, ctx):
    return np.less(args[0], args[1])


@value_kernel("LESS_EQUAL")
def less_equal(op, args, ctx):
    return np.less_equal(args[0], args[1])


@value_kernel("GREATER")
def greater(op, args, ctx):
    return np.greater(args[0], args[1])


@value_kernel("GREATER_EQUAL")
def greater_equal(op, args, ctx):
    return np.greater_equal(args[0], args[1])


@value_kernel("LOGICAL_AND", accepts_quantized=True)
def logical_and(op, args, ctx):
    return np.logical_and(args[0], args[1])


@value_kernel("LOGICAL_OR", accepts_quantized=True)
def logical_or(op, args, ctx):
    return np.logical_or(args[0], args[1])


@value_kernel("LOGICAL_NOT", accepts_quantized=True)
def logical_not(op, args, ctx):
    return np.logical_not(args[0])


@value_kernel("SELECT", accepts_quantized=True)
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


@value_kernel("SELECT_V2", accepts_quantized=True)
def select_v2(op, args, ctx):
    """``where(condition, x, y)`` with all three broadcast together."""
    return np.where(args[0], args[1], args[2])
