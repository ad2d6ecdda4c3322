"""Quantized image resizing (NHWC), as LiteRT's reference kernels compute it.

RESIZE_NEAREST_NEIGHBOR only moves values (the float kernel's index arithmetic, any integer
type). RESIZE_BILINEAR on uint8 interpolates in float32 and truncates after adding 0.5
(reference_ops::ResizeBilinear<uint8_t>); on int8 and int16 it uses 10-bit fixed-point
coordinates and weights (reference_ops::ResizeBilinearInteger) with a rounding division.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...ir import Operator, numpy_dtype
from ..context import InterpreterError
from ..registry import Args, quantized_kernel
from .resize import _bilinear_axis, _target, resize_nearest_neighbor

F32 = np.float32


@quantized_kernel("RESIZE_NEAREST_NEIGHBOR")
def quantized_resize_nearest_neighbor(op: Operator, args: Args, ctx: Any) -> np.ndarray:
    """Data movement: the float kernel's source indices, values copied unchanged."""
    return resize_nearest_neighbor(op, args, ctx)


def _integer_axis(in_size: int, out_size: int, align: bool, half: bool):
    """ComputeInterpolationValuesInteger per output position: (lower, upper, the position
    in 1/1024 units) with C's truncating divisions."""
    if align and out_size > 1:
        scale = ((1 << 10) * (in_size - 1) + (out_size - 1) // 2) // (out_size - 1)
    else:
        scale = ((1 << 10) * in_size + out_size // 2) // out_size
    v = np.arange(out_size, dtype=np.int64) * scale
    if half:
        v = v + scale // 2 - (1 << 9)
    lower = np.maximum(np.trunc(v / 1024).astype(np.int64), 0)
    upper = np.minimum(np.trunc((v + 1023) / 1024).astype(np.int64), in_size - 1)
    return lower, upper, v


def _bilinear_integer(x: np.ndarray, out_h: int, out_w: int, align: bool, half: bool):
    y0, y1, vy = _integer_axis(x.shape[1], out_h, align, half)
    x0, x1, vx = _integer_axis(x.shape[2], out_w, align, half)
    dy = (vy - (y0 << 10))[:, None, None]
    dx = (vx - (x0 << 10))[:, None]
    v = x.astype(np.int64)
    top = v[:, y0][:, :, x0] * (1024 - dy) * (1024 - dx)
    top = top + v[:, y1][:, :, x0] * dy * (1024 - dx)
    bottom = v[:, y0][:, :, x1] * (1024 - dy) * dx + v[:, y1][:, :, x1] * dy * dx
    total = top + bottom
    rounded = total + np.where(total > 0, 1 << 19, -(1 << 19))
    quotient = np.where(rounded >= 0, rounded >> 20, -(-rounded >> 20))  # toward zero
    return quotient.astype(x.dtype)


def _bilinear_float(x: np.ndarray, out_h: int, out_w: int, align: bool, half: bool):
    """The uint8 path: float32 weights in the reference order, + 0.5, truncated."""
    y0, y1, fy = _bilinear_axis(x.shape[1], out_h, align, half)
    x0, x1, fx = _bilinear_axis(x.shape[2], out_w, align, half)
    fy, fx = fy[:, None, None], fx[:, None]
    one = F32(1)
    v = x.astype(F32)
    total = v[:, y0][:, :, x0] * (one - fy) * (one - fx)
    total = total + v[:, y1][:, :, x0] * fy * (one - fx)
    total = total + v[:, y0][:, :, x1] * (one - fy) * fx
    total = total + v[:, y1][:, :, x1] * fy * fx
    return (total + F32(0.5)).astype(x.dtype)


@quantized_kernel("RESIZE_BILINEAR")
def quantized_resize_bilinear(op: Operator, args: Args, ctx: Any) -> np.ndarray:
    """uint8: float32 interpolation rounded by +0.5; int8/int16: 10-bit fixed point."""
    x, size = args[0], args[1]
    out_h, out_w, align, half = _target(op, x, size)
    if align and half:
        raise InterpreterError(
            f"{op.kind}: alignCorners and halfPixelCenters cannot both be set (as in LiteRT)"
        )
    out_dtype = np.dtype(numpy_dtype(op.outputs[0].dtype))
    if x.dtype != out_dtype:
        raise InterpreterError(f"{op.kind}: {x.dtype} input with {out_dtype} output")
    if x.dtype == np.uint8:
        return _bilinear_float(x, out_h, out_w, align, half)
    if x.dtype in (np.int8, np.int16):
        return _bilinear_integer(x, out_h, out_w, align, half)
    raise InterpreterError(f"{op.kind}: quantized {x.dtype} is not supported")
