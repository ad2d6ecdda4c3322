"""Element-wise binary arithmetic with broadcasting and fused activations.

Integer tensors follow LiteRT's integer semantics (DIV truncates, FLOOR_DIV and FLOOR_MOD
floor, a zero divisor is an error). :func:`value_kernel` registers the kernels of this module
and of its siblings (unary, activations, compare, convert, normalization).
"""

from __future__ import annotations

import functools

import numpy as np

from ...ir import Operator
from ..activation import activation_of, fused
from ..interpreter import InterpreterError
from ..registry import Kernel, kernel

_QUANTIZED_TYPES = frozenset({"INT8", "UINT8", "INT16"})


def value_kernel(*opcodes: str, accepts_quantized: bool = False):
    """Register a numpy kernel: it runs with numpy's floating-point warnings off (inf and NaN
    results are the IEEE results LiteRT gives too) and a numpy scalar it returns for 0-d
    operands becomes a 0-d array.

    Unless ``accepts_quantized``, the kernel computes on real values and refuses quantized
    integer tensors (their values mean ``scale * (q - zero_point)``).
    """

    def wrap(fn: Kernel) -> Kernel:
        @functools.wraps(fn)
        def run(op, args, ctx):
            if not accepts_quantized:
                _reject_quantized(op)
            with np.errstate(all="ignore"):
                result = fn(op, args, ctx)
            return np.asarray(result) if isinstance(result, np.generic) else result

        return kernel(*opcodes)(run)

    return wrap


def _reject_quantized(op: Operator) -> None:
    for t in (*op.inputs, *op.outputs):
        if (
            t is not None
            and t.dtype in _QUANTIZED_TYPES
            and t.quant is not None
            and t.quant.scale is not None
            and len(t.quant.scale)
        ):
            raise InterpreterError(
                f"{op.kind}: quantized {t.dtype} tensor {t.name!r} is not supported "
                "(this kernel computes on real values)"
            )


def _nonzero_divisor(divisor: np.ndarray) -> None:
    if np.any(divisor == 0):
        raise ZeroDivisionError("division by zero")


@value_kernel("ADD")
def add(op, args, ctx):
    return fused(np.add(args[0], args[1]), activation_of(op))


@value_kernel("SUB")
def sub(op, args, ctx):
    return fused(np.subtract(args[0], args[1]), activation_of(op))


@value_kernel("MUL")
def mul(op, args, ctx):
    return fused(np.multiply(args[0], args[1]), activation_of(op))


@value_kernel("DIV")
def div(op, args, ctx):
    """Float division; integer division truncates toward zero (C semantics)."""
    a, b = args
    if np.issubdtype(b.dtype, np.integer):
        _nonzero_divisor(b)
        quotient = (a - np.fmod(a, b)) // b  # exact: a - fmod(a, b) is a multiple of b
    else:
        quotient = np.divide(a, b)
    return fused(quotient, activation_of(op))


@value_kernel("FLOOR_DIV")
def floor_div(op, args, ctx):
    """floor(a / b); LiteRT refuses a zero divisor for floats too."""
    a, b = args
    _nonzero_divisor(b)
    if np.issubdtype(b.dtype, np.integer):
        return np.floor_divide(a, b)
    return np.floor(np.divide(a, b))


@value_kernel("FLOOR_MOD")
def floor_mod(op, args, ctx):
    """The remainder with the divisor's sign: fmod, moved by one divisor when signs differ."""
    a, b = args
    if np.issubdtype(b.dtype, np.integer):
        _nonzero_divisor(b)
    rem = np.fmod(a, b)
    return np.where((rem != 0) & ((rem < 0) != (b < 0)), rem + b, rem)


@value_kernel("POW")
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


@value_kernel("SQUARED_DIFFERENCE")
def squared_difference(op, args, ctx):
    diff = np.subtract(args[0], args[1])
    return diff * diff


@value_kernel("MAXIMUM")
def maximum(op, args, ctx):
    """``a > b ? a : b`` as LiteRT (a NaN in ``a`` gives ``b``)."""
    a, b = args
    return np.where(a > b, a, b)


@value_kernel("MINIMUM")
def minimum(op, args, ctx):
    """``a < b ? a : b`` as LiteRT (a NaN in ``a`` gives ``b``)."""
    a, b = args
    return np.where(a < b, a, b)


@value_kernel("ADD_N")
def add_n(op, args, ctx):
    """Sum of all inputs (same shapes), added in input order."""
    total = np.add(args[0], args[1])
    for a in args[2:]:
        np.add(total, a, out=total)
    return total
