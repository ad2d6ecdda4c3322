"""``fuse_mean_with_mean`` (optimization.md §5.22): ``Mean(Mean(x, a1), a2)`` becomes one
``Mean(x, a1 ∪ a2')`` with the second Mean's keep_dims, a2' being a2 in x's axis numbering.

Conditions: x FLOAT32 of rank ≥ 2; both axis operands constant INT32; the first Mean's only
use is the second; both Means have the same keep_dims. With keep_dims the axes of both Means
already count x's axes; without it, each axis k of the second Mean counts the axes the first
left, so ``a2' = remaining[k]``.

Reference (older versions, as in §5.22): one axis each, ``axis2 += 1`` when
``axis1 ≤ axis2`` and keep_dims is false, no keep_dims check — a first and a second Mean
with different keep_dims fuse into a result of another rank; newer versions require equal
keep_dims but also map the second axes through the remaining axes when keep_dims is true
(wrong). **Adopted:** any number of axes, negative axes normalized, equal keep_dims, the
mapping above; FLOAT32 only, as integer Means truncate at each step. ``exact=False``: one
Mean sums in another order than two.
"""

from __future__ import annotations

from . import graph_pass
from .toolkit import GraphEditor, origin_of
from .toolkit.build import axes_const
from .toolkit.match import keep_dims, reduction_axes


@graph_pass("fuse_mean_with_mean", exact=False)
def fuse_mean_with_mean(g: GraphEditor) -> int:
    rewrites = 0
    for second in g.ops("MEAN"):
        first = g.producer_of(second.inputs[0], "MEAN")
        if first is None or not g.only_use_is(first.outputs[0], second):
            continue
        x = first.inputs[0]
        rank, keep = len(x.shape), keep_dims(first)
        if rank < 2 or x.dtype != "FLOAT32" or keep != keep_dims(second):
            continue
        axes1 = reduction_axes(first.inputs[1], rank)
        if axes1 is None:
            continue
        remaining = list(range(rank)) if keep else [a for a in range(rank) if a not in axes1]
        axes2 = reduction_axes(second.inputs[1], len(remaining))
        if axes2 is None:
            continue
        merged = sorted(axes1 | {remaining[a] for a in axes2})
        axes = axes_const(g, f"{second.inputs[1].name}/merged", merged)
        g.replace_with(second, "MEAN", [x, axes], second.options, origin=origin_of(first, second))
        rewrites += 1
    return rewrites
