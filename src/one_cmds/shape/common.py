"""Helpers shared by the rules: broadcasting, merging, axes, window sizes, operand values."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from ..ir import Operator, Shape
from .context import RuleContext
from .partial import PartialValue
from .registry import Output, ShapeError

Dim = int | None

# Padding enum of the schema.
SAME, VALID = 0, 1


def option(op: Operator, name: str, default: Any) -> Any:
    """Field ``name`` of the operator's options, ``default`` when absent."""
    value = getattr(op.options, name, None)
    return default if value is None else value


def unknown(rank: int) -> Shape:
    return (None,) * rank


def product(dims: Iterable[Dim]) -> Dim:
    """The product of the dims; None when one is unknown."""
    n = 1
    for d in dims:
        if d is None:
            return None
        n *= d
    return n


def times(d: Dim, by: Dim) -> Dim:
    return None if d is None or by is None else d * by


def divide(d: Dim, by: Dim, what: str) -> Dim:
    """``d / by`` for a dim that must be a multiple of ``by``; unknown stays unknown."""
    if d is None or by is None:
        return None
    if by == 0 or d % by:
        raise ShapeError(f"{what} {d} is not a multiple of {by}")
    return d // by


def _broadcast_dim(a: Dim, b: Dim) -> Dim:
    """The broadcast table of resize.md §9.1 (1 = size one, N = size > 1, None = unknown)."""
    if a == 1 or a == b:
        return b
    if b == 1 or b is None:
        return a
    if a is None:
        return b
    raise ShapeError("Cannot produce expand_dimension of two shapes")


def broadcast(*shapes: Shape) -> Shape:
    """Shapes aligned from the right, a missing leading dimension counting as 1."""
    rank = max(len(s) for s in shapes)
    out: list[Dim] = [1] * rank
    for s in shapes:
        for d, dim in enumerate(s, rank - len(s)):
            out[d] = _broadcast_dim(out[d], dim)
    return tuple(out)


def merge(shapes: Sequence[Shape], what: str) -> Shape:
    """Shapes that must be equal: each dim known in any of them; known dims must agree."""
    rank = len(shapes[0])
    if any(len(s) != rank for s in shapes):
        raise ShapeError(f"{what} have different ranks: {', '.join(map(fmt, shapes))}")
    out: list[Dim] = []
    for d in range(rank):
        known = {s[d] for s in shapes if s[d] is not None}
        if len(known) > 1:
            raise ShapeError(f"{what} differ in dimension {d}: {', '.join(map(fmt, shapes))}")
        out.append(known.pop() if known else None)
    return tuple(out)


def join(a: Shape, b: Shape, what: str) -> Shape:
    """The least specific of two shapes of one rank: dims that differ become unknown."""
    if len(a) != len(b):
        raise ShapeError(f"{what} has rank {len(a)} and rank {len(b)}")
    return tuple(x if x == y else None for x, y in zip(a, b, strict=True))


def fmt(shape: Shape) -> str:
    return "[" + ", ".join("-1" if d is None else str(d) for d in shape) + "]"


def normalize_axis(axis: int, rank: int) -> int:
    """``axis`` in ``[-rank, rank)`` made non-negative."""
    if not -rank <= axis < rank:
        raise ShapeError(f"axis {axis} is out of range for rank {rank}")
    return axis + rank if axis < 0 else axis


def require_rank(ctx: RuleContext, i: int, *ranks: int) -> Shape:
    """Input ``i``'s shape, checked to have one of ``ranks``."""
    shape = ctx.shape(i)
    if shape is None:
        raise ShapeError(f"input {i} is missing")
    if len(shape) not in ranks:
        which = "input" if i == 0 else f"input {i}"
        expected = " or ".join(map(str, ranks))
        raise ShapeError(f"{which} rank {len(shape)}, expected {expected}")
    return shape


def int_list(value: np.ndarray | None) -> list[int] | None:
    """A known integer operand's elements, flattened; None when unknown."""
    return None if value is None else [int(v) for v in np.asarray(value).reshape(-1)]


def scalar_int(value: np.ndarray | None) -> int | None:
    """A known operand holding one integer (a scalar or a one-element vector)."""
    values = int_list(value)
    if values is None:
        return None
    if len(values) != 1:
        raise ShapeError(f"expected one value, got {len(values)}")
    return values[0]


def per_dim_values(ctx: RuleContext, i: int, per: int = 1) -> list[int] | None:
    """Input ``i``'s known value, checked to hold ``per`` entries per dimension of input 0."""
    values = int_list(ctx.value(i))
    rank = len(ctx.shape(0))  # type: ignore[arg-type]
    if values is not None and len(values) != per * rank:
        raise ShapeError(f"input {i} has {len(values)} values for rank {rank}")
    return values


def known_entries(ctx: RuleContext, i: int) -> list[int | None] | None:
    """Input ``i``'s elements, flattened, None for one of unknown value (a value known in
    part, see values.py); None when no element is known."""
    known = ctx.known(i)
    return known.entries() if isinstance(known, PartialValue) else int_list(known)


def shape_operand(ctx: RuleContext, i: int) -> Shape:
    """Input ``i`` read as a shape: its elements where known (-1 = unknown), else all
    unknown."""
    values = known_entries(ctx, i)
    if values is not None:
        return tuple(None if v == -1 else v for v in values)
    length = require_rank(ctx, i, 0, 1)
    if length == ():
        return ()
    if length[0] is None:
        raise ShapeError(f"input {i} is a shape of unknown length")
    return unknown(length[0])


def window_output(size: Dim, window: Dim, stride: int, dilation: int, padding: int) -> Dim:
    """Output size of a convolution or pooling window along one axis (TFLite semantics)."""
    if stride <= 0 or dilation <= 0:
        raise ShapeError(f"stride {stride} and dilation {dilation} must be positive")
    if size is None:
        return None
    if padding == SAME:
        return (size + stride - 1) // stride
    if padding != VALID:
        raise ShapeError(f"unknown padding {padding}")
    if window is None:
        return None
    extent = (window - 1) * dilation + 1
    span = size + stride - extent
    out = span // stride if span >= 0 else -(-span // stride)  # C division (truncating)
    if out < 0:
        raise ShapeError(f"window {extent} is larger than the input size {size} (VALID padding)")
    return out


def same_as_input(ctx: RuleContext) -> list[Output]:
    """One output with input 0's shape and dtype."""
    return [(ctx.shape(0), ctx.dtype(0))]  # type: ignore[list-item]
