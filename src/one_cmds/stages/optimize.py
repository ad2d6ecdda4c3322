"""The ``one-optimize`` step: run the enabled passes on the in-memory model."""

from __future__ import annotations

from typing import Any

from ..errors import StageError
from ..ir import Model
from ..passes import PASSES


def optimize(model: Model, options: Any) -> Model:
    """Apply ``change_outputs`` and the enabled passes (each must be implemented)."""
    missing = [name for name in options.enabled_passes if name not in PASSES]
    if missing:
        raise StageError(f"the following passes are not implemented: {' '.join(missing)}")
    if options.change_outputs:
        change_outputs(model, options.change_outputs)
    for name in options.enabled_passes:
        PASSES[name](model)
    return model


def change_outputs(model: Model, names: list[str]) -> None:
    """Make the named tensors the outputs of subgraph 0 (``Change outputs failed`` if unknown)."""
    graph = model.main
    by_name = {t.name: t for t in graph.referenced_tensors()}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise StageError(f"Change outputs failed (unknown tensor: {', '.join(unknown)})")
    graph.outputs = [by_name[n] for n in names]
    for signature in model.signature_defs:
        if signature.graph_index == 0:
            signature.outputs = [(t.name, t) for t in graph.outputs]
    graph.remove_dead_operators()
