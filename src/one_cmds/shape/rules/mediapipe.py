"""MediaPipe's custom operators (mediapipe/util/tflite/operations): output shapes as their
``Prepare`` functions compute them, batch taken from the first input (MediaPipe's models
have batch 1; a batch of stacked records keeps one result per record)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from ...interp.kernels.mediapipe_options import (
    bilinear_output_hw,
    pool_params,
    pool_size,
    transpose_conv_params,
    transpose_conv_size,
)
from ..common import require_rank
from ..registry import ShapeError, rule

T = TypeVar("T")


def _options(read: Callable[[], T]) -> T:
    """The parsed options; a parse failure is the operator's shape error."""
    try:
        return read()
    except ValueError as e:
        raise ShapeError(str(e)) from None


def _axis(size: int | None, fn: Callable[[int], int]) -> int | None:
    return None if size is None else fn(size)


@rule("CUSTOM(Convolution2DTransposeBias)")
def convolution_2d_transpose_bias(op, ctx):
    """Inputs (input, filter [O, kh, kw, I], bias): [n, s (h - 1) + kh - pad, ..., O]."""
    n, h, w, _ = require_rank(ctx, 0, 4)
    out_c, kh, kw, _ = require_rank(ctx, 1, 4)
    p = _options(lambda: transpose_conv_params(op))
    if kh is None or kw is None:
        return [((n, None, None, out_c), "FLOAT32")]
    out_h = _axis(h, lambda v: transpose_conv_size(v, kh, p.stride_h, p.padding))
    out_w = _axis(w, lambda v: transpose_conv_size(v, kw, p.stride_w, p.padding))
    return [((n, out_h, out_w, out_c), "FLOAT32")]


@rule("CUSTOM(MaxPoolingWithArgmax2D)")
def max_pooling_with_argmax_2d(op, ctx):
    """Two FLOAT32 outputs (max, index) of the pooled shape (SAME or VALID window)."""
    n, h, w, c = require_rank(ctx, 0, 4)
    p = _options(lambda: pool_params(op))
    out_h = _options(lambda: _axis(h, lambda v: pool_size(v, p.filter_h, p.stride_h, p.padding)))
    out_w = _options(lambda: _axis(w, lambda v: pool_size(v, p.filter_w, p.stride_w, p.padding)))
    if (out_h is not None and out_h < 1) or (out_w is not None and out_w < 1):
        raise ShapeError(f"the {p.filter_h}x{p.filter_w} window does not fit the input")
    shape = (n, out_h, out_w, c)
    return [(shape, "FLOAT32"), (shape, "FLOAT32")]


@rule("CUSTOM(MaxUnpooling2D)")
def max_unpooling_2d(op, ctx):
    """Inputs (values, indices): [n, h * filter_h, w * filter_w, c]."""
    n, h, w, c = require_rank(ctx, 0, 4)
    require_rank(ctx, 1, 4)
    p = _options(lambda: pool_params(op))
    return [((n, _axis(h, p.filter_h.__mul__), _axis(w, p.filter_w.__mul__), c), "FLOAT32")]


@rule("CUSTOM(Landmarks2TransformMatrix)")
def landmarks_to_transform_matrix(op, ctx):
    """One 4x4 matrix per batch element: [b, 4, 4]."""
    shape = require_rank(ctx, 0, 3 if op.version == 2 else 4)
    return [((shape[0], 4, 4), "FLOAT32")]


@rule("CUSTOM(TransformLandmarks)")
def transform_landmarks(op, ctx):
    """Inputs (landmarks, matrix): the landmarks' shape."""
    shape = require_rank(ctx, 0, 3 if op.version == 2 else 4)
    return [(shape, "FLOAT32")]


@rule("CUSTOM(TransformTensorBilinear)", "CUSTOM(TransformTensor)")
def transform_tensor_bilinear(op, ctx):
    """Inputs (image [n, h, w, c], matrix): [n, out_h, out_w, c], the size from the options,
    else the declared output's."""
    n, _, _, c = require_rank(ctx, 0, 4)
    size = _options(lambda: bilinear_output_hw(op))
    if size is None:
        declared = op.outputs[0].shape
        size = tuple(declared[1:3]) if len(declared) == 4 else (None, None)
    return [((n, *size, c), "FLOAT32")]
