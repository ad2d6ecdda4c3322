"""Slicing, splitting and padding."""

from __future__ import annotations

from ..common import (
    divide,
    int_list,
    normalize_axis,
    option,
    per_dim_values,
    require_rank,
    scalar_int,
    unknown,
)
from ..registry import ShapeError, rule


@rule("SLICE")
def slice_(op, ctx):
    """Inputs (x, begin, size); a size of -1 takes the rest of the dimension."""
    x = ctx.shape(0)
    begin, size = per_dim_values(ctx, 1), per_dim_values(ctx, 2)
    if size is None:
        return [(unknown(len(x)), ctx.dtype(0))]
    out = [
        s if s != -1 else None if begin is None or dim is None else dim - begin[d]
        for d, (dim, s) in enumerate(zip(x, size, strict=True))
    ]
    return [(tuple(out), ctx.dtype(0))]


def _clamp(v, size, stride):
    """TFLite's clamping of a slice bound: [0, size] forwards, [-1, size - 1] backwards."""
    return min(max(v, 0), size) if stride > 0 else min(max(v, -1), size - 1)


def _slice_length(size, begin, end, stride, begin_masked, end_masked, offset):
    """Elements one strided-slice axis keeps (TFLite StartForAxis/StopForAxis)."""
    if stride == 0:
        raise ShapeError("stride value has to be non-zero")
    if size is None or stride is None:
        return None
    if begin_masked:
        start = 0 if stride > 0 else size - 1
    elif begin is None:
        return None
    else:
        start = _clamp(begin + size if begin < 0 else begin, size, stride)
    if end_masked:
        stop = size if stride > 0 else -1
    elif end is None:
        return None
    else:
        stop = end + start if offset else end
        stop = _clamp(stop + size if stop < 0 else stop, size, stride)
    return max(0, -((start - stop) // stride))


def _effective_masks(op, rank, count):
    """TFLite BuildStridedSliceParams: the ellipsis expanded over the dimensions that begin,
    end and strides leave out, and the new axes, as masks over the effective dimensions."""
    ellipsis, new_axis = option(op, "ellipsisMask", 0), option(op, "newAxisMask", 0)
    added = sum(1 for i in range(count) if new_axis >> i & 1 and not ellipsis >> i & 1)
    effective = rank + added
    eff_ellipsis = eff_new = expanded = 0
    i = 0
    while i < effective:
        if ellipsis >> i & 1:
            stop = max(i + 1, min(i + 1 + added + rank - count, effective))
            expanded = stop - i - 1
            eff_ellipsis |= (1 << stop) - (1 << i)
            i = stop
            continue
        if new_axis >> (i - expanded) & 1:
            eff_new |= 1 << i
        i += 1
    return effective, eff_ellipsis, eff_new, expanded


@rule("STRIDED_SLICE")
def strided_slice(op, ctx):
    """Inputs (x, begin, end, strides) with the begin/end/ellipsis/new-axis/shrink masks and
    ``offset`` (end relative to begin). Unknown bounds or dims give unknown dims; the rank
    follows from the masks alone."""
    x = ctx.shape(0)
    count = require_rank(ctx, 1, 1)[0]
    bounds = [int_list(ctx.value(i)) for i in (1, 2, 3)]
    if count is None:
        raise ShapeError("begin has an unknown length")
    begin, end, strides = ([None] * count if v is None else v for v in bounds)
    begin_mask, end_mask = option(op, "beginMask", 0), option(op, "endMask", 0)
    shrink, offset = option(op, "shrinkAxisMask", 0), option(op, "offset", False)
    effective, ellipsis, new_axis, expanded = _effective_masks(op, len(x), count)
    out = []
    after_ellipsis = added_axes = 0
    for i in range(effective):
        if new_axis >> i & 1:
            out.append(1)
            added_axes += 1
            continue
        size = x[i - added_axes]
        if ellipsis >> i & 1:
            after_ellipsis = expanded
            out.append(size)
        elif i >= count + expanded:
            out.append(size)
        else:
            j = i - after_ellipsis
            if not shrink >> j & 1:
                masked = (begin_mask >> j & 1, end_mask >> j & 1)
                out.append(_slice_length(size, begin[j], end[j], strides[j], *masked, offset))
    return [(tuple(out), ctx.dtype(0))]


def _split_axis(value, x):
    axis = scalar_int(value)
    return None if axis is None else normalize_axis(axis, len(x))


def _pieces(x, axis, sizes, dtype):
    """One output per size along ``axis``; all dims unknown when the axis is."""
    if axis is None:
        return [(unknown(len(x)), dtype)] * len(sizes)
    return [((*x[:axis], s, *x[axis + 1 :]), dtype) for s in sizes]


@rule("SPLIT")
def split(op, ctx):
    """Inputs (axis, x): equal parts, one per output."""
    x, parts = ctx.shape(1), len(op.outputs)
    axis = _split_axis(ctx.value(0), x)
    size = None if axis is None else divide(x[axis], parts, f"dimension {axis} of size")
    return _pieces(x, axis, [size] * parts, ctx.dtype(1))


@rule("SPLIT_V")
def split_v(op, ctx):
    """Inputs (x, size_splits, axis); one size may be -1 (the rest)."""
    x, parts = ctx.shape(0), len(op.outputs)
    axis = _split_axis(ctx.value(2), x)
    sizes = int_list(ctx.value(1)) or [None] * parts
    if len(sizes) != parts or sizes.count(-1) > 1:
        raise ShapeError(f"size_splits {sizes} do not describe {parts} outputs")
    if -1 in sizes and axis is not None:
        rest = None if x[axis] is None else x[axis] - sum(s for s in sizes if s != -1)
        sizes[sizes.index(-1)] = rest
    return _pieces(x, axis, sizes, ctx.dtype(0))


@rule("PAD", "PADV2", "MIRROR_PAD")
def pad(op, ctx):
    """Input 1 holds [before, after] per dimension; unknown paddings give unknown dims."""
    x = ctx.shape(0)
    pads = per_dim_values(ctx, 1, 2)
    if pads is None:
        return [(unknown(len(x)), ctx.dtype(0))]
    out = (None if d is None else d + pads[2 * i] + pads[2 * i + 1] for i, d in enumerate(x))
    return [(tuple(out), ctx.dtype(0))]
