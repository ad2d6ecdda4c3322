"""Operators that rearrange elements: reshape, transpose, squeeze, concatenation, tiling, ..."""

from __future__ import annotations

from ..common import (
    broadcast,
    divide,
    fmt,
    int_list,
    known_entries,
    merge,
    normalize_axis,
    option,
    per_dim_values,
    product,
    require_rank,
    scalar_int,
    shape_operand,
    times,
    unknown,
)
from ..registry import ShapeError, rule


def _reshape_target(op, ctx):
    """The requested shape: input 1 when it is a vector (None for an element of unknown value,
    None for all when none is known), else the ``new_shape`` option (``[0]`` there means a
    scalar, as in TFLite)."""
    given = ctx.shape(1)
    if given is not None and len(given) == 1:
        return known_entries(ctx, 1)
    new_shape = option(op, "newShape", None)
    if new_shape is None:
        raise ShapeError("no target shape (no shape operand and no new_shape option)")
    values = [int(v) for v in new_shape]
    return [] if values == [0] else values


@rule("RESHAPE")
def reshape(op, ctx):
    """One -1 is resolved from the element count when the input is fully known."""
    x = ctx.shape(0)
    target = _reshape_target(op, ctx)
    if target is None:  # a shape operand of unknown value: its length, else the stored rank
        length = ctx.shape(1)[0]
        return [(unknown(len(ctx.output_shape(0)) if length is None else length), ctx.dtype(0))]
    if any(d is not None and d < -1 for d in target) or target.count(-1) > 1:
        raise ShapeError(f"invalid target shape {target}")
    out = [None if d == -1 else d for d in target]
    count = product(x)
    if count is not None and -1 in target and None not in target:
        known, fixed = count, product(d for d in target if d != -1)
        if fixed == 0:  # zero elements: -1 takes the ratio of the non-zero sizes (as TF)
            known, fixed = product(d for d in x if d), product(d for d in target if d > 0)
        if known % fixed:
            raise ShapeError(f"cannot reshape {fmt(x)} to {target}")
        out[target.index(-1)] = known // fixed
    if count is not None and product(out) not in (None, count):
        raise ShapeError(f"cannot reshape {fmt(x)} to {target}")
    return [(tuple(out), ctx.dtype(0))]


@rule("TRANSPOSE")
def transpose(op, ctx):
    x = ctx.shape(0)
    perm = per_dim_values(ctx, 1)
    if perm is None:
        return [(unknown(len(x)), ctx.dtype(0))]
    return [(tuple(x[normalize_axis(p, len(x))] for p in perm), ctx.dtype(0))]


@rule("SQUEEZE")
def squeeze(op, ctx):
    """Listed axes must be 1; no list removes every dim known to be 1."""
    x = ctx.shape(0)
    listed = option(op, "squeezeDims", None)
    axes = [] if listed is None else [int(a) for a in listed]  # an array: no truth value test
    if not axes:
        return [(tuple(d for d in x if d != 1), ctx.dtype(0))]
    removed = {normalize_axis(a, len(x)) for a in axes}
    for a in removed:
        if x[a] not in (1, None):
            raise ShapeError(f"cannot squeeze dimension {a} of size {x[a]}")
    return [(tuple(d for a, d in enumerate(x) if a not in removed), ctx.dtype(0))]


@rule("EXPAND_DIMS")
def expand_dims(op, ctx):
    x = ctx.shape(0)
    axis = scalar_int(ctx.value(1))
    if axis is None:
        return [(unknown(len(x) + 1), ctx.dtype(0))]
    axis = normalize_axis(axis, len(x) + 1)
    return [((*x[:axis], 1, *x[axis:]), ctx.dtype(0))]


@rule("CONCATENATION")
def concatenation(op, ctx):
    """The axis dim is the sum (unknown if any is); other dims must agree where known."""
    shapes = [ctx.shape(i) for i in range(ctx.num_inputs)]
    axis = normalize_axis(option(op, "axis", 0), len(shapes[0]))
    others = [s[:axis] + s[axis + 1 :] for s in shapes]
    rest = merge(others, "concatenated inputs")
    total = None if any(s[axis] is None for s in shapes) else sum(s[axis] for s in shapes)
    return [((*rest[:axis], total, *rest[axis:]), ctx.dtype(0))]


