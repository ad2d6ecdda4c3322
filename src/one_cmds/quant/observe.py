"""A pass over calibration records that hands chosen tensors' values out (the clip search's
histograms, bias correction's input means): LiteRT returns them as extra outputs, or, where
it cannot run the model, the reference interpreter streams them."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np

from ..engines.choice import litert_runner
from ..interp import Interpreter
from ..ir import Model, Tensor
from .data import Record


def observe_records(
    model: Model,
    tensors: list[Tensor],
    data: Iterable[Record],
    engine: str,
    add: Callable[[Tensor, np.ndarray], None],
    note: Callable[[str], None] | None = None,
) -> set[int]:
    """Run every record, handing each of ``tensors``' values to ``add``; the ids of the
    tensors that got values."""
    seen: set[int] = set()
    runner = litert_runner(model, engine, tensors, note=note)
    wanted = {id(t) for t in tensors}
    interpreter = Interpreter(model) if runner is None else None

    def observe(t: Tensor, value: np.ndarray) -> None:
        if id(t) in wanted:
            add(t, value)
            seen.add(id(t))

    for record in data:
        if runner is None:
            assert interpreter is not None
            inputs = list(record)
            for t, value in zip(model.main.inputs, inputs, strict=True):
                observe(t, value)
            interpreter.run(inputs, observer=observe)
            continue
        _, values = runner.run(record)
        for t, value in zip(runner.extra, values, strict=True):
            observe(t, value)
    return seen
