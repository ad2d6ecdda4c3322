"""``fuse_batchnorm_with_tconv`` (optimization.md §5.3): ``Add(Mul(TransposeConv(s, W, x, b),
scale), shift)``, commutative, becomes one TransposeConv with ``W'[o] = W[o]·scale[o]``,
``b' = shift + b·scale`` (``shift`` without a bias) and no activation; a RELU or RELU6 of the
Add follows as its own operator with the Add's origin.

Conditions: TransposeConv without activation, W constant float32 rank 4 (OHWI), bias absent
or constant float32 shaped ``[..., O]`` with leading ones; scale and shift constant of rank 1
or 4 shaped ``[O]``/``[1,1,1,O]`` (or, adopted beyond §5.3, one value each); Mul and Add
float32; Add with NONE, RELU or RELU6.
Reference: takes a non-constant bias for an absent one (dropping it) and does not look at
the Mul's activation; here a non-constant bias or a Mul with an activation does not match.
"""

from __future__ import annotations

from . import graph_pass
from .toolkit import GraphEditor, activation, channel_vector, const_value, origin_of
from .toolkit.batchnorm import (
    TCONV_ADD_ACTIVATIONS,
    batchnorms_after,
    replace_by_tconv,
    scale_shift,
)


@graph_pass("fuse_batchnorm_with_tconv", exact=False)
def fuse_batchnorm_with_tconv(g: GraphEditor) -> int:
    rewrites = 0
    for found, tconv in batchnorms_after(g, "TRANSPOSE_CONV"):
        add = found.add
        if activation(add) not in TCONV_ADD_ACTIVATIONS:
            continue
        shape, w, x, *rest = tconv.inputs
        b = rest[0] if rest else None
        weights = const_value(w)
        if weights is None or w.dtype != "FLOAT32" or weights.ndim != 4:
            continue
        channels = weights.shape[0]
        vectors = scale_shift(found, channels)
        bias = channel_vector(b, channels, ranks=(1, 2, 3, 4)) if b is not None else 0.0
        if vectors is None or bias is None or (b is not None and b.dtype != "FLOAT32"):
            continue
        scale, shift = vectors
        fused_w = g.const(f"{w.name}/fused_bn", weights * scale.reshape(-1, 1, 1, 1))
        fused_b = g.const(f"{add.outputs[0].name}/TransposeConv/bias", shift + bias * scale)
        origin = origin_of(add, found.mul, tconv)
        replace_by_tconv(g, add, tconv, [shape, fused_w, x, fused_b], origin)
        rewrites += 1
    return rewrites
