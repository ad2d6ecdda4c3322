"""2-D pooling (NHWC): AVERAGE_POOL_2D, MAX_POOL_2D, L2_POOL_2D.

Padded positions take no part: average and L2 pools divide by the number of valid elements
in each window, as TFLite does.
"""

from __future__ import annotations

import numpy as np

from ..registry import kernel
from .conv import Window, finish, float_args, options_of


def _pool_window(op, x) -> Window:
    o = options_of(op)
    return Window.over(x.shape, o.filterHeight, o.filterWidth, (o.strideH, o.strideW), o.padding)


def _reduce_taps(win: Window, x: np.ndarray, fill: float, ufunc: np.ufunc) -> np.ndarray:
    """``ufunc`` folded over the kh*kw taps of every window (padding reads ``fill``)."""
    taps = win.taps(x, fill)
    out = taps[0].copy()
    for tap in taps[1:]:
        ufunc(out, tap, out=out)
    return out


def _valid_counts(win: Window, shape) -> np.ndarray:
    """Number of in-bounds input positions of each window, as an [OH, OW, 1] array."""

    def along(out, size, k, stride, before):
        starts = np.arange(out) * stride - before
        return np.minimum(k, size - starts) - np.maximum(0, -starts)

    rows = along(win.out_h, shape[1], win.kh, win.sh, win.top)
    cols = along(win.out_w, shape[2], win.kw, win.sw, win.left)
    return (rows[:, None] * cols[None, :])[:, :, None]


def _mean_of_windows(op, x: np.ndarray) -> np.ndarray:
    win = _pool_window(op, x)
    total = _reduce_taps(win, x, 0.0, np.add)
    total /= _valid_counts(win, x.shape).astype(total.dtype)
    return total


@kernel("AVERAGE_POOL_2D")
def average_pool_2d(op, args, ctx):
    (x,) = float_args(op, args, 1)
    return finish(_mean_of_windows(op, x), None, op)


@kernel("MAX_POOL_2D")
def max_pool_2d(op, args, ctx):
    """Float, or raw integers (no qparams: the ONNX front end's integer MaxPool), whose
    padding reads the type's minimum."""
    x = args[0]
    if np.issubdtype(x.dtype, np.integer):
        return _reduce_taps(_pool_window(op, x), x, np.iinfo(x.dtype).min, np.maximum)
    (x,) = float_args(op, args, 1)
    return finish(_reduce_taps(_pool_window(op, x), x, -np.inf, np.maximum), None, op)


@kernel("L2_POOL_2D")
def l2_pool_2d(op, args, ctx):
    """Square root of the mean of squares over each window."""
    (x,) = float_args(op, args, 1)
    out = _mean_of_windows(op, np.square(x))
    return finish(np.sqrt(out, out=out), None, op)
