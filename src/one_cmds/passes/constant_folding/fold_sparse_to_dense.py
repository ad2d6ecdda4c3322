"""``fold_sparse_to_dense`` (optimization.md §5.21): SparseToDense with constant indices,
shape, values and default (the reference folds only empty indices with INT64 values)."""

from __future__ import annotations

from .. import graph_pass
from ..toolkit import GraphEditor, fold_all


@graph_pass("fold_sparse_to_dense")
def fold_sparse_to_dense(g: GraphEditor) -> int:
    return fold_all(g, "SPARSE_TO_DENSE", lambda op: True)
