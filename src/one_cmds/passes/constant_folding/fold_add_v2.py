"""``fold_add_v2`` (optimization.md §5.21): Custom(AddV2) of two INT64 constants of the same
shape."""

from __future__ import annotations

from ...ir import Operator
from .. import graph_pass
from ..toolkit import GraphEditor, fold_all


def _add_v2(op: Operator) -> bool:
    x, y = [*op.inputs, None, None][:2]
    return (
        op.kind == "CUSTOM(AddV2)"
        and len(op.inputs) == 2
        and x is not None
        and y is not None
        and x.dtype == y.dtype == op.outputs[0].dtype == "INT64"
        and x.shape == y.shape
    )


@graph_pass("fold_add_v2")
def fold_add_v2(g: GraphEditor) -> int:
    return fold_all(g, "CUSTOM", _add_v2)
