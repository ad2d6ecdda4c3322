"""Calibration (record-minmax, quantization.md §3): run the float model on every record in
the interpreter and keep, per observed tensor, the minimum and maximum of each record.

Records run ``BATCH`` at a time on a copy of the model whose batch dimension is ``BATCH``
(shapes re-inferred), each row's minimum and maximum taken separately, so the ranges are
those of one-by-one runs while the kernels work on whole batches. A model that cannot be
batched (an input whose first dimension is not 1, a tensor whose first dimension does not
follow the batch, shapes that cannot be re-inferred) runs record by record.

With ``engine`` ``auto`` or ``litert`` the records run one by one in LiteRT (XNNPACK) on a
copy of the model that reduces every observed tensor to its minimum and maximum
(:mod:`.range_probes`): one interpreter of one LiteRT thread per usable CPU, each thread
taking the next record (a model whose weights pass ``SHARED_WEIGHTS`` bytes runs one
interpreter on every CPU, as XNNPACK packs weights per interpreter). Ranges are merged in
record order, so they do not depend on the number of threads.

With ``workers`` > 1 in a process connected to a Ray cluster (``onecc --ray``), the driver
reads the records once and deals them in chunks to that many actors
(:mod:`one_cmds.engines.ray_calibration`), each running them as this process would with one
interpreter of one LiteRT thread (or the reference interpreter); the per-record ranges come
back in record order, so the ranges are those of a run in one process.

Observed: the graph inputs and every operator result of subgraph 0 that is float32 and not
a constant; results of ARG_MAX and of boolean operators are not. Other non-float tensors are
skipped (**adopted**; the reference stops on them). NaN is ignored; a tensor that is all NaN
in a record is an error naming it.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from types import ModuleType

import numpy as np

from ..engines import ray_cluster
from ..engines.choice import litert_runner
from ..engines.constant_results import constant_results
from ..engines.litert import LiteRTRunner, usable_cpus
from ..engines.ray_calibration import sharded
from ..interp import Interpreter
from ..interp.heap import reused_heap
from ..ir import Model, QuantParam, Tensor
from ..shape import ShapeInferenceError, infer_shapes
from .data import Record
from .errors import QuantizeError
from .options import CalibrationOptions
from .range_probes import with_range_probes
from .ranges import final_ranges

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
        lo, hi = row_ranges(t, value, rows, self.records)
        self.extend(t, lo.tolist(), hi.tolist())

    def extend(self, t: Tensor, lo: list[float], hi: list[float]) -> None:
        """The minima and maxima of ``t`` in the next records."""
        self.tensors[id(t)] = t
        self.mins.setdefault(id(t), []).extend(lo)
        self.maxs.setdefault(id(t), []).extend(hi)


def row_ranges(
    t: Tensor, value: np.ndarray, rows: int, first: int
) -> tuple[np.ndarray, np.ndarray]:
    """Minima and maxima of ``value`` (``t``'s value in record ``first``, or in ``rows``
    records stacked on the first axis), NaN ignored; a record of NaN only is an error."""
    per_row = value.reshape(rows or 1, -1)
    lo, hi = per_row.min(axis=1), per_row.max(axis=1)
    if np.isnan(lo).any() or np.isnan(hi).any():  # rare: the NaN-skipping pass
        empty = np.all(np.isnan(per_row), axis=1)
        if np.any(empty):
            record = first + int(np.argmax(empty))
            raise QuantizeError(f"tensor '{t.name}' holds only NaN in record {record}")
        lo, hi = np.nanmin(per_row, axis=1), np.nanmax(per_row, axis=1)
    return lo, hi


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
SHARED_WEIGHTS = 1 << 30


def record_minmax(
    model: Model,
    data: Iterable[Record],
    *,
    batch: int = BATCH,
    note: Callable[[str], None] | None = None,
    engine: str = "auto",
    workers: int = 1,
) -> MinMax:
    """Run ``model`` on every record and collect the per-record ranges (``note`` hears how
    the records are run). ``engine`` chooses LiteRT or the reference interpreter
    (:mod:`one_cmds.engines.choice`); the ranges are the same within float rounding. With
    ``workers`` > 1 in a process connected to a Ray cluster (``onecc --ray``), the records
    run on that many Ray actors (:mod:`one_cmds.engines.ray_calibration`), with the ranges
    of a run in this process."""
    ray = ray_cluster.active() if workers > 1 else None
    if ray is not None:
        workers = ray_cluster.actor_cpus(ray, workers)
        if workers < 2:  # inside a task on a busy cluster: actors would never be scheduled
            if note is not None:
                note("calibration: no free CPUs on the Ray cluster for actors; in this process")
            ray = None
    slots = 1 if ray is not None or _weight_bytes(model) > SHARED_WEIGHTS else usable_cpus()
    threads = 1 if ray is not None else -(-usable_cpus() // slots)
    runs = _Runs.prepare(model, engine, batch, slots, threads, note)
    result = MinMax()
    if note is not None:
        note(runs.description if ray is None else f"calibration: {workers} Ray actors")
    if ray is None:
        runs.run(iter(data), result)
    else:
        _run_on_ray(ray, runs, data, workers, result)
    runs.add_fixed(result)
    return _checked(result)


@dataclass
class _Runs:
    """What runs the records in one process: LiteRT on a copy of the model with range probes
    (``runner``), else the reference interpreter, ``batch`` records per run on ``batched``
    when the model allows. ``tensors``: the observed tensors in graph order; ``fixed``: those
    that operators on constants make, which LiteRT leaves unwritten."""

    model: Model
    wanted: set[int]
    tensors: list[Tensor]
    fixed: dict[int, np.ndarray]
    probed: list[Tensor]
    runner: LiteRTRunner | None
    batched: tuple[Model, dict[int, Tensor]] | None
    batch: int

    @classmethod
    def prepare(
        cls,
        model: Model,
        engine: str,
        batch: int,
        slots: int,
        threads: int,
        note: Callable[[str], None] | None,
    ) -> _Runs:
        wanted = observed(model)
        tensors = [t for t in model.main.referenced_tensors() if id(t) in wanted]
        fixed = {} if engine == "reference" else constant_results(model, wanted)
        probed = [t for t in tensors if id(t) not in fixed]
        probing = model if engine == "reference" else with_range_probes(model, probed)
        owned = probing is not model
        runner = litert_runner(
            probing, engine, note=note, threads=threads, slots=slots, owned=owned
        )
        batched = _batched(model, wanted, batch) if runner is None and batch > 1 else None
        return cls(model, wanted, tensors, fixed, probed, runner, batched, batch)

    @property
    def description(self) -> str:
        if self.runner is not None:
            return f"calibration: {self.runner.slots} LiteRT interpreter(s) side by side"
        if self.batched is not None:
            return f"calibration: {self.batch} records per run"
        return "calibration: one by one"

    def run(self, records: Iterator[Record], result: MinMax) -> None:
        """Every record into ``result``, numbered on from ``result.records``."""
        if self.runner is not None:
            _run_on_litert(self.runner, self.model, records, self.probed, result)
            return
        with reused_heap():
            _run_records(self.model, records, self.batched, self.batch, self.wanted, result)

    def add_fixed(self, result: MinMax) -> None:
        """After a LiteRT run: the ranges of the tensors that operators on constants make,
        the same in every record."""
        if self.runner is None:
            return
        for t in self.tensors:
            if id(t) in self.fixed:
                lo, hi = row_ranges(t, self.fixed[id(t)], 0, 0)
                result.extend(t, [float(lo[0])] * result.records, [float(hi[0])] * result.records)


def _run_on_ray(
    ray: ModuleType, runs: _Runs, data: Iterable[Record], workers: int, result: MinMax
) -> None:
    """The records on ``workers`` Ray actors, each preparing its own :class:`_Runs` of one
    LiteRT thread (or the reference interpreter, as here) from the model shipped once;
    the per-record ranges merged in record order."""
    shipped = runs.model.copy()
    shipped.source_md5 = None  # a deferred hash holds the source file's bytes
    engine = "reference" if runs.runner is None else "litert"
    payload = (shipped, engine, runs.batch)
    for count, ranges in sharded(ray, _actor_runs, _actor_shard, payload, data, workers):
        for k, (lo, hi) in ranges.items():
            result.extend(runs.tensors[k], lo, hi)
        result.records += count


def _actor_runs(payload: tuple[Model, str, int]) -> _Runs:
    """An actor's runs (1 LiteRT thread) of the shipped model."""
    model, engine, batch = payload
    return _Runs.prepare(model, engine, batch, 1, 1, None)


