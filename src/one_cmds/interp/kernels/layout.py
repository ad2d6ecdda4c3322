"""Data movement without arithmetic: reshapes, transposes, joins, splits, tiles, reversals.

Also home of the axis helpers the other shape-manipulating kernel families share.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from ..activation import activation_of, fused
from ..registry import kernel


def axis_index(axis: int, rank: int) -> int:
    """``axis`` (negative counts from the end) as an index in ``[0, rank)``."""
    if not -rank <= axis < rank:
        raise ValueError(f"axis {axis} is out of range for rank {rank}")
    return axis + rank if axis < 0 else axis


def axes_of(values: Iterable[int] | np.ndarray, rank: int) -> tuple[int, ...]:
    """Axes from a scalar or a list, made non-negative, duplicates removed, in first-seen order."""
    axes = [axis_index(int(a), rank) for a in np.ravel(values)]
    return tuple(dict.fromkeys(axes))


def scalar_int(value: np.ndarray, what: str) -> int:
    """The single integer of a scalar or one-element tensor (an axis, a count)."""
    arr = np.asarray(value)
    if arr.size != 1:
        raise ValueError(f"{what} must hold one value, got shape {list(arr.shape)}")
    return int(arr.reshape(()))


def int_list(value: np.ndarray) -> list[int]:
    """The integers of a 0-D or 1-D shape-like tensor, as Python ints."""
    return [int(v) for v in np.ravel(value)]


@kernel("RESHAPE")
def reshape(op, args, ctx):
    """Target shape: the int32 vector input when present, else ``newShape`` of the options.

    One dimension may be -1; a legacy ``newShape`` of ``[0]`` means a scalar.
    """
    x = args[0]
    shape_arg = args[1] if len(args) > 1 else None
    if shape_arg is not None and np.ndim(shape_arg) == 1:
        shape = int_list(shape_arg)
    else:
        new_shape = getattr(op.options, "newShape", None)
        if new_shape is None:
            raise ValueError("no target shape: neither a shape input nor newShape")
        shape = [int(d) for d in new_shape]
        if shape == [0]:
            shape = []
    if shape.count(-1) > 1:
        raise ValueError(f"target shape {shape} has more than one -1")
    if -1 in shape:
        known = int(np.prod([d for d in shape if d != -1], dtype=np.int64))
        if known == 0 or x.size % known:
            raise ValueError(f"cannot reshape {list(x.shape)} into {shape}")
        shape[shape.index(-1)] = x.size // known
    if int(np.prod(shape, dtype=np.int64)) != x.size:
        raise ValueError(f"cannot reshape {list(x.shape)} into {shape}")
    return x.reshape(shape)


@kernel("TRANSPOSE")
def transpose(op, args, ctx):
    x, perm = args[0], int_list(args[1])
    if sorted(perm) != list(range(x.ndim)):
        raise ValueError(f"permutation {perm} is not a permutation of the {x.ndim} axes")
    return np.transpose(x, perm)


@kernel("SQUEEZE")
def squeeze(op, args, ctx):
    """Drop the listed size-1 axes (``squeezeDims``), or every size-1 axis when none is listed."""
    x = args[0]
    dims = getattr(op.options, "squeezeDims", None)
    if dims is None or len(dims) == 0:
        return x.reshape([d for d in x.shape if d != 1])
    return np.squeeze(x, axis=axes_of(dims, x.ndim))


@kernel("EXPAND_DIMS")
def expand_dims(op, args, ctx):
    x = args[0]
    axis = scalar_int(args[1], "the axis")
    return np.expand_dims(x, axis_index(axis, x.ndim + 1))


@kernel("CONCATENATION")
def concatenation(op, args, ctx):
    axis = axis_index(getattr(op.options, "axis", 0), args[0].ndim)
    return fused(np.concatenate(args, axis=axis), activation_of(op))


@kernel("PACK")
def pack(op, args, ctx):
    return np.stack(args, axis=axis_index(getattr(op.options, "axis", 0), args[0].ndim + 1))


@kernel("UNPACK")
def unpack(op, args, ctx):
    x = args[0]
    return list(np.moveaxis(x, axis_index(getattr(op.options, "axis", 0), x.ndim), 0))


@kernel("SPLIT")
def split(op, args, ctx):
    """Inputs (axis, value): ``numSplits`` equal parts."""
    x = args[1]
    axis = axis_index(scalar_int(args[0], "the axis"), x.ndim)
    count = len(op.outputs)
    if x.shape[axis] % count:
        raise ValueError(f"dimension {x.shape[axis]} does not split into {count} equal parts")
    return np.split(x, count, axis=axis)


@kernel("SPLIT_V")
def split_v(op, args, ctx):
    """Inputs (value, size_splits, axis); one size may be -1 (the rest of the dimension)."""
    x = args[0]
    sizes = int_list(args[1])
    axis = axis_index(scalar_int(args[2], "the axis"), x.ndim)
    if sizes.count(-1) > 1:
        raise ValueError(f"size_splits {sizes} has more than one -1")
    if -1 in sizes:
        sizes[sizes.index(-1)] = x.shape[axis] - (sum(sizes) + 1)
    if sum(sizes) != x.shape[axis] or min(sizes, default=0) < 0:
        raise ValueError(f"size_splits {sizes} do not add up to dimension {x.shape[axis]}")
    return np.split(x, np.cumsum(sizes)[:-1], axis=axis)


@kernel("TILE")
def tile(op, args, ctx):
    x, multiples = args[0], int_list(args[1])
    if len(multiples) != x.ndim:
        raise ValueError(f"{len(multiples)} multiples for a rank-{x.ndim} input")
    return np.tile(x, multiples)


@kernel("BROADCAST_TO")
def broadcast_to(op, args, ctx):
    return np.broadcast_to(args[0], int_list(args[1])).copy()


@kernel("REVERSE_V2")
def reverse_v2(op, args, ctx):
    x = args[0]
    return np.flip(x, axis=axes_of(args[1], x.ndim))
