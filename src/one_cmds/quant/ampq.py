"""Automatic mixed precision, ``ampq`` (quantization.md §15; reference one-quantize's ampq
branch and ``circle-mpqsolver``): which operators of a uint8 model get int16.

The step calibrates the float model once (no weights fake-quantization first, as the
reference runs record-minmax on the input model) and hands the min/max-recorded model here.
Every candidate is a copy of it quantized by quantize-with-minmax, uint8 with per-channel
weights, the int16 operators listed in an in-memory ``quant_config`` (§12), and the step's
``input_type``/``output_type``.

**bisection** (default): operators get the depth of their longest path from a graph input
(graph inputs 0, graph outputs one past their producer). The quantization error ``qerror`` of
a candidate is the reference's MAE: its fake-quantized form (§15) runs on the records, and the
mean over records and float32 graph outputs of ``mean|float − candidate|`` is taken. With q8
and q16 the errors of the all-uint8 and all-int16 models, the target is ``q16 + ratio·|q8 −
q16|`` (``ampq_qerror_ratio``, default 0.5, in [0, 1]). The all-uint8 model is the answer when
``q8 ≤ target`` (ratio 1), else the all-int16 one when ``q16 ≥ target`` (ratio 0). Else the
depth cut is bisected over [0, max depth]: ``i16_front`` puts the operators at depth ≤ cut in
int16, ``i16_back`` those at depth ≥ cut; a cut whose qerror is below the target is kept and
the search moves toward fewer int16 operators, until the cut repeats. ``auto`` takes the front
when the visq error map (``ampq_bisection_visq``, else the TAE map of the all-uint8 model, see
visq.py) sums more error before the middle depth than after it, else the back.

**pattern**: the operators ampq_patterns.py finds get int16, nothing is measured.

Candidates run on the step's ``engine`` (LiteRT runs fake-quantized models), the float
outputs are computed once, and a cut is measured once.

Reference differences (**Adopted**): q16 > q8 is no error and q8 = q16 gives the uint8 model
(the reference stops, or takes int16; the uint8 model meets the target without int16); when
no cut reaches the target, the all-int16 model is the answer (the reference writes the
all-uint8 one); depths are per operator (luci adds a level for each output of a multi-output
operator); only float32 outputs are measured; ``quantized_dtype``, ``granularity`` and
``quant_config`` are not read (neither does the reference); the per-iteration ``*.mpq.json``
/ ``*.mpq.circle`` dumps of the reference's ``--save_intermediate`` are not written
(cli-and-config.md §16 lists the files).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..engines import Interpreter
from ..ir import Graph, Model, Operator
from .ampq_patterns import LAYERNORM, SOFTMAX, resolve
from .data import Record
from .default_pipeline import quantize_with_minmax
from .errors import QuantizeError
from .fake_quantize import fake_quantize
from .metrics import METRICS
from .options import QuantConfig, QuantizationOptions
from .visq import read_visq, tae_map, visq_json, write_visq

DEFAULT_RATIO = 0.5
ALGORITHMS = ("bisection", "pattern")
BISECTION_TYPES = ("auto", "i16_front", "i16_back")
GRANULARITY = "channel"  # the reference's solver quantizes per channel only
CONFIG = "<ampq>"  # the path shown for the in-memory quant_config
_mae = METRICS["print_mae"][2]

Note = Callable[[str], None]


def _quiet(*_: object) -> None:
    pass


@dataclass(frozen=True)
class Keep:
    """The intermediate files of ``save_intermediate`` (cli-and-config.md §16): ``model``
    saves a model as ``<b>.<suffix>.circle``, ``visq`` is the path of ``<b>.tae.visq.json``
    (None: not written), ``name`` the float model's file name the visq file records."""

    model: Callable[[Model, str], None] = _quiet
    visq: str | None = None
    name: str = ""


