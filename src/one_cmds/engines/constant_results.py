"""Results of operators whose inputs are all constants (fp16 weights dequantized, shapes
computed from constants), by the reference kernels: LiteRT's delegates read such operators'
inputs directly and leave their results unwritten, so a caller that wants those tensors'
values from a LiteRT run takes them from here."""

from __future__ import annotations

import numpy as np

from ..interp import InterpreterError, RunContext, evaluate, load_kernels
from ..ir import Model


def constant_results(model: Model, wanted: set[int]) -> dict[int, np.ndarray]:
    """The values of the ``wanted`` tensors (by ``id``) of subgraph 0 that operators on
    constants only produce; an operator the reference kernels cannot evaluate is left out."""
    values: dict[int, np.ndarray] = {}
    context = RunContext(model)
    load_kernels()
    for op in model.main.operators:
        if not all(t is None or t.is_constant or id(t) in values for t in op.inputs):
            continue
        args = [None if t is None else values.get(id(t), t.data) for t in op.inputs]
        try:
            results = evaluate(op, args, context)
        except InterpreterError:
            continue
        values.update((id(t), r) for t, r in zip(op.outputs, results, strict=True))
    return {k: v for k, v in values.items() if k in wanted}
