"""``fuse_transpose_with_mean`` (reference ``FuseTransposeWithMeanPass.cpp``):
``Mean(Transpose(x, perm), axes, keep_dims=False)`` becomes ``Mean(x, {perm[a] : a ∈ axes})``
when the axes the Mean keeps stay in x's order (``perm`` restricted to the kept positions is
increasing), so no Transpose is needed after the reduction.

Conditions: constant INT32 perm (a permutation) and axes; keep_dims false. The Transpose stays
for its other users. Reference: reads the axes as given, so a negative or repeated axis leaves
the new axis list short (an assertion); **Adopted:** axes normalized and de-duplicated.
``exact=False``: the reduction sums in x's order instead of the transposed one.
"""

from __future__ import annotations

from . import graph_pass
from .toolkit import GraphEditor, const_value, origin_of
from .toolkit.build import axes_const
from .toolkit.match import keep_dims, reduction_axes


@graph_pass("fuse_transpose_with_mean", exact=False)
def fuse_transpose_with_mean(g: GraphEditor) -> int:
    rewrites = 0
    for mean in g.ops("MEAN"):
        transpose = g.producer_of(mean.inputs[0], "TRANSPOSE")
        perm = const_value(transpose.inputs[1]) if transpose is not None else None
        if perm is None or transpose.inputs[1].dtype != "INT32" or keep_dims(mean):
            continue
        perm = [int(p) for p in perm.reshape(-1)]
        axes = reduction_axes(mean.inputs[1], len(perm))
        if axes is None or sorted(perm) != list(range(len(perm))):
            continue
        kept = [p for i, p in enumerate(perm) if i not in axes]
        if kept != sorted(kept):
            continue
        reduced = axes_const(g, f"{mean.inputs[1].name}_fused", sorted(perm[a] for a in axes))
        g.replace_with(
            mean,
            "MEAN",
            [transpose.inputs[0], reduced],
            mean.options,
            origin=origin_of(mean, transpose),
        )
        rewrites += 1
    return rewrites
