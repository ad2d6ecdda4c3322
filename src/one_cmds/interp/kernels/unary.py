"""Element-wise unary math."""

from __future__ import annotations

import numpy as np

from ..registry import kernel


@kernel("EXP", real_valued=True)
def exp(op, args, ctx):
    return np.exp(args[0])


@kernel("LOG", real_valued=True)
def log(op, args, ctx):
    return np.log(args[0])


@kernel("SQRT", real_valued=True)
def sqrt(op, args, ctx):
    return np.sqrt(args[0])


@kernel("RSQRT", real_valued=True)
def rsqrt(op, args, ctx):
    return 1 / np.sqrt(args[0])


@kernel("SQUARE", real_valued=True)
def square(op, args, ctx):
    return np.square(args[0])


@kernel("ABS", real_valued=True)
def abs_(op, args, ctx):
    return np.abs(args[0])


@kernel("NEG", real_valued=True)
def neg(op, args, ctx):
    return np.negative(args[0])


@kernel("FLOOR", real_valued=True)
def floor(op, args, ctx):
    return np.floor(args[0])


@kernel("CEIL", real_valued=True)
def ceil(op, args, ctx):
    return np.ceil(args[0])


@kernel("ROUND", real_valued=True)
def round_(op, args, ctx):
    """Round half to even, as LiteRT."""
    return np.rint(args[0])


@kernel("SIN", real_valued=True)
def sin(op, args, ctx):
    return np.sin(args[0])


@kernel("COS", real_valued=True)
def cos(op, args, ctx):
    return np.cos(args[0])


@kernel("SIGN", real_valued=True)
def sign(op, args, ctx):
    return np.sign(args[0])
