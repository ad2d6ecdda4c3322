"""The values of chosen tensors of subgraph 0, run by run, from the engine ``engine`` chooses:
LiteRT with the tensors made extra outputs (results of operators on constants by the
reference kernels, :mod:`.constant_results`), else the reference interpreter's ``run_all``.
The per-layer error report reads the float model's side from here."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from ..interp import Interpreter
from ..interp.interpreter import arrange_inputs
from ..ir import Model, Tensor
from .choice import litert_runner
from .constant_results import constant_results


class TensorValues:
    """``run(inputs)`` gives, by name, the values of ``tensors`` (and of the graph's inputs and
    outputs) in one run of ``model``."""

    def __init__(
        self,
        model: Model,
        tensors: Sequence[Tensor],
        engine: str = "auto",
        note: Callable[[str], None] | None = None,
    ) -> None:
        self.model = model
        graph = model.main
        wanted = {id(t) for t in tensors}
        self._fixed = {} if engine == "reference" else constant_results(model, wanted)
        inputs = {id(t) for t in graph.inputs}
        extra = [t for t in tensors if id(t) not in self._fixed and id(t) not in inputs]
        self._litert = litert_runner(model, engine, extra, note)
        self._reference = Interpreter(model) if self._litert is None else None

    def run(self, inputs: Sequence[np.ndarray] | Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        if self._reference is not None:
            return self._reference.run_all(inputs)
        assert self._litert is not None
        graph = self.model.main
        outputs, extra = self._litert.run(inputs)
        named = [
            zip(graph.inputs, arrange_inputs(graph, inputs), strict=True),
            zip(graph.outputs, outputs, strict=True),
            zip(self._litert.extra, extra, strict=True),
        ]
        values = {t.name: value for pairs in named for t, value in pairs}
        tensors = {id(t): t for t in graph.referenced_tensors()}
        values.update((tensors[k].name, value) for k, value in self._fixed.items())
        return values
