"""``fuse_batchnorm_with_conv`` (optimization.md §5.1): ``Add(Mul(Conv2D(x, W, b), scale),
shift)``, commutative at both levels, becomes one Conv2D with ``W'[o] = W[o]·scale[o]``,
``b' = b·scale + shift`` and the Add's activation.

Conditions: Conv and Mul without activation; W and b constant, W float32 OHWI with
``W.shape[0] == C``, b of shape ``[C]``; scale and shift constant float32 ``[1,1,1,C]``, or
(adopted beyond §5.1) one value each (:func:`~.toolkit.batchnorm.per_channel`). No
single-consumer check: a Conv with other users stays for them.
"""

from __future__ import annotations

from . import graph_pass
from .toolkit import GraphEditor, activation, const_value, origin_of, with_options
from .toolkit.batchnorm import batchnorms_after, per_channel


@graph_pass("fuse_batchnorm_with_conv", exact=False)
def fuse_batchnorm_with_conv(g: GraphEditor) -> int:
    rewrites = 0
    for found, conv in batchnorms_after(g, "CONV_2D"):
        if len(conv.inputs) < 3:
            continue
        x, w, b = conv.inputs[:3]
        weights, bias = const_value(w), const_value(b)
        if weights is None or bias is None or w.dtype != "FLOAT32" or weights.ndim != 4:
            continue
        channels = weights.shape[0]
        scale = per_channel(found.scale, channels, ranks=(4,))
        shift = per_channel(found.shift, channels, ranks=(4,))
        if scale is None or shift is None or bias.shape != (channels,):
            continue
        fused_w = g.const(f"{w.name}/fused_bn", weights * scale.reshape(-1, 1, 1, 1))
        fused_b = g.const(f"{b.name}/fused_bn", bias * scale + shift, b.dtype)
        options = with_options(conv.options, fusedActivationFunction=activation(found.add))
        g.replace_with(
            found.add,
            "CONV_2D",
            [x, fused_w, fused_b],
            options,
            origin=origin_of(conv, found.mul, found.add),
        )
        rewrites += 1
    return rewrites
