"""Element-wise binary arithmetic with broadcasting and fused activations.

Integer tensors follow LiteRT's integer semantics (DIV truncates, FLOOR_DIV and FLOOR_MOD
floor, a zero divisor is an error).
"""

from __future__ import annotations

import numpy as np

from ..activation import activation_of, fused
from ..registry import kernel


def _nonzero_divisor(divisor: np.ndarray) -> None:
    if np.any(divisor == 0):
        raise ZeroDivisionError("division by zero")


@kernel("ADD", real_valued=True)
def add(op, args, ctx):
    return fused(np.add(args[0], args[1]), activation_of(op))


@kernel("SUB", real_valued=True)
def sub(op, args, ctx):
    return fused(np.subtract(args[0], args[1]), activation_of(op))


@kernel("MUL", real_valued=True)
def mul(op, args, ctx):
    return fused(np.multiply(args[0], args[1]), activation_of(op))


@kernel("DIV", real_valued=True)
def div(op, args, ctx):
    """Float division; integer division truncates toward zero (C semantics)."""
    a, b = args
    if np.issubdtype(b.dtype, np.integer):
        _nonzero_divisor(b)
        quotient = (a - np.fmod(a, b)) // b  # exact: a - fmod(a, b) is a multiple of b
    else:
        quotient = np.divide(a, b)
    return fused(quotient, activation_of(op))


@kernel("FLOOR_DIV", real_valued=True)
def floor_div(op, args, ctx):
    """floor(a / b); LiteRT refuses a zero divisor for floats too."""
    a, b = args
    _nonzero_divisor(b)
    if np.issubdtype(b.dtype, np.integer):
        return np.floor_divide(a, b)
    return np.floor(np.divide(a, b))


@kernel("FLOOR_MOD", real_valued=True)
def floor_mod(op, args, ctx):
    """The remainder with the divisor's sign: fmod, moved by one divisor when signs differ."""
    a, b = args
    if np.issubdtype(b.dtype, np.integer):
        _nonzero_divisor(b)
    rem = np.fmod(a, b)
    return np.where((rem != 0) & ((rem < 0) != (b < 0)), rem + b, rem)


@kernel("POW", real_valued=True)
def pow_(op, args, ctx):
    """Float pow; integer pow as LiteRT: a double pow converted back, INT_MIN on overflow."""
    a, b = args
    if not np.issubdtype(a.dtype, np.integer):
        return np.power(a, b)
    if np.any(b < 0):
        raise ValueError("integer POW does not support negative exponents")
    info = np.iinfo(a.dtype)
    result = np.power(a.astype(np.float64), b.astype(np.float64))
    in_range = (result >= info.min) & (result <= info.max)
    return np.where(in_range, result, info.min).astype(a.dtype)


@kernel("SQUARED_DIFFERENCE", real_valued=True)
def squared_difference(op, args, ctx):
    diff = np.subtract(args[0], args[1])
    return diff * diff


@kernel("MAXIMUM", real_valued=True)
def maximum(op, args, ctx):
    """``a > b ? a : b`` as LiteRT (a NaN in ``a`` gives ``b``)."""
    a, b = args
    return np.where(a > b, a, b)


@kernel("MINIMUM", real_valued=True)
def minimum(op, args, ctx):
    """``a < b ? a : b`` as LiteRT (a NaN in ``a`` gives ``b``)."""
    a, b = args
    return np.where(a < b, a, b)


@kernel("ADD_N", real_valued=True)
def add_n(op, args, ctx):
    """Sum of all inputs (same shapes), added in input order."""
    total = np.add(args[0], args[1])
    for a in args[2:]:
        np.add(total, a, out=total)
    return total