@rule("PACK")
def pack(op, ctx):
    """N inputs of one shape stacked along a new axis."""
    shapes = [ctx.shape(i) for i in range(ctx.num_inputs)]
    x = merge(shapes, "packed inputs")
    axis = normalize_axis(option(op, "axis", 0), len(x) + 1)
    return [((*x[:axis], len(shapes), *x[axis:]), ctx.dtype(0))]


@rule("UNPACK")
def unpack(op, ctx):
    x = ctx.shape(0)
    axis = normalize_axis(option(op, "axis", 0), len(x))
    if x[axis] is not None and x[axis] != len(op.outputs):
        raise ShapeError(f"dimension {axis} has size {x[axis]}, not {len(op.outputs)}")
    return [(x[:axis] + x[axis + 1 :], ctx.dtype(0))] * len(op.outputs)


@rule("TILE")
def tile(op, ctx):
    x = ctx.shape(0)
    multiples = per_dim_values(ctx, 1)
    if multiples is None:
        return [(unknown(len(x)), ctx.dtype(0))]
    out = tuple(0 if m == 0 else times(d, m) for d, m in zip(x, multiples, strict=True))
    return [(out, ctx.dtype(0))]


@rule("BROADCAST_TO")
def broadcast_to(op, ctx):
    """The input broadcast against the target shape (input 1)."""
    target = shape_operand(ctx, 1)
    if len(target) < len(ctx.shape(0)):
        raise ShapeError(f"cannot broadcast {fmt(ctx.shape(0))} to rank {len(target)}")
    return [(broadcast(ctx.shape(0), target), ctx.dtype(0))]


def _block_size(op):
    block = option(op, "blockSize", 0)
    if block < 1:
        raise ShapeError(f"block size {block} must be positive")
    return block


@rule("DEPTH_TO_SPACE")
def depth_to_space(op, ctx):
    n, h, w, c = require_rank(ctx, 0, 4)
    b = _block_size(op)
    return [((n, times(h, b), times(w, b), divide(c, b * b, "depth")), ctx.dtype(0))]


@rule("SPACE_TO_DEPTH")
def space_to_depth(op, ctx):
    n, h, w, c = require_rank(ctx, 0, 4)
    b = _block_size(op)
    out = (n, divide(h, b, "height"), divide(w, b, "width"), times(c, b * b))
    return [(out, ctx.dtype(0))]


def _block_operands(ctx):
    """(input shape, block per spatial dim, (before, after) per spatial dim) of the batch/space
    operators, None where a value is unknown."""
    x = ctx.shape(0)
    if len(x) < 2:
        raise ShapeError(f"input rank {len(x)}, expected at least 2")
    count = require_rank(ctx, 1, 1)[0]
    block = int_list(ctx.value(1))
    edges = int_list(ctx.value(2))
    if count is None:
        count = len(x) - 2
    block = block if block is not None else [None] * count
    pairs = [(None, None)] * count
    if edges is not None:
        pairs = [(edges[i], edges[i + 1]) for i in range(0, len(edges) - 1, 2)]
    if len(block) != count or len(pairs) != count or count > len(x) - 1:
        raise ShapeError(f"block shape of {count} entries does not match the operands")
    return x, block, pairs


@rule("BATCH_TO_SPACE_ND")
def batch_to_space_nd(op, ctx):
    """Batch divided by the block; spatial dims multiplied by it, minus the crops."""
    x, block, crops = _block_operands(ctx)
    spatial = [
        None if d is None or b is None or lo is None else d * b - lo - hi
        for d, b, (lo, hi) in zip(x[1 : 1 + len(block)], block, crops, strict=True)
    ]
    batch = divide(x[0], product(block), "batch")
    return [((batch, *spatial, *x[1 + len(block) :]), ctx.dtype(0))]


@rule("SPACE_TO_BATCH_ND")
def space_to_batch_nd(op, ctx):
    """Spatial dims plus paddings divided by the block; batch multiplied by it."""
    x, block, pads = _block_operands(ctx)
    spatial = [
        None if d is None or lo is None else divide(d + lo + hi, b, "padded size")
        for d, b, (lo, hi) in zip(x[1 : 1 + len(block)], block, pads, strict=True)
    ]
    return [((times(x[0], product(block)), *spatial, *x[1 + len(block) :]), ctx.dtype(0))]
