"""Convolutions (NHWC): CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV, and the window helpers
(TFLite SAME/VALID geometry, padding, strided patch views) that pools share.

Convolutions run on BLAS: a 1x1 convolution is one matmul, a general one is one matmul on
im2col patches (per group); a depthwise one sums its kernel taps (whole-row slices of the
padded input) a block of rows at a time, bias and activation included, while in cache.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..activation import RELU, RELU6, RELU_N1_TO_1, activation_of, fused
from ..context import InterpreterError
from ..real_weights import real_operands
from ..registry import kernel

SAME, VALID = 0, 1  # the schema's Padding enum

# Elements per chunk of the fused tap/bias/activation loops: small enough to stay in cache.
_CHUNK = 1 << 17

_CLAMPS = {RELU: (0.0, None), RELU6: (0.0, 6.0), RELU_N1_TO_1: (-1.0, 1.0)}


def options_of(op):
    """The builtin options of ``op``; an operator without them cannot run."""
    if op.options is None:
        raise InterpreterError(f"{op.kind}: the operator has no builtin options")
    return op.options


def float_args(op, args, count):
    """The first ``count`` operands (None when omitted), checked to be floating point."""
    arrays = [*args[:count], *[None] * (count - len(args))]
    for a in arrays:
        if a is not None and not np.issubdtype(a.dtype, np.floating):
            raise InterpreterError(f"{op.kind}: only float operands are supported, got {a.dtype}")
    return arrays


def _axis_geometry(size: int, k: int, stride: int, dilation: int, padding: int):
    """(output size, padding before) along one axis, as TFLite computes them."""
    if stride < 1 or dilation < 1:
        raise ValueError(f"stride {stride} and dilation {dilation} must be positive")
    effective = (k - 1) * dilation + 1
    if padding == SAME:
        out = -(-size // stride)
    elif padding == VALID:
        if size < effective:
            raise ValueError(f"window of {effective} does not fit an input of {size} (VALID)")
        out = (size - effective) // stride + 1
    else:
        raise ValueError(f"unknown padding {padding}")
    total = max((out - 1) * stride + effective - size, 0)
    return out, total // 2


@dataclass(frozen=True)
class Window:
    """A kh x kw window sliding over the H and W axes of an NHWC tensor."""

    kh: int
    kw: int
    sh: int
    sw: int
    dh: int
    dw: int
    out_h: int
    out_w: int
    top: int
    left: int

    @classmethod
    def over(cls, shape, kh, kw, strides, padding, dilations=(1, 1)):
        """The window for an input of NHWC ``shape`` (strides and dilations as (h, w))."""
        if len(shape) != 4:
            raise ValueError(f"expected a 4-D NHWC input, got shape {list(shape)}")
        (sh, sw), (dh, dw) = strides, dilations
        out_h, top = _axis_geometry(shape[1], kh, sh, dh, padding)
        out_w, left = _axis_geometry(shape[2], kw, sw, dw, padding)
        return cls(kh, kw, sh, sw, dh, dw, out_h, out_w, top, left)

    @property
    def span(self) -> tuple[int, int]:
        """Rows and columns of the padded input the window reads."""
        return (
            (self.out_h - 1) * self.sh + (self.kh - 1) * self.dh + 1,
            (self.out_w - 1) * self.sw + (self.kw - 1) * self.dw + 1,
        )

    def patches(self, x: np.ndarray, fill: float = 0.0) -> np.ndarray:
        """A read-only [N, OH, OW, kh, kw, C] view of the window contents (for im2col).

        Positions outside the input read ``fill`` (the input is copied into a padded buffer
        only when the window reaches beyond it).
        """
        span_h, span_w = self.span
        padded = _gather(x, fill, (self.top, self.left), (1, 1), (span_h, span_w))
        sn, sy, sx, sc = padded.strides
        return np.lib.stride_tricks.as_strided(
            padded,
            (x.shape[0], self.out_h, self.out_w, self.kh, self.kw, x.shape[3]),
            (sn, sy * self.sh, sx * self.sw, sy * self.dh, sx * self.dw, sc),
            writeable=False,
        )

    def taps(self, x: np.ndarray, fill: float = 0.0) -> list[np.ndarray]:
        """The kh*kw taps (by row, then column): [N, OH, OW, C] views of what each reads.

        The padded input is split into stride phases (one per row and column offset modulo
        the stride) so that every tap is a plain slice with contiguous rows: arithmetic on a
        tap runs over whole rows instead of one pixel's channels at a time.
        """
        (sh, sw), (dh, dw) = (self.sh, self.sw), (self.dh, self.dw)
        rows = self.out_h + (self.kh - 1) * dh // sh
        cols = self.out_w + (self.kw - 1) * dw // sw
        phases: dict[tuple[int, int], np.ndarray] = {}
        out = []
        for fy in range(self.kh):
            for fx in range(self.kw):
                (qy, py), (qx, px) = divmod(fy * dh, sh), divmod(fx * dw, sw)
                if (py, px) not in phases:
                    origin = (self.top - py, self.left - px)
                    phases[py, px] = _gather(x, fill, origin, (sh, sw), (rows, cols))
                out.append(phases[py, px][:, qy : qy + self.out_h, qx : qx + self.out_w])
        return out


def _gather(x: np.ndarray, fill, origin, steps, size) -> np.ndarray:
    """[N, rows, cols, C] whose (i, j) is ``x[:, i*step_h - top, j*step_w - left]``.

    Positions outside ``x`` hold ``fill``. With unit steps and nothing outside, this is a
    view of ``x``; otherwise a new contiguous array.
    """
    n, h, w, c = x.shape
    (top, left), (step_h, step_w), (rows, cols) = origin, steps, size
    if (step_h, step_w) == (1, 1) and top == left == 0 and rows <= h and cols <= w:
        return x[:, :rows, :cols]
    # Rows i0..i1 and columns j0..j1 of the result come from x.
    i0 = min(rows, max(0, -(-top // step_h)))
    i1 = max(i0, min(rows, (h - 1 + top) // step_h + 1))
    j0 = min(cols, max(0, -(-left // step_w)))
    j1 = max(j0, min(cols, (w - 1 + left) // step_w + 1))
    out = np.empty((n, rows, cols, c), x.dtype)
    out[:, :i0] = fill
    out[:, i1:] = fill
    out[:, i0:i1, :j0] = fill
    out[:, i0:i1, j1:] = fill
    if i1 > i0 and j1 > j0:
        y0, x0 = i0 * step_h - top, j0 * step_w - left
        out[:, i0:i1, j0:j1] = x[
            :,
            y0 : y0 + (i1 - i0 - 1) * step_h + 1 : step_h,
            x0 : x0 + (j1 - j0 - 1) * step_w + 1 : step_w,
        ]
    return out


def conv_window(op, shape, kh, kw):
    """The window of a CONV_2D / DEPTHWISE_CONV_2D from its options."""
    o = options_of(op)
    return Window.over(
        shape,
        kh,
        kw,
        (o.strideH, o.strideW),
        o.padding,
        (o.dilationHFactor, o.dilationWFactor),
    )


def finish(out: np.ndarray, bias, op) -> np.ndarray:
    """Add the bias and apply the fused activation, in place on ``out`` (a fresh array)."""
    if bias is not None:
        out += bias
    code = activation_of(op)
    if code in _CLAMPS:
        np.clip(out, *_CLAMPS[code], out=out)
    elif code:
        out[...] = fused(out, code)
    return out


@kernel("CONV_2D")
def conv_2d(op, args, ctx):
    """Convolution with filter [O, kh, kw, I]; grouped when the input has ``g * I`` channels.
    A hybrid INT8/INT16/INT4 filter is read as its float32 values."""
    x, w, b = float_args(op, real_operands(op, args, ctx), 3)
    c = x.shape[3]
    out_c, kh, kw, in_c = w.shape
    if c % in_c or out_c % (c // in_c):
        raise ValueError(f"input channels {c} and filter {list(w.shape)} do not form groups")
    groups = c // in_c
    win = conv_window(op, x.shape, kh, kw)

    def convolve(images: np.ndarray) -> np.ndarray:
        cols = win.patches(images)
        pixels = len(images) * win.out_h * win.out_w
        if groups == 1:
            out = cols.reshape(pixels, -1) @ w.reshape(out_c, -1).T
        else:
            grouped = cols.reshape(pixels, kh * kw, groups, in_c).transpose(2, 0, 1, 3)
            out = np.matmul(
                grouped.reshape(groups, pixels, -1),
                w.reshape(groups, out_c // groups, -1).transpose(0, 2, 1),
            )
            out = out.transpose(1, 0, 2).reshape(pixels, out_c)
        return out.reshape(len(images), win.out_h, win.out_w, out_c)

    return finish(ctx.by_record(convolve, x), b, op)


@kernel("DEPTHWISE_CONV_2D")
def depthwise_conv_2d(op, args, ctx):
    """Depthwise convolution with filter [1, kh, kw, C * multiplier]. A hybrid
    INT8/INT16/INT4 filter is read as its float32 values."""
    x, w, b = float_args(op, real_operands(op, args, ctx), 3)
    n, _, _, c = x.shape
    _, kh, kw, out_c = w.shape
    if w.shape[0] != 1 or out_c % c:
        raise ValueError(f"filter {list(w.shape)} does not fit an input of {c} channels")
    if out_c != c:
        x = np.repeat(x, out_c // c, axis=3)
    win = conv_window(op, x.shape, kh, kw)
    taps = win.taps(x)
    # Weights repeated along a row, so that each multiply runs over whole rows too.
    weights = np.broadcast_to(w.reshape(kh * kw, 1, out_c), (kh * kw, win.out_w, out_c)).copy()
    out = np.empty((n, win.out_h, win.out_w, out_c), np.result_type(x, w))
    # Multiply-accumulate, bias and activation a block of rows at a time (while in cache).
    step = max(1, _CHUNK // (win.out_w * out_c))
    scratch = np.empty((step, win.out_w, out_c), out.dtype)
    for i in range(n):
        for y in range(0, win.out_h, step):
            acc = out[i, y : y + step]
            tmp = scratch[: len(acc)]
            np.multiply(taps[0][i, y : y + step], weights[0], out=acc)
            for tap, weight in zip(taps[1:], weights[1:], strict=True):
                np.multiply(tap[i, y : y + step], weight, out=tmp)
                acc += tmp
            finish(acc, b, op)
    return out


@kernel("TRANSPOSE_CONV")
def transpose_conv(op, args, ctx):
    """Transposed convolution: inputs (output shape, filter [O, kh, kw, I], input, bias?)."""
    shape = args[0]
    w, x, b = float_args(op, args[1:], 3)
    o = options_of(op)
    n, h, wd, c = x.shape
    out_c, kh, kw, in_c = w.shape
    out_shape = [int(v) for v in np.asarray(shape).reshape(-1)]
    if len(out_shape) != 4 or out_shape[0] != n or out_shape[3] != out_c or in_c != c:
        raise ValueError(
            f"output shape {out_shape}, filter {list(w.shape)} and input {list(x.shape)} "
            "do not match"
        )
    out_h, out_w = out_shape[1:3]
    sh, sw = o.strideH, o.strideW
    # TFLite pads as if the output were the input of the matching forward convolution.
    top = _axis_geometry(out_h, kh, sh, 1, o.padding)[1]
    left = _axis_geometry(out_w, kw, sw, 1, o.padding)[1]
    cols = x.reshape(-1, c) @ w.transpose(1, 2, 0, 3).reshape(-1, in_c).T
    cols = cols.reshape(n, h, wd, kh, kw, out_c)
    full = np.zeros(
        (n, max((h - 1) * sh + kh, top + out_h), max((wd - 1) * sw + kw, left + out_w), out_c),
        cols.dtype,
    )
    for fy in range(kh):
        for fx in range(kw):
            full[:, fy : fy + (h - 1) * sh + 1 : sh, fx : fx + (wd - 1) * sw + 1 : sw] += cols[
                :, :, :, fy, fx
            ]
    out = np.ascontiguousarray(full[:, top : top + out_h, left : left + out_w])
    return finish(out, b, op)
