"""Convolutions, pooling and image resizing on NHWC tensors."""

from __future__ import annotations

from ..common import int_list, option, require_rank, shape_operand, window_output
from ..registry import ShapeError, rule


def _spatial(op, size, window, dilated):
    """(height, width) of the output of a (kh, kw) window, per the operator's options."""
    padding = option(op, "padding", 0)
    return tuple(
        window_output(
            size[axis],
            window[axis],
            option(op, f"stride{hw}", 1),
            option(op, f"dilation{hw}Factor", 1) if dilated else 1,
            padding,
        )
        for axis, hw in enumerate("HW")
    )


@rule("CONV_2D")
def conv_2d(op, ctx):
    """Filter [out_channels, kh, kw, in_channels]."""
    n, h, w, _ = require_rank(ctx, 0, 4)
    filt = require_rank(ctx, 1, 4)
    return [((n, *_spatial(op, (h, w), filt[1:3], True), filt[0]), ctx.dtype(0))]


@rule("DEPTHWISE_CONV_2D")
def depthwise_conv_2d(op, ctx):
    """Filter [1, kh, kw, channels * depth_multiplier]."""
    n, h, w, _ = require_rank(ctx, 0, 4)
    filt = require_rank(ctx, 1, 4)
    return [((n, *_spatial(op, (h, w), filt[1:3], True), filt[3]), ctx.dtype(0))]


@rule("AVERAGE_POOL_2D", "MAX_POOL_2D", "L2_POOL_2D")
def pool_2d(op, ctx):
    """Window from the options, no dilation; channels pass through."""
    n, h, w, c = require_rank(ctx, 0, 4)
    window = (option(op, "filterHeight", 1), option(op, "filterWidth", 1))
    return [((n, *_spatial(op, (h, w), window, False), c), ctx.dtype(0))]


@rule("TRANSPOSE_CONV")
def transpose_conv(op, ctx):
    """Inputs (output_shape, filter [out_channels, kh, kw, in_channels], input, bias).

    The output shape is the value of input 0; when it is not known, batch comes from the
    input and channels from the filter.
    """
    n = require_rank(ctx, 2, 4)[0]
    filt = require_rank(ctx, 1, 4)
    target = int_list(ctx.value(0))
    if target is None:
        return [((n, None, None, filt[0]), ctx.dtype(2))]
    if len(target) != 4:
        raise ShapeError(f"output shape has {len(target)} entries, expected 4")
    return [(tuple(target), ctx.dtype(2))]


@rule("RESIZE_BILINEAR", "RESIZE_NEAREST_NEIGHBOR")
def resize_image(op, ctx):
    """Input 1 is the new [height, width]."""
    n, _, _, c = require_rank(ctx, 0, 4)
    size = shape_operand(ctx, 1)
    if len(size) != 2:
        raise ShapeError(f"size has {len(size)} entries, expected 2")
    return [((n, *size, c), ctx.dtype(0))]