def _actor_shard(
    runs: _Runs, first: int, records: list[Record]
) -> tuple[int, dict[int, tuple[list[float], list[float]]]]:
    """The ranges of ``records`` (numbered from ``first``) by position in ``runs.tensors``:
    tensor identities do not cross processes."""
    shard = MinMax(records=first)
    runs.run(iter(records), shard)
    position = {id(t): k for k, t in enumerate(runs.tensors)}
    ranges = {position[key]: (shard.mins[key], shard.maxs[key]) for key in shard.mins}
    return shard.records - first, ranges


def _checked(result: MinMax) -> MinMax:
    if result.records == 0:
        raise QuantizeError("no calibration records")
    return result


def _weight_bytes(model: Model) -> int:
    return sum(t.buffer.nbytes for t in model.main.referenced_tensors() if t.is_constant)


def _run_on_litert(
    runner: LiteRTRunner,
    model: Model,
    records: Iterator[Record],
    probed: list[Tensor],
    result: MinMax,
) -> None:
    """Every record in LiteRT, a thread per interpreter of ``runner`` (``model`` with range
    probes) taking the next record. A record in which a probed tensor holds NaN is run again
    on the reference interpreter, whose ranges skip NaN. The ranges are merged in record
    order, numbered on from ``result.records``."""
    skip = len(model.main.outputs)
    first = result.records
    numbered = enumerate(records, first)
    lock = threading.Lock()
    ranges: dict[int, np.ndarray] = {}

    def work(slot: int) -> None:
        while True:
            with lock:
                item = next(numbered, None)
            if item is None:
                return
            number, record = item
            outputs, _ = runner.run(record, slot=slot)
            probes = np.array(outputs[skip:], np.float64).reshape(-1, 3)
            if np.isnan(probes[:, 2]).any():
                probes[:, :2] = _reference_ranges(model, record, number, probed)
            ranges[number] = probes[:, :2]

    with ThreadPoolExecutor(runner.slots) as pool:
        for done in [pool.submit(work, slot) for slot in range(runner.slots)]:
            done.result()
    if not ranges:
        return
    numbers = range(first, first + len(ranges))
    table = np.stack([ranges[number] for number in numbers])  # record, tensor, 2
    for k, t in enumerate(probed):
        result.extend(t, table[:, k, 0].tolist(), table[:, k, 1].tolist())
    result.records += len(ranges)


