"""``substitute_pack_to_reshape`` (reference SubstitutePackToReshapePass): a PACK of a single
value x with at most one unknown dimension becomes ``Reshape(x, shape)``, the shape being x's
with a 1 inserted at the (normalized) axis and -1 for the unknown dimension. Origin: a copy
of the Pack's."""

from __future__ import annotations

from . import graph_pass
from .toolkit import GraphEditor
from .toolkit.layout import replace_with_reshape


@graph_pass("substitute_pack_to_reshape")
def substitute_pack_to_reshape(g: GraphEditor) -> int:
    rewrites = 0
    for pack in g.ops("PACK"):
        if len(pack.inputs) != 1 or pack.inputs[0] is None:
            continue
        x = pack.inputs[0]
        if sum(d is None for d in x.shape) > 1:
            continue
        axis = int(getattr(pack.options, "axis", 0))
        if axis < 0:
            axis += len(x.shape) + 1
        if not 0 <= axis <= len(x.shape):
            continue
        dims = [-1 if d is None else d for d in x.shape]
        replace_with_reshape(g, pack, x, [*dims[:axis], 1, *dims[axis:]])
        rewrites += 1
    return rewrites
