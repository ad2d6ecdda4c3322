"""Image resizing (NHWC): RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR.

Source coordinates follow TFLite's reference kernels in float32 arithmetic, for every
combination of ``alignCorners`` and ``halfPixelCenters``.
"""

from __future__ import annotations

import numpy as np

from ..context import InterpreterError
from ..registry import kernel
from .conv import float_args


def _target(op, x, size) -> tuple[int, int, bool, bool]:
    """(out_h, out_w, align_corners, half_pixel_centers), checked."""
    if x.ndim != 4:
        raise ValueError(f"expected a 4-D NHWC input, got shape {list(x.shape)}")
    dims = [int(v) for v in np.asarray(size).reshape(-1)]
    if len(dims) != 2 or min(dims) < 1:
        raise ValueError(f"size must hold two positive values, got {dims}")
    align = bool(getattr(op.options, "alignCorners", False))
    half = bool(getattr(op.options, "halfPixelCenters", False))
    return dims[0], dims[1], align, half


def _scale(in_size: int, out_size: int, align: bool) -> np.float32:
    if align and out_size > 1:
        return np.float32(in_size - 1) / np.float32(out_size - 1)
    return np.float32(in_size) / np.float32(out_size)


def _bilinear_axis(in_size, out_size, align, half):
    """Lower and upper source indices and the upper weight, per output position."""
    scale = _scale(in_size, out_size, align)
    v = np.arange(out_size, dtype=np.float32)
    v = (v + np.float32(0.5)) * scale - np.float32(0.5) if half else v * scale
    lower = np.maximum(np.floor(v), 0).astype(np.intp)
    upper = np.minimum(np.ceil(v), in_size - 1).astype(np.intp)
    return lower, upper, v - lower.astype(np.float32)


def _nearest_axis(in_size, out_size, align, half):
    """Source index per output position."""
    v = (np.arange(out_size, dtype=np.float32) + np.float32(0.5 if half else 0.0)) * _scale(
        in_size, out_size, align
    )
    low = np.floor(v)
    index = np.where(v - low >= 0.5, low + 1, low) if align else low  # round half away
    index = np.minimum(index, in_size - 1)
    return np.maximum(index, 0).astype(np.intp)


@kernel("RESIZE_BILINEAR")
def resize_bilinear(op, args, ctx):
    x, size = args[0], args[1]
    float_args(op, [x], 1)
    out_h, out_w, align, half = _target(op, x, size)
    if align and half:
        raise InterpreterError(
            f"{op.kind}: alignCorners and halfPixelCenters cannot both be set (as in LiteRT)"
        )
    y0, y1, dy = _bilinear_axis(x.shape[1], out_h, align, half)
    x0, x1, dx = _bilinear_axis(x.shape[2], out_w, align, half)
    dy, dx = dy.astype(x.dtype)[:, None, None], dx.astype(x.dtype)[:, None]
    rows = x[:, y0] * (1 - dy) + x[:, y1] * dy
    return rows[:, :, x0] * (1 - dx) + rows[:, :, x1] * dx


@kernel("RESIZE_NEAREST_NEIGHBOR")
def resize_nearest_neighbor(op, args, ctx):
    x, size = args[0], args[1]
    out_h, out_w, align, half = _target(op, x, size)
    rows = _nearest_axis(x.shape[1], out_h, align, half)
    cols = _nearest_axis(x.shape[2], out_w, align, half)
    return x[:, rows[:, None], cols[None, :]]
