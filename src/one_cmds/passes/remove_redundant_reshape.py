"""``remove_redundant_reshape`` (optimization.md §5.10): ``Reshape(Reshape(x, s1), s2)``
becomes ``Reshape(x, s2)``, unconditionally (the inner Reshape stays for other users). The
new Reshape's origin is the union of both (circle-format-and-metadata.md §9)."""

from __future__ import annotations

from . import graph_pass
from .toolkit import GraphEditor, origin_of


@graph_pass("remove_redundant_reshape")
def remove_redundant_reshape(g: GraphEditor) -> int:
    rewrites = 0
    for outer in g.ops("RESHAPE"):
        inner = g.producer_of(outer.inputs[0], "RESHAPE")
        if inner is None:
            continue
        g.replace_with(
            outer,
            "RESHAPE",
            [inner.inputs[0], *outer.inputs[1:]],
            outer.options,
            origin=origin_of(inner, outer),
        )
        rewrites += 1
    return rewrites
