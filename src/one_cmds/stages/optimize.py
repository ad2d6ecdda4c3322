"""The ``one-optimize`` step: run the enabled passes on the in-memory model.

Phases (optimization.md §4.1): ``dynamic_batch_to_single_batch`` first, then
``change_outputs``, then the other enabled passes in the option-table order.
"""

from __future__ import annotations

from typing import Any

from ..errors import StageError
from ..ir import Model
from ..passes import load_passes

FIRST = "dynamic_batch_to_single_batch"


def optimize(model: Model, options: Any) -> Model:
    """Apply the enabled passes (each must be implemented) and ``change_outputs``."""
    passes = load_passes()
    enabled = list(options.enabled_passes)
    missing = [name for name in enabled if name not in passes]
    if missing:
        raise StageError(f"the following passes are not implemented: {' '.join(missing)}")
    if FIRST in enabled:
        passes[FIRST](model, options)
    if options.change_outputs:
        change_outputs(model, options.change_outputs)
    for name in enabled:
        if name != FIRST:
            passes[name](model, options)
    return model


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
