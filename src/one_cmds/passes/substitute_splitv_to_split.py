"""``substitute_splitv_to_split`` (reference SubstituteSplitVToSplitPass): a SPLIT_V whose
constant ``size_splits`` has ``num_splits`` equal entries becomes ``Split(axis, x)`` with the
same number of splits. Origin: a copy of the SplitV's."""

from __future__ import annotations

from . import graph_pass
from .toolkit import GraphEditor, new_options
from .toolkit.layout import const_ints


@graph_pass("substitute_splitv_to_split")
def substitute_splitv_to_split(g: GraphEditor) -> int:
    rewrites = 0
    for split_v in g.ops("SPLIT_V"):
        x, size_splits, axis = split_v.inputs[:3]
        sizes = const_ints(size_splits)
        count = split_v.options.numSplits if split_v.options is not None else 0
        if sizes is None or count < 1 or len(sizes) != count or len(split_v.outputs) != count:
            continue
        if len(set(sizes)) != 1 or (count > 1 and sizes[0] < 0):
            continue
        options = new_options("SplitOptions", numSplits=count)
        split = g.op("SPLIT", [axis, x], options, origin=split_v.origin, like=split_v.outputs)
        g.replace_op(split_v, split)
        rewrites += 1
    return rewrites
