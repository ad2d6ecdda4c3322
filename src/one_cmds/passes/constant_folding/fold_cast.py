"""``fold_cast`` (optimization.md §5.21): Cast of an INT64 constant to INT32 (plain
conversion, as the kernel and LiteRT do; the reference saturates out-of-range values
instead)."""

from __future__ import annotations

from .. import graph_pass
from ..toolkit import GraphEditor, fold_all


@graph_pass("fold_cast")
def fold_cast(g: GraphEditor) -> int:
    return fold_all(
        g, "CAST", lambda op: op.inputs[0].dtype == "INT64" and op.outputs[0].dtype == "INT32"
    )
