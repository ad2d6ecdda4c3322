"""``change_outputs`` (optimization.md §4.1 item 2)."""

from __future__ import annotations

from ...errors import StageError
from ...ir import Model


def change_outputs(model: Model, names: list[str]) -> None:
    """Make the named tensors (each produced by an operator of subgraph 0) its outputs."""
    graph = model.main
    produced = {t.name: t for op in graph.operators for t in op.outputs}
    unknown = [n for n in names if n not in produced]
    if unknown:
        raise StageError(f"Change outputs failed (not produced in graph 0: {', '.join(unknown)})")
    graph.outputs = [produced[n] for n in names]
    for signature in model.signature_defs:
        if signature.graph_index == 0:
            signature.outputs = [(t.name, t) for t in graph.outputs]
    graph.remove_dead_operators()