@dataclass(frozen=True)
class AmpqSettings:
    """The ``ampq_*`` options of the step, checked."""

    algorithm: str = "bisection"
    ratio: float = DEFAULT_RATIO
    bisection_type: str = "auto"
    patterns: tuple[str, ...] = ()
    visq: str | None = None
    visq_errors: dict[str, float] | None = field(default=None, compare=False)
    quant_config: str | None = None  # given, and not read: the solver makes its own

    @classmethod
    def of(cls, options: Any) -> AmpqSettings:
        """From the step's options (``ampq_qerror_ratio``, ``ampq_algorithm``, ...)."""
        ratio = options.ampq_qerror_ratio
        ratio = DEFAULT_RATIO if ratio is None else float(ratio)
        if not 0.0 <= ratio <= 1.0:
            raise QuantizeError(f"ampq_qerror_ratio must be in [0, 1] (got {ratio})")
        for key, value, allowed in (
            ("ampq_algorithm", options.ampq_algorithm, ALGORITHMS),
            ("bisection_type", options.bisection_type, BISECTION_TYPES),
        ):
            if value not in allowed:
                raise QuantizeError(f"{key} must be one of {', '.join(allowed)} (got '{value}')")
        patterns = tuple(p for p in (LAYERNORM, SOFTMAX) if getattr(options, p))
        algorithm, kind, visq = (
            options.ampq_algorithm,
            options.bisection_type,
            options.ampq_bisection_visq,
        )
        used = visq is not None and algorithm == "bisection" and kind == "auto"
        errors = read_visq(visq) if used else None  # a bad file stops the step before any work
        config = getattr(options, "quant_config", None)
        config = None if config is None else str(config)
        return cls(algorithm, ratio, kind, patterns, visq, errors, config)

    def ignored(self) -> list[str]:
        """The given options this algorithm does not read, one line each."""
        lines = []
        if self.quant_config is not None:
            lines.append("'quant_config' has no effect with ampq: the solver picks the layers")
        return lines + self._unread()

    def _unread(self) -> list[str]:
        if self.algorithm == "pattern":
            lines = [] if self.patterns else [
                f"ampq_algorithm=pattern without {LAYERNORM} or {SOFTMAX}: every operator is uint8"
            ]  # fmt: skip
            if self.visq is not None:
                lines.append("'ampq_bisection_visq' has no effect with ampq_algorithm=pattern")
            return lines
        lines = [f"'{p}' has no effect with ampq_algorithm=bisection" for p in self.patterns]
        if self.visq is not None and self.bisection_type != "auto":
            lines.append(
                f"'ampq_bisection_visq' has no effect with bisection_type={self.bisection_type}"
            )
        return lines


@dataclass
class Trial:
    """One measured candidate: its depth cut (None for the all-uint8/all-int16 models), the
    number of int16 operators and its qerror."""

    cut: int | None
    int16: int
    error: float


@dataclass
class Outcome:
    """The quantized model and how it was found."""

    model: Model
    int16: list[str]  # first output names of the int16 operators (all, for the int16 model)
    operators: int  # operators that could be int16
    dtype: str  # the model dtype: uint8, or int16 for the all-int16 model
    error: float | None = None
    target: float | None = None
    trials: list[Trial] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    summary: str = ""


def mixed(
    recorded: Model,
    options: QuantizationOptions,
    int16: Sequence[Operator] = (),
    dtype: str = "uint8",
    **update: Any,
) -> tuple[Model, list[str]]:
    """A copy of ``recorded`` quantized with model dtype ``dtype``, per-channel weights and the
    ``int16`` operators (of ``recorded``) in int16; with quantize-with-minmax's notes on
    operators kept float. ``update`` replaces other options (``input_type``, ...)."""
    names = [op.outputs[0].name for op in int16]
    layers = [{"names": names, "dtype": "int16", "granularity": GRANULARITY}] if names else []
    config = QuantConfig(CONFIG, {"layers": layers}) if layers else None
    changes = {"quantized_dtype": dtype, "granularity": GRANULARITY, "quant_config": config}
    model = recorded.copy()
    notes = quantize_with_minmax(model, options.model_copy(update={**changes, **update}))
    return model, notes


