"""``fold_densify`` (optimization.md §5.21): Densify of a sparse constant."""

from __future__ import annotations

from .. import graph_pass
from ..toolkit import GraphEditor, fold_all


@graph_pass("fold_densify")
def fold_densify(g: GraphEditor) -> int:
    return fold_all(g, "DENSIFY", lambda op: op.inputs[0].sparsity is not None)
