"""Slicing and padding: SLICE, STRIDED_SLICE, PAD, PADV2, MIRROR_PAD."""

from __future__ import annotations

import numpy as np

from ..registry import kernel
from .layout import int_list

_QUANTIZED_PAD_TYPES = frozenset({"INT8", "UINT8", "INT16"})


@kernel("SLICE")
def slice_(op, args, ctx):
    """``size`` -1 takes the rest of a dimension; the slice must lie inside the input."""
    x, begin, size = args[0], int_list(args[1]), int_list(args[2])
    if len(begin) != x.ndim or len(size) != x.ndim:
        raise ValueError(f"begin {begin} and size {size} must have one entry per input axis")
    index = []
    for b, s, dim in zip(begin, size, x.shape, strict=True):
        if s == -1:
            s = dim - b
        if b < 0 or s < 0 or b + s > dim:
            raise ValueError(f"slice begin {begin} size {size} is outside shape {list(x.shape)}")
        index.append(slice(b, b + s))
    return x[tuple(index)]


def _bit(mask: int, i: int) -> bool:
    return bool(mask >> i & 1)


def _clamp(v: int, lo: int, hi: int) -> int:
    return max(lo, min(v, hi))


class _Axis:
    """One axis of the effective input (the input with the new axes inserted)."""

    __slots__ = ("begin", "begin_mask", "end", "end_mask", "shrink", "size", "stride")

    def __init__(
        self, size, begin=0, end=0, stride=1, begin_mask=True, end_mask=True, shrink=False
    ):
        self.size, self.begin, self.end, self.stride = size, begin, end, stride
        self.begin_mask, self.end_mask, self.shrink = begin_mask, end_mask, shrink

    def bounds(self, offset: bool) -> tuple[int, int]:
        """(start, stop) as TFLite's StridedSliceStartForAxis / StridedSliceEndForAxis."""
        size, forward = self.size, self.stride > 0
        start = self.begin + size if self.begin < 0 else self.begin
        start = _clamp(start, 0, size) if forward else _clamp(start, -1, size - 1)
        if self.begin_mask:
            start = 0 if forward else size - 1
        if self.shrink:
            return start, start + 1
        if offset:
            # The end is a size from the resolved start, not clamped. (LiteRT sizes the output
            # without the end mask but honours it while copying: an inconsistency, refused.)
            if self.end_mask:
                raise ValueError("an end mask together with the offset option is not supported")
            stop = start + self.end
            if (stop > size) if forward else (stop < -1):
                raise ValueError(f"offset slice [{start}, {stop}) is outside dimension {size}")
            return start, stop
        stop = self.end
        if stop < 0:
            stop += size
        stop = _clamp(stop, 0, size) if forward else _clamp(stop, -1, size - 1)
        if self.end_mask:
            stop = size if forward else -1
        return start, stop


def _effective_axes(options, shape, begin, end, strides) -> list[_Axis]:
    """Expand the ellipsis and the new axes the way TFLite's BuildStridedSliceParams does."""
    count, rank = len(begin), len(shape)
    ellipsis_mask, new_axis_mask = options.ellipsisMask, options.newAxisMask
    if bin(ellipsis_mask & ((1 << count) - 1)).count("1") > 1:
        raise ValueError("more than one ellipsis in the slice specification")
    added = sum(_bit(new_axis_mask, i) and not _bit(ellipsis_mask, i) for i in range(count))
    dims = rank + added
    # Effective positions covered by the ellipsis, and where new axes go.
    ellipsis = range(0)
    new_axes: set[int] = set()
    i = 0
    while i < dims:
        if _bit(ellipsis_mask, i) and not ellipsis:
            stop = max(i + 1, min(i + 1 + added + rank - count, dims))
            ellipsis = range(i, stop)
            i = stop
            continue
        if _bit(new_axis_mask, i - max(0, len(ellipsis) - 1)):
            new_axes.add(i)
        i += 1
    expanded = max(0, len(ellipsis) - 1)
    axes: list[_Axis] = []
    inserted = 0
    for i in range(dims):
        if i in ellipsis:
            axes.append(_Axis(shape[i - inserted]))
        elif i in new_axes:
            axes.append(_Axis(1, 0, 1, 1, begin_mask=False, end_mask=False))
            inserted += 1
        elif i >= count + expanded:
            axes.append(_Axis(shape[i - inserted]))
        else:
            j = i - (expanded if ellipsis and i > ellipsis.start else 0)
            axes.append(
                _Axis(
                    shape[i - inserted],
                    int(begin[j]),
                    int(end[j]),
                    int(strides[j]),
                    begin_mask=_bit(options.beginMask, j),
                    end_mask=_bit(options.endMask, j),
                    shrink=_bit(options.shrinkAxisMask, j),
                )
            )
    return axes