def _reference_ranges(
    model: Model, record: Record, number: int, probed: list[Tensor]
) -> np.ndarray:
    """The minima and maxima of ``probed`` in record ``number``, from the reference
    interpreter."""
    position = {id(t): k for k, t in enumerate(probed)}
    found = np.empty((len(probed), 2), np.float64)

    def observe(t: Tensor, value: np.ndarray) -> None:
        k = position.get(id(t))
        if k is not None:
            lo, hi = row_ranges(probed[k], value, 0, number)
            found[k] = lo[0], hi[0]

    interpreter = Interpreter(model)
    for t, value in zip(model.main.inputs, record, strict=True):
        observe(t, np.asarray(value))
    interpreter.run(record, observer=observe)
    return found


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
    by_count: dict[int, list[int]] = {}  # every tensor has a value per record: one group
    for key in minmax.tensors:
        by_count.setdefault(len(minmax.mins[key]), []).append(key)
    for keys in by_count.values():
        mins = np.array([minmax.mins[key] for key in keys], np.float64)
        maxs = np.array([minmax.maxs[key] for key in keys], np.float64)
        lows, highs = final_ranges(mins, maxs, options)
        for key, lo, hi in zip(keys, lows, highs, strict=True):
            minmax.tensors[key].quant = QuantParam(min=lo.reshape(1), max=hi.reshape(1))
