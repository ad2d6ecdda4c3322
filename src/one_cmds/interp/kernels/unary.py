"""Element-wise unary math."""

from __future__ import annotations

import numpy as np

from .binary import value_kernel


@value_kernel("EXP")
def exp(op, args, ctx):
    return np.exp(args[0])


@value_kernel("LOG")
def log(op, args, ctx):
    return np.log(args[0])


@value_kernel("SQRT")
def sqrt(op, args, ctx):
    return np.sqrt(args[0])


@value_kernel("RSQRT")
def rsqrt(op, args, ctx):
    return 1 / np.sqrt(args[0])


@value_kernel("SQUARE")
def square(op, args, ctx):
    return np.square(args[0])


@value_kernel("ABS")
def abs_(op, args, ctx):
    return np.abs(args[0])


@value_kernel("NEG")
def neg(op, args, ctx):
    return np.negative(args[0])


@value_kernel("FLOOR")
def floor(op, args, ctx):
    return np.floor(args[0])


@value_kernel("CEIL")
def ceil(op, args, ctx):
    return np.ceil(args[0])


@value_kernel("ROUND")
def round_(op, args, ctx):
    """Round half to even, as LiteRT."""
    return np.rint(args[0])


@value_kernel("SIN")
def sin(op, args, ctx):
    return np.sin(args[0])


@value_kernel("COS")
def cos(op, args, ctx):
    return np.cos(args[0])


@value_kernel("SIGN")
def sign(op, args, ctx):
    return np.sign(args[0])
