"""``fuse_batchnorm_with_conv`` (optimization.md §5.1): ``Add(Mul(Conv2D(x, W, b), scale),
shift)`` becomes one Conv2D with ``W' = W·scale[o]``, ``b' = b·scale + shift`` and the Add's
activation."""

from __future__ import annotations

from . import graph_pass
from .toolkit import (
    NONE,
    GraphEditor,
    activation,
    channel_vector,
    const_value,
    is_float32,
    origin_of,
    split_const,
    with_options,
)


@graph_pass("fuse_batchnorm_with_conv", exact=False)
def fuse_batchnorm_with_conv(g: GraphEditor) -> int:
    rewrites = 0
    for add in g.ops("ADD"):
        shift_side = split_const(add)
        mul = g.producer_of(shift_side[0], "MUL") if shift_side else None
        scale_side = split_const(mul) if mul is not None else None
        conv = g.producer_of(scale_side[0], "CONV_2D") if scale_side else None
        if conv is None or activation(mul) != NONE or activation(conv) != NONE:
            continue
        x, w, b = conv.inputs[:3]
        weights, bias = const_value(w), const_value(b)
        if weights is None or bias is None or not is_float32(w, scale_side[1], shift_side[1]):
            continue
        channels = weights.shape[0]
        scale = channel_vector(scale_side[1], channels, ranks=(4,))
        shift = channel_vector(shift_side[1], channels, ranks=(4,))
        if scale is None or shift is None or bias.shape != (channels,):
            continue
        fused_w = g.const(f"{w.name}/fused_bn", weights * scale.reshape(-1, 1, 1, 1))
        fused_b = g.const(f"{b.name}/fused_bn", bias * scale + shift, b.dtype)
        options = with_options(conv.options, fusedActivationFunction=activation(add))
        new = g.op(
            "CONV_2D",
            [x, fused_w, fused_b],
            options,
            origin=origin_of(conv, mul, add),
            like=add.outputs[0],
        )
        g.replace(add.outputs[0], new.outputs[0])
        rewrites += 1
    return rewrites
