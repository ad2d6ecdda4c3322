"""Calibration (record-minmax, quantization.md §3): run the float model on every record in
the interpreter and keep, per observed tensor, the minimum and maximum of each record.

Observed: the graph inputs and every operator result of subgraph 0 that is float32 and not
a constant; results of ARG_MAX and of boolean operators are not. Other non-float tensors are
skipped (**adopted**; the reference stops on them). NaN is ignored; a tensor that is all NaN
in a record is an error naming it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from ..interp import Interpreter
from ..ir import Model, QuantParam, Tensor
from .data import Record
from .errors import QuantizeError
from .ranges import final_range

UNOBSERVED_OPS = frozenset(
    {
        "ARG_MAX", "GREATER", "GREATER_EQUAL", "LESS", "LESS_EQUAL", "EQUAL", "NOT_EQUAL",
        "LOGICAL_AND", "LOGICAL_OR", "LOGICAL_NOT",
    }
)  # fmt: skip


@dataclass
class MinMax:
    """Per-record minima and maxima of the observed tensors, by tensor."""

    tensors: dict[int, Tensor] = field(default_factory=dict)
    mins: dict[int, list[float]] = field(default_factory=dict)
    maxs: dict[int, list[float]] = field(default_factory=dict)
    records: int = 0

    def add(self, t: Tensor, value: np.ndarray) -> None:
        if not np.any(~np.isnan(value)):
            raise QuantizeError(f"tensor '{t.name}' holds only NaN in record {self.records}")
        self.tensors[id(t)] = t
        self.mins.setdefault(id(t), []).append(float(np.nanmin(value)))
        self.maxs.setdefault(id(t), []).append(float(np.nanmax(value)))


def observed(model: Model) -> set[int]:
    """The ids of the tensors calibration records."""
    graph = model.main
    chosen = {id(t) for t in graph.inputs if t.dtype == "FLOAT32" and not t.is_constant}
    for op in graph.operators:
        if op.opcode in UNOBSERVED_OPS:
            continue
        chosen.update(id(t) for t in op.outputs if t.dtype == "FLOAT32" and not t.is_constant)
    return chosen


def record_minmax(model: Model, data: Iterable[Record]) -> MinMax:
    """Run ``model`` on every record and collect the per-record ranges."""
    interpreter = Interpreter(model)
    wanted = observed(model)
    result = MinMax()

    def observe(t: Tensor, value: np.ndarray) -> None:
        if id(t) in wanted:
            result.add(t, value)

    for record in data:
        for t, value in zip(model.main.inputs, record, strict=True):
            if id(t) in wanted:
                result.add(t, np.asarray(value))
        interpreter.run(record, observer=observe)
        result.records += 1
    if result.records == 0:
        raise QuantizeError("no calibration records")
    return result


def store_ranges(minmax: MinMax, options) -> None:
    """Give every observed tensor a per-tensor qparam holding only its range (§3.3)."""
    for key, t in minmax.tensors.items():
        lo, hi = final_range(minmax.mins[key], minmax.maxs[key], options)
        t.quant = QuantParam(min=np.array([lo], np.float32), max=np.array([hi], np.float32))
