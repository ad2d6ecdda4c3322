"""Calibration (record-minmax, quantization.md §3): run the float model on every record in
the interpreter and keep, per observed tensor, the minimum and maximum of each record.

Records run ``BATCH`` at a time on a copy of the model whose batch dimension is ``BATCH``
(shapes re-inferred), each row's minimum and maximum taken separately, so the ranges are
those of one-by-one runs while the kernels work on whole batches. A model that cannot be
batched (an input whose first dimension is not 1, a tensor whose first dimension does not
follow the batch, shapes that cannot be re-inferred) runs record by record.

With ``engine`` ``auto`` or ``litert`` the records run one by one in LiteRT (XNNPACK), the
observed tensors made extra outputs of the model it runs (:mod:`one_cmds.engines.litert`).

Observed: the graph inputs and every operator result of subgraph 0 that is float32 and not
a constant; results of ARG_MAX and of boolean operators are not. Other non-float tensors are
skipped (**adopted**; the reference stops on them). NaN is ignored; a tensor that is all NaN
in a record is an error naming it.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

import numpy as np

from ..engines.choice import litert_runner
from ..engines.litert import LiteRTRunner
from ..interp import Interpreter, InterpreterError, RunContext, evaluate, load_kernels
from ..interp.heap import reused_heap
from ..ir import Model, QuantParam, Tensor
from ..shape import ShapeInferenceError, infer_shapes
from .data import Record
from .errors import QuantizeError
from .options import CalibrationOptions
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

    def add(self, t: Tensor, value: np.ndarray, rows: int = 0) -> None:
        """One record's value of ``t``, or ``rows`` records stacked on the first axis."""
        per_row = value.reshape(rows or 1, -1)
        lo, hi = per_row.min(axis=1), per_row.max(axis=1)
        if np.isnan(lo).any() or np.isnan(hi).any():  # rare: the NaN-skipping pass
            empty = np.all(np.isnan(per_row), axis=1)
            if np.any(empty):
                record = self.records + int(np.argmax(empty))
                raise QuantizeError(f"tensor '{t.name}' holds only NaN in record {record}")
            lo, hi = np.nanmin(per_row, axis=1), np.nanmax(per_row, axis=1)
        self.tensors[id(t)] = t
        self.mins.setdefault(id(t), []).extend(lo.tolist())
        self.maxs.setdefault(id(t), []).extend(hi.tolist())


def observed(model: Model) -> set[int]:
    """The ids of the tensors calibration records."""
    graph = model.main
    chosen = {id(t) for t in graph.inputs if t.dtype == "FLOAT32" and not t.is_constant}
    for op in graph.operators:
        if op.opcode in UNOBSERVED_OPS:
            continue
        chosen.update(id(t) for t in op.outputs if t.dtype == "FLOAT32" and not t.is_constant)
    return chosen


BATCH = 16


def record_minmax(
    model: Model,
    data: Iterable[Record],
    *,
    batch: int = BATCH,
    note: Callable[[str], None] | None = None,
    engine: str = "auto",
) -> MinMax:
    """Run ``model`` on every record and collect the per-record ranges (``note`` hears how
    the records are run). ``engine`` chooses LiteRT or the reference interpreter
    (:mod:`one_cmds.engines.choice`); the ranges are the same within float rounding."""
    wanted = observed(model)
    result = MinMax()
    tensors = [t for t in model.main.referenced_tensors() if id(t) in wanted]
    fixed = {} if engine == "reference" else _of_constants(model, wanted)
    runner = litert_runner(model, engine, [t for t in tensors if id(t) not in fixed], note)
    if runner is not None:
        _run_on_litert(runner, iter(data), tensors, fixed, result)
        return _checked(result)
    batched = _batched(model, wanted, batch) if batch > 1 else None
    if note is not None:
        note(f"calibration: {batch} records per run" if batched else "calibration: one by one")
    with reused_heap():
        _run_records(model, iter(data), batched, batch, wanted, result)
    return _checked(result)


