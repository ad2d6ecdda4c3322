"""``fold_gather`` (optimization.md §5.21): Gather of constant params and indices (the
reference: INT32/INT64 params only)."""

from __future__ import annotations

from .. import graph_pass
from ..toolkit import GraphEditor, fold_all


@graph_pass("fold_gather")
def fold_gather(g: GraphEditor) -> int:
    return fold_all(g, "GATHER", lambda op: True)
