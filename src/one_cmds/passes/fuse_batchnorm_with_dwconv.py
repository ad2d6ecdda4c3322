"""``fuse_batchnorm_with_dwconv`` (optimization.md §5.2): ``Add(Mul(DepthwiseConv2D(x, W, b),
scale), shift)``, commutative, becomes one DepthwiseConv2D with ``W'[0,h,w,c] =
W[0,h,w,c]·scale[c]``, ``b' = b·scale + shift`` and the Add's activation.

Conditions: scale and shift constant, shaped ``[C]`` or ``[1,1,1,C]`` (or, adopted beyond
§5.2, one value each); Mul and Add float32;
Mul without activation, Add with NONE or RELU6; W constant float32 ``[1,H,W,C]``; the
DepthwiseConv2D without activation, with depth multiplier 1 and a constant float32 bias
``[C]``. Reference: also fires for a multiplier M > 1, scaling the filter by
``scale[c // M]`` and computing only ``C/M`` biases; **adopted** here: M = 1 only.
"""

from __future__ import annotations

from . import graph_pass
from .toolkit import NONE, RELU6, GraphEditor, activation, const_value, origin_of, with_options
from .toolkit.batchnorm import batchnorms_after, scale_shift


@graph_pass("fuse_batchnorm_with_dwconv", exact=False)
def fuse_batchnorm_with_dwconv(g: GraphEditor) -> int:
    rewrites = 0
    for found, dwconv in batchnorms_after(g, "DEPTHWISE_CONV_2D"):
        add = found.add
        if activation(add) not in (NONE, RELU6) or dwconv.options.depthMultiplier != 1:
            continue
        x, w, *rest = dwconv.inputs
        b = rest[0] if rest else None
        weights, bias = const_value(w), const_value(b)
        if weights is None or bias is None or w.dtype != "FLOAT32" or b.dtype != "FLOAT32":
            continue
        if weights.ndim != 4 or weights.shape[0] != 1:
            continue
        channels = weights.shape[3]
        vectors = scale_shift(found, channels)
        if vectors is None or bias.shape != (channels,):
            continue
        scale, shift = vectors
        fused_w = g.const(f"{w.name}/fused_bn", weights * scale)
        fused_b = g.const(f"{b.name}/fused_bn", bias * scale + shift)
        options = with_options(dwconv.options, fusedActivationFunction=activation(add))
        g.replace_with(
            add,
            "DEPTHWISE_CONV_2D",
            [x, fused_w, fused_b],
            options,
            origin=origin_of(dwconv, found.mul, add),
        )
        rewrites += 1
    return rewrites