def _checked(result: MinMax) -> MinMax:
    if result.records == 0:
        raise QuantizeError("no calibration records")
    return result


def _of_constants(model: Model, wanted: set[int]) -> dict[int, np.ndarray]:
    """The observed results of operators on constants only (fp16 weights dequantized), by
    the reference kernels: LiteRT's delegates read such operators' inputs directly and leave
    the results unwritten."""
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


def _run_on_litert(
    runner: LiteRTRunner,
    records: Iterator[Record],
    tensors: list[Tensor],
    fixed: dict[int, np.ndarray],
    result: MinMax,
) -> None:
    """Every record in LiteRT, the observed tensors read from its outputs (those of
    operators on constants given in ``fixed``)."""
    inputs = runner.model.main.inputs
    for record in records:
        outputs, extra = runner.run(record, views=True)
        values = dict(fixed)
        values.update((id(t), np.asarray(v)) for t, v in zip(inputs, record, strict=True))
        values.update((id(t), v) for t, v in zip(runner.model.main.outputs, outputs, strict=True))
        values.update((id(t), v) for t, v in zip(runner.extra, extra, strict=True))
        for t in tensors:
            result.add(t, values[id(t)])
        result.records += 1
        del outputs, extra, values  # LiteRT refuses to run while its buffers are viewed


def _run_records(
    model: Model,
    records_left: Iterator[Record],
    batched: tuple[Model, dict[int, Tensor]] | None,
    batch: int,
    wanted: set[int],
    result: MinMax,
) -> None:
    """Run the records ``batch`` at a time on the batched copy, the rest one by one."""
    if batched is not None:
        interpreter, originals = Interpreter(batched[0], records=True), batched[1]
        while group := list(itertools.islice(records_left, batch)):
            if len(group) < batch:
                records_left = iter(group)
                break
            stacked = [np.concatenate(values) for values in zip(*group, strict=True)]
            _run(interpreter, stacked, wanted, result, originals, batch)
    single = Interpreter(model)
    for record in records_left:
        _run(single, record, wanted, result, None, 0)


def _run(
    interpreter: Interpreter,
    inputs: list[np.ndarray],
    wanted: set[int],
    result: MinMax,
    originals: dict[int, Tensor] | None,
    rows: int,
) -> None:
    """One run; values are credited to the original model's tensors."""

    def observe(t: Tensor, value: np.ndarray) -> None:
        original = t if originals is None else originals.get(id(t))
        if original is not None and id(original) in wanted:
            result.add(original, value, rows)

    for t, value in zip(interpreter.model.main.inputs, inputs, strict=True):
        observe(t, np.asarray(value))
    interpreter.run(inputs, observer=observe)
    result.records += rows or 1


def _batched(model: Model, wanted: set[int], batch: int) -> tuple[Model, dict[int, Tensor]] | None:
    """A copy of ``model`` with batch ``batch`` and its tensors' originals, or None."""
    inputs = model.main.inputs
    if not inputs or any(not t.shape or t.shape[0] != 1 or not t.is_static for t in inputs):
        return None
    copy = model.copy()
    for t in copy.main.inputs:
        t.shape = (batch, *t.shape[1:])
    try:
        infer_shapes(copy)
    except ShapeInferenceError:
        return None
    pairs = list(zip(copy.main.referenced_tensors(), model.main.referenced_tensors(), strict=True))
    for new, old in pairs:
        if id(old) in wanted and (old.shape[:1] != (1,) or new.shape != (batch, *old.shape[1:])):
            return None
    return copy, {id(new): old for new, old in pairs}


def store_ranges(minmax: MinMax, options: CalibrationOptions) -> None:
    """Give every observed tensor a per-tensor qparam holding only its range (§3.3)."""
    for key, t in minmax.tensors.items():
        lo, hi = final_range(minmax.mins[key], minmax.maxs[key], options)
        t.quant = QuantParam(min=np.array([lo], np.float32), max=np.array([hi], np.float32))