class Candidates:
    """Quantizes copies of the min/max-recorded model and measures their qerror against the
    float model's outputs on ``data`` (computed once)."""

    def __init__(
        self,
        recorded: Model,
        original: Model,
        data: Sequence[Record],
        options: QuantizationOptions,
    ) -> None:
        self.recorded, self.original, self.data, self.options = recorded, original, data, options
        run = Interpreter(original, engine=options.engine)
        self.expected = [run.run(record) for record in data]

    def quantized(
        self, int16: Sequence[Operator] = (), dtype: str = "uint8", **update: Any
    ) -> tuple[Model, list[str]]:
        return mixed(self.recorded, self.options, int16, dtype, **update)

    def error(self, int16: Sequence[Operator] = (), dtype: str = "uint8") -> float:
        """The qerror of a candidate (see the module text)."""
        model, _ = self.quantized(int16, dtype)
        fake_quantize(model)
        run = Interpreter(model, engine=self.options.engine)
        errors = [
            _mae(np.asarray(a, np.float64), np.asarray(b, np.float64))
            for record, expected in zip(self.data, self.expected, strict=True)
            for a, b in zip(expected, run.run(record), strict=True)
            if a.dtype.kind == "f" and a.size
        ]
        if not errors:
            raise QuantizeError("ampq: the model has no float32 output to measure the error on")
        return float(np.mean(errors))


def depths(graph: Graph) -> tuple[list[tuple[Operator, int]], int]:
    """Each operator reached from a graph input with the length of its longest path from one
    (graph order), and the largest depth counting graph outputs one past their producer."""
    depth = {id(t): 0 for t in graph.inputs}
    result = []
    for op in graph.operators:
        parents = [depth[id(t)] for t in op.inputs if t is not None and id(t) in depth]
        if not parents:
            continue  # computed from constants only: not reached from an input
        result.append((op, max(parents) + 1))
        for t in op.outputs:
            depth[id(t)] = max(parents) + 1
    ends = [depth[id(t)] + 1 for t in graph.outputs if id(t) in depth]
    return result, max([d for _, d in result] + ends + [0])


def solve(
    recorded: Model,
    original: Model,
    data: Sequence[Record],
    options: QuantizationOptions,
    settings: AmpqSettings,
    *,
    say: Note = _quiet,
    note: Note = _quiet,
    keep: Keep = Keep(),
) -> Outcome:
    """Quantize ``recorded`` (the min/max-recorded float model; ``original`` is it before
    calibration, ``data`` the calibration records) as ``settings`` say. ``say`` prints the
    solver's lines, ``note`` logs each trial, ``keep`` takes the intermediate files."""
    if settings.algorithm == "pattern":
        outcome = _patterns(recorded, options, settings)
        say(outcome.summary)
        return outcome
    candidates = Candidates(recorded, original, data, options)
    reached, max_depth = depths(recorded.main)
    every = [op for op, _ in reached]
    q16 = candidates.error(dtype="int16")
    say(f"ampq: full int16 model qerror: {q16:.6g}")
    q8 = candidates.error()
    say(f"ampq: full uint8 model qerror: {q8:.6g}")
    target = q16 + settings.ratio * abs(q8 - q16)
    say(f"ampq: target qerror: {target:.6g} (ampq_qerror_ratio {settings.ratio:g})")
    trials = [Trial(None, len(every), q16), Trial(None, 0, q8)]
    if q8 <= target:  # ratio 1, or int16 no better than uint8
        return _whole(candidates, "uint8", every, q8, target, trials, say)
    if q16 >= target:  # ratio 0: nothing but int16 is that accurate
        return _whole(candidates, "int16", every, q16, target, trials, say)
    front = _front(settings, candidates, reached, max_depth, say, note, keep)
    best = _bisect(candidates, reached, max_depth, front, target, trials, note)
    if best is None:
        say("ampq: no depth cut reached the target")
        return _whole(candidates, "int16", every, q16, target, trials, say)
    cut, int16, error = best
    model, notes = candidates.quantized(int16)
    names = [op.outputs[0].name for op in int16]
    summary = (
        f"ampq: {len(int16)} of {len(every)} operators in int16 "
        f"({'i16_front' if front else 'i16_back'}, depth {'<=' if front else '>='} {cut}): "
        f"qerror {error:.6g} < target {target:.6g}"
    )
    say(summary)
    return Outcome(model, names, len(every), "uint8", error, target, trials, notes, summary)