@kernel("STRIDED_SLICE")
def strided_slice(op, args, ctx):
    """TFLite's strided slice: clamped bounds, negative strides, the five masks, ``offset``.

    A shrunk axis takes the element at its (resolved) begin whatever the stride's sign, as in
    TF; LiteRT's kernel writes nothing for a shrunk axis with a negative stride.
    """
    x = args[0]
    begin, end, strides = (int_list(a) for a in args[1:4])
    if not len(begin) == len(end) == len(strides):
        raise ValueError("begin, end and strides must have the same length")
    if 0 in strides:
        raise ValueError("strides must be non-zero")
    axes = _effective_axes(op.options, x.shape, begin, end, strides)
    offset = bool(op.options.offset)
    index: list[slice] = []
    shape: list[int] = []
    for axis in axes:
        start, stop = axis.bounds(offset)
        if axis.shrink:
            if not 0 <= start < axis.size:
                raise ValueError(
                    f"index {axis.begin} is out of range for a dimension of size {axis.size}"
                )
            index.append(slice(start, start + 1))
            continue
        step = axis.stride
        count = max(0, -((start - stop) // step) if step > 0 else -((stop - start) // -step))
        shape.append(count)
        index.append(_span(start, step, count))
    effective = x.reshape([a.size for a in axes])
    return effective[tuple(index)].reshape(shape)


def _span(start: int, step: int, count: int) -> slice:
    """The numpy slice of ``count`` elements from ``start`` by ``step`` (either direction)."""
    if count == 0:
        return slice(0, 0)
    stop = start + count * step
    return slice(start, None if stop < 0 else stop, step)


def _pad_widths(x: np.ndarray, paddings: np.ndarray) -> list[tuple[int, int]]:
    widths = np.asarray(paddings).reshape(-1, 2) if np.size(paddings) else np.zeros((0, 2))
    if widths.shape[0] != x.ndim:
        raise ValueError(f"paddings {widths.tolist()} must have one row per input axis")
    if np.any(widths < 0):
        raise ValueError(f"paddings {widths.tolist()} must not be negative")
    return [(int(a), int(b)) for a, b in widths]


def _pad_constant(op, args, value) -> np.ndarray:
    x = args[0]
    return np.pad(x, _pad_widths(x, args[1]), mode="constant", constant_values=value)


def _zero_point(op) -> int:
    """The pad value of PAD: the output zero point for quantized integer types, else 0."""
    out = op.outputs[0]
    zero_point = getattr(out.quant, "zero_point", None)
    if out.dtype in _QUANTIZED_PAD_TYPES and zero_point is not None and len(zero_point):
        return int(zero_point[0])
    return 0


@kernel("PAD")
def pad(op, args, ctx):
    return _pad_constant(op, args, _zero_point(op))


@kernel("PADV2")
def padv2(op, args, ctx):
    value = args[2]
    if value is None:
        return _pad_constant(op, args, _zero_point(op))
    if np.size(value) != 1:
        raise ValueError("the pad value must hold one value")
    return _pad_constant(op, args, np.ravel(value)[0])


@kernel("MIRROR_PAD")
def mirror_pad(op, args, ctx):
    """REFLECT (mode 0) leaves out the edge element, SYMMETRIC (mode 1) repeats it.

    Indices follow TFLite's ``GetInputDimension`` (which clamps on the far side).
    """
    x = args[0]
    widths = _pad_widths(x, args[1])
    mode = op.options.mode if op.options is not None else 0
    if mode not in (0, 1):
        raise ValueError(f"unknown mirror pad mode {mode}")
    offset = 1 if mode == 0 else 0
    out = x
    for axis, (before, after) in enumerate(widths):
        size = x.shape[axis]
        if before > size - offset or after > size - offset:
            raise ValueError(
                f"padding ({before}, {after}) is too large for dimension {size} in "
                f"{'REFLECT' if mode == 0 else 'SYMMETRIC'} mode"
            )
        left = before + offset - 1 - np.arange(before)
        right_base = size - 1 - offset
        right = right_base - np.minimum(np.arange(after), right_base)
        index = np.concatenate([left, np.arange(size), right]).astype(np.intp)
        out = np.take(out, index, axis=axis)
    return out
