"""MediaPipe's segmentation custom operators (NHWC, float32): Convolution2DTransposeBias,
MaxPoolingWithArgmax2D and MaxUnpooling2D, with the semantics of transpose_conv_bias.cc,
max_pool_argmax.cc and max_unpooling.cc in mediapipe/util/tflite/operations.

Their options are raw C structs (see :mod:`.mediapipe_options`). The argmax "indices" are
float32 positions inside the pooling window, ``y * filter_w + x + 0.1``, which MaxUnpooling2D
truncates back to integers.
"""

from __future__ import annotations

import numpy as np

from ..registry import kernel
from .mediapipe_options import (
    pool_padding,
    pool_params,
    pool_size,
    transpose_conv_padding,
    transpose_conv_params,
    transpose_conv_size,
)


def _float4(x: np.ndarray, what: str) -> np.ndarray:
    a = np.asarray(x)
    if a.ndim != 4:
        raise ValueError(f"{what} must have rank 4, not {a.ndim}")
    return a.astype(np.float32, copy=False)


@kernel("CUSTOM(Convolution2DTransposeBias)", real_valued=True)
def convolution_2d_transpose_bias(op, args, ctx):
    """Inputs (input, filter [O, kh, kw, I], bias [O]): a transposed convolution whose
    output starts at the bias. Output size per axis ``s * (in - 1) + k - pad`` with
    ``pad = max(0, k - (in - 1) % s - 1)`` for SAME (0 otherwise); the output window starts
    ``pad // 2`` into the full scatter."""
    x, w, b = args
    x = _float4(x, "input")
    w = _float4(w, "filter")
    b = np.asarray(b, np.float32)
    params = transpose_conv_params(op)
    n, h, wd, c = x.shape
    out_c, kh, kw, in_c = w.shape
    if in_c != c or b.shape != (out_c,):
        raise ValueError(
            f"filter {list(w.shape)}, bias {list(b.shape)} and input {list(x.shape)} do not match"
        )
    sh, sw = params.stride_h, params.stride_w
    pad_h = transpose_conv_padding(h, kh, sh, params.padding)
    pad_w = transpose_conv_padding(wd, kw, sw, params.padding)
    out_h = transpose_conv_size(h, kh, sh, params.padding)
    out_w = transpose_conv_size(wd, kw, sw, params.padding)
    # Every input pixel's contribution to every tap: [n, h, w, kh, kw, out_c].
    cols = (x.reshape(-1, c) @ w.transpose(1, 2, 3, 0).reshape(-1, in_c, out_c)).reshape(
        kh, kw, n, h, wd, out_c
    )
    full = np.zeros((n, (h - 1) * sh + kh, (wd - 1) * sw + kw, out_c), np.float32)
    for fy in range(kh):
        for fx in range(kw):
            full[:, fy : fy + (h - 1) * sh + 1 : sh, fx : fx + (wd - 1) * sw + 1 : sw] += cols[
                fy, fx
            ]
    top, left = pad_h // 2, pad_w // 2
    out = full[:, top : top + out_h, left : left + out_w] + b
    return np.ascontiguousarray(out, np.float32)


@kernel("CUSTOM(MaxPoolingWithArgmax2D)", real_valued=True)
def max_pooling_with_argmax_2d(op, args, ctx):
    """Outputs (max, index): the maximum of each window (padding never counts) after the
    fused activation's clamp, and its position in the window ``fy * filter_w + fx + 0.1``
    as float32. The first maximum in row-major window order wins a tie; a window without a
    value above float32's lowest gives that lowest value and position 0."""
    (x,) = args
    x = _float4(x, "input")
    p = pool_params(op)
    n, h, w, c = x.shape
    out_h = pool_size(h, p.filter_h, p.stride_h, p.padding)
    out_w = pool_size(w, p.filter_w, p.stride_w, p.padding)
    if out_h < 1 or out_w < 1:
        raise ValueError(f"the window does not fit the input ({h}, {w})")
    top = pool_padding(p.stride_h, h, p.filter_h, out_h)
    left = pool_padding(p.stride_w, w, p.filter_w, out_w)
    span_h, span_w = (out_h - 1) * p.stride_h + p.filter_h, (out_w - 1) * p.stride_w + p.filter_w
    # -inf padding never beats the starting value (float32 lowest), as positions outside
    # the input are never visited in MediaPipe's loop.
    padded = np.full((n, max(span_h, top + h), max(span_w, left + w), c), -np.inf, np.float32)
    padded[:, top : top + h, left : left + w] = x
    best = np.full((n, out_h, out_w, c), np.finfo(np.float32).min, np.float32)
    where = np.zeros(best.shape, np.int32)
    for fy in range(p.filter_h):
        for fx in range(p.filter_w):
            tap = padded[
                :,
                fy : fy + (out_h - 1) * p.stride_h + 1 : p.stride_h,
                fx : fx + (out_w - 1) * p.stride_w + 1 : p.stride_w,
            ]
            take = tap > best
            best = np.where(take, tap, best)
            where = np.where(take, fy * p.filter_w + fx, where)
    index = where.astype(np.float32) + np.float32(0.1)
    return p.clamp(best), index


@kernel("CUSTOM(MaxUnpooling2D)", real_valued=True)
def max_unpooling_2d(op, args, ctx):
    """Inputs (values, indices): output [n, h * filter_h, w * filter_w, c] of zeros where
    each value goes to ``in * stride - pad + position`` of its window, the position being
    its index truncated to an integer (``fy * filter_w + fx``) and ``pad`` TFLite's
    ComputePadding from the output size back to the input size. Later inputs (row-major)
    overwrite earlier ones; a position falling outside the output is dropped (MediaPipe
    writes out of bounds there)."""
    x, indices = args
    x = _float4(x, "input")
    indices = _float4(indices, "indices")
    if indices.shape != x.shape:
        raise ValueError(f"indices {list(indices.shape)} differ from input {list(x.shape)}")
    p = pool_params(op)
    n, h, w, c = x.shape
    out_h, out_w = h * p.filter_h, w * p.filter_w
    top = pool_padding(p.stride_h, out_h, p.filter_h, h)
    left = pool_padding(p.stride_w, out_w, p.filter_w, w)
    finite = np.isfinite(indices)
    idx = np.trunc(np.where(finite, indices, 0)).astype(np.int64)
    fx = np.fmod(idx, p.filter_w)  # C++ % and / truncate toward zero
    fy = (idx - fx) // p.filter_w
    ys = np.arange(h).reshape(1, h, 1, 1) * p.stride_h - top + fy
    xs = np.arange(w).reshape(1, 1, w, 1) * p.stride_w - left + fx
    keep = finite & (ys >= 0) & (ys < out_h) & (xs >= 0) & (xs < out_w)
    bs = np.broadcast_to(np.arange(n).reshape(n, 1, 1, 1), x.shape)
    cs = np.broadcast_to(np.arange(c).reshape(1, 1, 1, c), x.shape)
    out = np.zeros((n, out_h, out_w, c), np.float32)
    # Assignment through repeated indices keeps the last value: the C++ loop order.
    out[bs[keep], ys[keep], xs[keep], cs[keep]] = x[keep]
    return out