def _whole(
    candidates: Candidates,
    dtype: str,
    every: list[Operator],
    error: float,
    target: float,
    trials: list[Trial],
    say: Note,
) -> Outcome:
    """The all-uint8 or all-int16 model as the answer."""
    model, notes = candidates.quantized(dtype=dtype)
    names = [op.outputs[0].name for op in every] if dtype == "int16" else []
    summary = f"ampq: the {dtype} model is the answer: qerror {error:.6g}, target {target:.6g}"
    say(summary)
    return Outcome(model, names, len(every), dtype, error, target, trials, notes, summary)


def _bisect(
    candidates: Candidates,
    reached: list[tuple[Operator, int]],
    max_depth: int,
    front: bool,
    target: float,
    trials: list[Trial],
    note: Note,
) -> tuple[int, list[Operator], float] | None:
    """The reference's bisection of the depth cut; the best (cut, int16 operators, qerror).
    A cut measured before is not measured again (the reference does)."""
    low, high, last = 0, max_depth, None
    best = None
    measured: dict[int, float] = {}
    while (cut := (low + high) // 2) != last:
        last = cut
        int16 = [op for op, d in reached if (d <= cut if front else d >= cut)]
        if cut not in measured:
            measured[cut] = candidates.error(int16)
            trials.append(Trial(cut, len(int16), measured[cut]))
            below = measured[cut] < target
            note(
                f"ampq: cut at depth {cut}: {len(int16)} of {len(reached)} operators int16, "
                f"qerror {measured[cut]:.6g} {'<' if below else '>='} target {target:.6g}"
            )
        below = measured[cut] < target
        if below and (best is None or len(int16) < len(best[1])):
            best = (cut, int16, measured[cut])
        if below == front:
            high = cut
        else:
            low = cut
    return best


def _front(
    settings: AmpqSettings,
    candidates: Candidates,
    reached: list[tuple[Operator, int]],
    max_depth: int,
    say: Note,
    note: Note,
    keep: Keep,
) -> bool:
    """Whether the operators before the cut get int16 (``i16_front``)."""
    if settings.bisection_type != "auto":
        return settings.bisection_type == "i16_front"
    if settings.visq_errors is not None:
        errors = settings.visq_errors
    else:
        errors = _tae(candidates, keep, note)
    middle = 0.5 * max_depth
    halves = [0.0, 0.0]  # before the middle depth, from it on
    for op, d in reached:
        halves[d >= middle] += sum(errors.get(t.name, 0.0) for t in op.outputs if t is not None)
    front = halves[0] > halves[1]
    say(
        f"ampq: qerror of the front half {halves[0]:.6g}, of the rear half {halves[1]:.6g}: "
        f"the {'front' if front else 'rear'} half goes int16"
    )
    return front


def _tae(candidates: Candidates, keep: Keep, note: Note) -> dict[str, float]:
    """The visq TAE map of the uint8 model with uint8 inputs and outputs (the reference's
    ``<b>.visq.q8.circle``), rounded as the written file holds it."""
    q8, _ = candidates.quantized(input_type=["uint8"], output_type=["uint8"])
    keep.model(q8, "visq.q8")
    errors, low, high = tae_map(
        candidates.original, q8, candidates.data, candidates.options.engine, note
    )
    document = visq_json(keep.name, errors, low, high)
    if keep.visq is not None:
        write_visq(keep.visq, document)
        note(f"ampq: visq error map {os.path.basename(keep.visq)}")
    return document["error"][0]


def _patterns(recorded: Model, options: QuantizationOptions, settings: AmpqSettings) -> Outcome:
    """The pattern algorithm: the matched operators in int16, the rest uint8."""
    int16 = resolve(recorded, list(settings.patterns))
    model, notes = mixed(recorded, options, int16)
    every = len(depths(recorded.main)[0])
    names = [op.outputs[0].name for op in int16]
    patterns = ", ".join(settings.patterns) or "none"
    summary = f"ampq: {len(names)} of {every} operators in int16 (patterns: {patterns})"
    return Outcome(model, names, every, "uint8", warnings=notes, summary=summary)
