"""Comparisons (bool results, broadcasting), logical operators and SELECT/SELECT_V2."""

from __future__ import annotations

import numpy as np

from ..registry import kernel


def _comparison(ufunc: np.ufunc):
    """The kernel of a broadcasting comparison computed by ``ufunc``."""

    def compare(op, args, ctx):
        return ufunc(args[0], args[1])

    compare.__name__ = ufunc.__name__
    return compare


COMPARISONS: dict[str, np.ufunc] = {
    "EQUAL": np.equal,
    "NOT_EQUAL": np.not_equal,
    "LESS": np.less,
    "LESS_EQUAL": np.less_equal,
    "GREATER": np.greater,
    "GREATER_EQUAL": np.greater_equal,
}
for _opcode, _ufunc in COMPARISONS.items():
    kernel(_opcode, real_valued=True)(_comparison(_ufunc))


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
