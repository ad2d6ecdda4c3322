"""Run the quantizer over the real-model corpus and measure what issue 16 asks about.

Per model: ``one_cmds.load`` → (``resize`` where the manifest fixes dynamic dims) →
``optimize(O1)``; per mode (uint8/layer, uint8/channel, int16/channel, int8/channel):
``quantize`` with float I/O on the 16 calibration records, then on the 8 test records:

* the model written as .tflite loaded and run in LiteRT's default resolver (XNNPACK) and its
  BUILTIN_REF resolver (errors captured);
* SQNR of the outputs against the float model (the worst output's, dB), and for classifiers
  and text recognizers the top-1 agreement (per time step for CTC), for the project's integer
  run and for each LiteRT run that worked;
* MPEIR of the outputs against the float model (project interpreter) for the project's
  integer run and for each LiteRT run that worked (the worst output's mean PEIR);
* what a round trip through a file loses of the model after each stage (none: a file is
  the model);
* the per-layer gap between the integer run and the fake-quantized simulation, per float
  tensor: ``10·log10((N_int + F) / (N_sim + F))`` dB, ``N`` each run's summed squared error
  against float (``layer_errors``) and ``F = n·s²`` one step of the tensor's scale per
  element, the rounding the runtime's integer kernels may add (LiteRT's truncating SQRT, its
  twice-rounded multipliers, the 16-bit multipliers of its 16x8 kernels); with equal signals
  it is the SQNR gap wherever the errors exceed a step. The largest gap and its tensor.

    python tests/corpus/run.py [--models a,b] [--modes uint8/layer,...] [--include-large] [--table]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import one_cmds
from corpus.download import CorpusUnavailable, Entry, model_path, select
from corpus.records import CALIBRATION, TEST, make_records, write_npz
from one_cmds.interp import Interpreter as RawInterpreter
from one_cmds.interp import RunContext
from one_cmds.quant.fake_quantize import fake_quantize
from one_cmds.quant.layer_errors import LayerError, comparison, quantized_inputs, tensor_pairs
from support.model_equality import file_differences

MODES = ("uint8/layer", "uint8/channel", "int16/channel", "int8/channel")
RESOLVERS = ("default", "ref")
SQNR_CAP = 100.0
Record = list[np.ndarray]


@dataclass
class Prepared:
    """A model ready to quantize: the O1 float model, its records and float test outputs."""

    entry: Entry
    model: one_cmds.Model
    calibration: Path
    test: list[Record]
    expected: list[list[np.ndarray]]
    tensors: list[dict[str, np.ndarray]]  # every float tensor per test record
    times: dict[str, float] = field(default_factory=dict)
    float_litert: dict[str, str] = field(default_factory=dict)  # resolver -> "ok" / error
    file_differences: list[str] = field(default_factory=list)  # what a file round trip loses


@dataclass
class ModeResult:
    """What one (model, mode) quantization did; ``error`` is set when quantize failed."""

    model: str
    mode: str
    available: bool = True
    error: str | None = None
    tflite_error: str | None = None
    litert: dict[str, str] = field(default_factory=dict)  # resolver -> "ok" / error message
    mpeir_interp: float | None = None
    mpeir_litert: dict[str, float] = field(default_factory=dict)
    sqnr_interp: float | None = None  # the worst output's SQNR, dB
    sqnr_litert: dict[str, float] = field(default_factory=dict)
    top1_interp: float | None = None  # classifiers and recognizers: argmax agreement
    top1_litert: dict[str, float] = field(default_factory=dict)
    worst_gap_db: float | None = None
    worst_gap_tensor: str | None = None
    interp_error: str | None = None  # the integer run in the project's interpreter
    sim_error: str | None = None  # fake_quantize or the run of the simulation
    times: dict[str, float] = field(default_factory=dict)
    file_differences: list[str] = field(default_factory=list)  # float stages, then quantized


def _short(e: BaseException, limit: int = 300) -> str:
    text = " ".join(f"{type(e).__name__}: {e}".split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _timed(times: dict[str, float], key: str, fn: Callable[[], Any]) -> Any:
    start = time.perf_counter()
    try:
        return fn()
    finally:
        times[key] = round(time.perf_counter() - start, 3)


def _np_dtype(t: one_cmds.Tensor) -> np.dtype:
    return np.dtype({"FLOAT32": np.float32, "INT32": np.int32, "INT64": np.int64}[t.dtype])


def _load_model(path: Path, fmt: str, shapes: list[list[int]]) -> one_cmds.Model:
    """``one_cmds.load``; an ONNX model is imported with the manifest's shapes as
    ``input_shapes`` (``onecc import onnx --input_shapes``), so dynamic dims are fixed before
    the import infers shapes (an LSTM or a Squeeze needs them)."""
    if fmt != "onnx":
        return one_cmds.load(str(path))
    from one_cmds.config.shapes import parse_named_shapes
    from one_cmds.frontends.onnx import import_onnx
    from one_cmds.frontends.onnx.options import OnnxOptions
    from one_cmds.ir.shape_list import NamedShapeList

    text = ",".join("[" + ",".join(map(str, s)) + "]" for s in shapes)
    options = OnnxOptions(input_shapes=NamedShapeList(parse_named_shapes(text), text))
    return import_onnx(str(path), options)


def prepare(entry: Entry, workdir: Path, test_count: int = TEST, layers: bool = True) -> Prepared:
    """Load, fix dynamic dims, O1-optimize, make the records (``test_count`` test records)
    and the float outputs; with ``layers`` also every float tensor of each test record (for
    :func:`layer_run`: a detector's feature maps take gigabytes at 48 records)."""
    times: dict[str, float] = {}
    path = model_path(entry)
    shapes = [list(s["shape"]) for s in entry.inputs]
    model = _timed(times, "load", lambda: _load_model(path, entry.format, shapes))
    lost = _file_check("import", model, workdir)
    if [list(t.shape) for t in model.main.inputs] != shapes:
        model = _timed(times, "resize", lambda: one_cmds.resize(model, [tuple(s) for s in shapes]))
        lost += _file_check("resize", model, workdir)
    model = _timed(times, "optimize", lambda: one_cmds.optimize(model, "O1"))
    lost += _file_check("O1", model, workdir)
    dtypes = [_np_dtype(t) for t in model.main.inputs]
    calibration = make_records(entry.id, entry.inputs, dtypes, "calibration", CALIBRATION)
    test = make_records(entry.id, entry.inputs, dtypes, "test", test_count)
    npz = write_npz(workdir / f"{entry.id}.calibration.npz", calibration)
    interp = RawInterpreter(model)
    if layers:
        tensors = _timed(times, "float_run", lambda: [interp.run_all(r) for r in test])
        expected = [[t[o.name] for o in model.main.outputs] for t in tensors]
    else:
        tensors = []
        expected = _timed(times, "float_run", lambda: [list(interp.run(list(r))) for r in test])
    prep = Prepared(entry, model, npz, test, expected, tensors, times, file_differences=lost)
    float_file = workdir / f"{entry.id}.float.tflite"
    try:
        one_cmds.save(model, str(float_file))
        for resolver in RESOLVERS:
            prep.float_litert[resolver] = _litert_status(float_file, resolver, test)[0]
    except Exception as e:  # the float model itself does not run in LiteRT
        prep.float_litert = dict.fromkeys(RESOLVERS, _short(e))
    return prep


def _file_check(stage: str, model: one_cmds.Model, workdir: Path) -> list[str]:
    """What a save and a load lose of the model after ``stage`` (DESIGN.md: a file is the
    model), each line prefixed with the stage."""
    return [f"after {stage}: {line}" for line in file_differences(model, workdir)]


def litert_run(path: Path, resolver: str, records: list[Record]) -> list[list[np.ndarray]]:
    """Outputs of the .tflite at ``path`` in LiteRT (``default`` or ``ref`` resolver)."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType

    kwargs: dict[str, Any] = {"model_path": str(path)}
    if resolver == "ref":
        kwargs["experimental_op_resolver_type"] = OpResolverType.BUILTIN_REF
    it = Interpreter(**kwargs)
    it.allocate_tensors()
    ins, outs = it.get_input_details(), it.get_output_details()
    results = []
    for record in records:
        for d, v in zip(ins, record, strict=True):
            it.set_tensor(d["index"], _to_tensor(v, d))
        it.invoke()
        results.append([_from_tensor(it.get_tensor(d["index"]), d) for d in outs])
    return results


def _to_tensor(v: np.ndarray, d: dict[str, Any]) -> np.ndarray:
    scale, zero_point = d["quantization"]
    if scale and np.issubdtype(d["dtype"], np.integer) and v.dtype.kind == "f":
        info = np.iinfo(d["dtype"])
        v = np.clip(np.round(v / scale) + zero_point, info.min, info.max)
    return np.asarray(v).astype(d["dtype"])


def _from_tensor(v: np.ndarray, d: dict[str, Any]) -> np.ndarray:
    scale, zero_point = d["quantization"]
    if scale and np.issubdtype(d["dtype"], np.integer):
        return scale * (v.astype(np.float64) - zero_point)
    return v


def _litert_status(
    path: Path, resolver: str, records: list[Record]
) -> tuple[str, list[list[np.ndarray]] | None]:
    try:
        return "ok", litert_run(path, resolver, records)
    except Exception as e:
        return _short(e), None


def mpeir(
    expected: list[list[np.ndarray]], got: list[list[np.ndarray]], steps: list[float]
) -> float:
    """The worst float output's MPEIR: per record ``max|a - b| / I`` averaged over the records,
    ``I`` the output's float range over all the test records (so a one-element output such as
    a presence score has a range too; §17 takes it per record, where it is 0). An output
    whose range is below its quantization step (``steps``, 0 for a float one) is constant to
    the quantized model and left out: a hand-presence score of 1e-9 on images without a hand
    made the ratio 1e+10."""
    worst = 0.0
    for k in range(len(expected[0])):
        if np.asarray(expected[0][k]).dtype.kind != "f":
            continue
        a = [np.asarray(e[k], np.float64) for e in expected]
        b = [np.asarray(g[k], np.float64).reshape(x.shape) for g, x in zip(got, a, strict=True)]
        interval = float(max(x.max() for x in a) - min(x.min() for x in a))
        if interval <= steps[k]:
            continue
        peirs = [
            float(np.max(np.abs(x - y))) / (interval or 1.0) for x, y in zip(a, b, strict=True)
        ]
        worst = max(worst, float(np.mean(peirs)))
    return worst


def sqnr(expected: list[list[np.ndarray]], got: list[list[np.ndarray]]) -> float:
    """The worst float output's SQNR in dB: ``10·log10(Σa² / Σ(a - b)²)`` over every element
    of every test record (``SQNR_CAP`` when equal)."""
    worst = SQNR_CAP
    for k in range(len(expected[0])):
        if np.asarray(expected[0][k]).dtype.kind != "f":
            continue
        signal = noise = 0.0
        for e, g in zip(expected, got, strict=True):
            a = np.asarray(e[k], np.float64)
            b = np.asarray(g[k], np.float64).reshape(a.shape)
            signal += float(np.sum(a * a))
            noise += float(np.sum((a - b) ** 2))
        db = SQNR_CAP if noise == 0.0 else 10.0 * math.log10(max(signal, 1e-300) / noise)
        worst = min(worst, db)
    return worst


def top1(expected: list[list[np.ndarray]], got: list[list[np.ndarray]]) -> float:
    """The share of argmax positions (over the last axis; per time step for a recognizer's
    [.., T, classes] output) where ``got`` picks the float model's class; the worst output
    with more than one class."""
    worst = 1.0
    for k in range(len(expected[0])):
        if np.asarray(expected[0][k]).shape[-1] < 2:
            continue
        same = total = 0
        for e, g in zip(expected, got, strict=True):
            a = np.asarray(e[k])
            b = np.asarray(g[k]).reshape(a.shape)
            same += int(np.sum(a.argmax(-1) == b.argmax(-1)))
            total += a.argmax(-1).size
        worst = min(worst, same / total)
    return worst


TOP1_KINDS = ("classifier", "text")


def output_steps(q: one_cmds.Model) -> list[float]:
    """Per graph output of ``q``, the scale of the quantized value it dequantizes (0 for an
    output computed in float)."""
    producers = q.main.producers()
    steps = []
    for t in q.main.outputs:
        op = producers.get(t)
        source = op.inputs[0] if op is not None and op.opcode == "DEQUANTIZE" else t
        quant = source.quant
        scaled = quant is not None and quant.scale is not None and source.dtype != "FLOAT32"
        steps.append(float(quant.scale[0]) if scaled else 0.0)  # type: ignore[union-attr,index]
    return steps


def gap_db(int_row: LayerError, sim_row: LayerError) -> float:
    """``10·log10((N_int + F) / (N_sim + F))`` with ``F = n·s²`` (module docstring)."""
    floor = int_row.count * (int_row.scale[0] ** 2 if int_row.scale else 0.0)
    if int_row.noise + floor == 0.0:
        return 0.0
    if sim_row.noise + floor == 0.0:
        return SQNR_CAP
    ratio = (int_row.noise + floor) / (sim_row.noise + floor)
    return max(-SQNR_CAP, min(SQNR_CAP, 10.0 * math.log10(ratio)))


def worst_gap(int_rows: list[LayerError], sim_rows: list[LayerError]) -> tuple[float, str]:
    """The largest gap (:func:`gap_db`, dB) and its tensor."""
    sims = {r.name: r for r in sim_rows}
    gaps = [(gap_db(r, sims[r.name]), r.name) for r in int_rows if r.name in sims]
    return max(gaps, default=(0.0, ""))


def quantize_options(mode: str, prep: Prepared) -> dict[str, Any]:
    """Float I/O (``input_type`` only when every input is float: an integer input such as
    Magika's byte tokens stays as it is)."""
    dtype, granularity = mode.split("/")
    options: dict[str, Any] = {
        "quantized_dtype": dtype,
        "granularity": granularity,
        "input_data": str(prep.calibration),
        "input_data_format": "npz",
        "output_type": "float32",
    }
    if all(t.dtype == "FLOAT32" for t in prep.model.main.inputs):
        options["input_type"] = "float32"
    return options


def layer_run(prep: Prepared, q: one_cmds.Model) -> tuple[list[LayerError], list[list[Any]]]:
    """``layer_errors`` of ``q`` against the float model (whose tensors ``prep`` holds) on the
    test records, plus ``q``'s outputs: the same rows as ``quant.layer_errors`` without
    rerunning the float model for every mode."""
    pairs = tensor_pairs(prep.model.main, q.main)
    by_tensor = {id(t): row for t, row in pairs}
    run, context = RawInterpreter(q), RunContext(q)
    outputs = []
    for record, expected in zip(prep.test, prep.tensors, strict=True):
        compare = comparison(by_tensor, expected)
        inputs = quantized_inputs(q.main, prep.model.main, record, context)
        for tensor, value in zip(q.main.inputs, inputs, strict=True):
            compare(tensor, value)
        outputs.append(list(run.run(inputs, observer=compare)))
    return [row for _, row in pairs], outputs


def run_mode(
    prep: Prepared,
    mode: str,
    workdir: Path,
    options: dict[str, Any] | None = None,
    layers: bool = True,
) -> ModeResult:
    """Quantize ``prep`` in ``mode`` (plus ``options``, one-quantize keys) and measure it
    (never raises); ``layers`` False measures the outputs in LiteRT only."""
    res = ModeResult(prep.entry.id, mode)
    try:
        q = _timed(
            res.times,
            "quantize",
            lambda: one_cmds.quantize(
                prep.model, **quantize_options(mode, prep), **(options or {})
            ),
        )
    except Exception as e:
        message = _short(e)
        if mode.startswith("int8") and ("int8" in message or "quantized_dtype" in message):
            res.available = False
        res.error = f"quantize: {message}"
        return res
    res.file_differences = [*prep.file_differences, *_file_check(mode, q, workdir)]
    _measure_litert(res, q, prep, workdir / f"{prep.entry.id}.{mode.replace('/', '_')}.tflite")
    if not layers:
        return res
    try:
        int_rows, got = _timed(res.times, "interp_int", lambda: layer_run(prep, q))
        res.mpeir_interp = mpeir(prep.expected, got, output_steps(q))
        res.sqnr_interp = sqnr(prep.expected, got)
        if prep.entry.kind in TOP1_KINDS:
            res.top1_interp = top1(prep.expected, got)
    except Exception as e:
        res.interp_error = _short(e)
        return res
    try:
        sim = q.copy()
        fake_quantize(sim)
        sim_rows, _ = _timed(res.times, "interp_sim", lambda: layer_run(prep, sim))
        res.worst_gap_db, res.worst_gap_tensor = worst_gap(int_rows, sim_rows)
    except Exception as e:
        res.sim_error = _short(e)
    return res


def _measure_litert(res: ModeResult, q: one_cmds.Model, prep: Prepared, path: Path) -> None:
    try:
        _timed(res.times, "save", lambda: one_cmds.save(q, str(path)))
    except Exception as e:
        res.tflite_error = _short(e)
        res.litert = dict.fromkeys(RESOLVERS, f"not written: {res.tflite_error}")
        return
    for resolver in RESOLVERS:
        status, outputs = _timed(
            res.times, f"litert_{resolver}", lambda r=resolver: _litert_status(path, r, prep.test)
        )
        res.litert[resolver] = status
        if outputs is not None:
            res.mpeir_litert[resolver] = mpeir(prep.expected, outputs, output_steps(q))
            res.sqnr_litert[resolver] = sqnr(prep.expected, outputs)
            if prep.entry.kind in TOP1_KINDS:
                res.top1_litert[resolver] = top1(prep.expected, outputs)


def prepare_failed(entry: Entry, mode: str, e: Exception) -> ModeResult:
    """The result of every mode of a model that does not load, resize or optimize."""
    return ModeResult(entry.id, mode, error=f"load/resize/O1: {_short(e)}")


def run_model(
    entry: Entry, modes: tuple[str, ...] = MODES
) -> tuple[Prepared | Entry, list[ModeResult]]:
    """Prepare ``entry`` and run every mode, in a temporary directory."""
    with tempfile.TemporaryDirectory(prefix=f"corpus-{entry.id}-") as tmp:
        try:
            prep = prepare(entry, Path(tmp))
        except CorpusUnavailable:
            raise
        except Exception as e:
            return entry, [prepare_failed(entry, mode, e) for mode in modes]
        return prep, [run_mode(prep, mode, Path(tmp)) for mode in modes]


def _fmt(x: float | None, digits: int = 3) -> str:
    if x is None:
        return "-"
    return "inf" if math.isinf(x) else f"{x:.{digits}g}"


def _cell(r: ModeResult) -> str:
    if not r.available:
        return "n/a"
    if r.error:
        return "import fails" if r.error.startswith("load") else "quantize fails"
    runs = "/".join("✓" if r.litert.get(k) == "ok" else "✗" for k in RESOLVERS)
    sqnr_value = r.sqnr_litert.get("default", r.sqnr_interp)
    top1_value = r.top1_litert.get("default", r.top1_interp)
    quality = f"{_fmt(sqnr_value)} dB" + (f", top-1 {top1_value:.2f}" if top1_value else "")
    lite = ",".join(_fmt(r.mpeir_litert.get(k)) for k in RESOLVERS if k in r.mpeir_litert)
    mpeir_text = _fmt(r.mpeir_interp) + (f" ({lite})" if lite else "")
    gap = "err" if r.interp_error or r.sim_error else _fmt(r.worst_gap_db)
    return f"{runs} · {quality} · {mpeir_text} · {gap}"


def table(results: list[tuple[Prepared | Entry, list[ModeResult]]], modes: tuple[str, ...]) -> str:
    """The markdown results table: per mode ``default/ref · SQNR dB (LiteRT default where it
    runs), top-1 · MPEIR interp (LiteRT) · gap dB``."""
    head = ["model", "publisher", "kind", *modes]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for prep, rows in results:
        e = prep.entry if isinstance(prep, Prepared) else prep
        cells = [e.id, e.publisher.split(" (")[0], e.kind, *(_cell(r) for r in rows)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _report(prep: Prepared | Entry, rows: list[ModeResult]) -> None:
    if isinstance(prep, Entry):
        print(f"== {prep.id}")
    else:
        print(f"== {prep.entry.id}  times {prep.times}  float LiteRT {prep.float_litert}")
    for r in rows:
        print(f"  {r.mode}: {_cell(r)}  gap at {r.worst_gap_tensor!r}  times {r.times}")
        for label, msg in (("", r.error), ("interp: ", r.interp_error), ("sim: ", r.sim_error)):
            if msg:
                print(f"    {label}{msg}")
        for k, v in r.litert.items():
            if v != "ok":
                print(f"    litert {k}: {v}")


def expected_table(results: list[tuple[Prepared | Entry, list[ModeResult]]]) -> str:
    """The body of expected.py's XFAIL table for ``results`` (every failing check)."""
    from corpus.checks import checks_for, failure, first_line

    lines = ["XFAIL: dict[tuple[str, str, str], str] = {"]
    for _, rows in results:
        for r in rows:
            if not r.available:
                continue
            for check in checks_for(r.mode):
                message = failure(r, check)
                if message is not None:
                    lines.append(
                        f"    ({r.model!r}, {r.mode!r}, {check!r}): {first_line(message)!r},"
                    )
    return "\n".join([*lines, "}"])


def _save(path: Path, results: list[tuple[Prepared | Entry, list[ModeResult]]]) -> None:
    data = {rows[0].model: [dataclasses.asdict(r) for r in rows] for _, rows in results}
    path.write_text(json.dumps(data, indent=1))


def _load(path: Path) -> list[tuple[Entry, list[ModeResult]]]:
    """Results saved with ``--save``, or a test session's directory of per-mode JSON files
    (``corpus-results`` in pytest's base temporary directory)."""
    if path.is_dir():
        data: dict[str, list[Any]] = {}
        for file in sorted(path.glob("*.json")):
            rec = json.loads(file.read_text())
            data.setdefault(rec["model"], []).append(rec)
        for rows in data.values():
            rows.sort(key=lambda r: MODES.index(r["mode"]) if r["mode"] in MODES else 99)
    else:
        data = json.loads(path.read_text())
    return [
        (e, [ModeResult(**r) for r in data[e.id]])
        for e in select(include_large=True)
        if e.id in data
    ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", help="comma-separated model ids (default: all non-large)")
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--include-large", action="store_true")
    ap.add_argument("--table", action="store_true", help="print the markdown table at the end")
    ap.add_argument("--expected", action="store_true", help="print expected.py's XFAIL table")
    ap.add_argument("-v", "--verbose", action="store_true", help="with --load: the details")
    ap.add_argument("--save", type=Path, help="write the results as JSON")
    ap.add_argument("--load", type=Path, help="read results saved with --save instead of running")
    args = ap.parse_args(argv)
    modes = tuple(args.modes.split(","))
    results: list[Any] = []
    if args.load:
        results = _load(args.load)
        for prep, rows in results if args.verbose else []:
            _report(prep, rows)
    for entry in [] if args.load else select(args.models, args.include_large):
        prep, rows = run_model(entry, modes)
        _report(prep, rows)
        results.append((prep, rows))
        if args.save:
            _save(args.save, results)
    if args.table:
        print(table(results, modes))
    if args.expected:
        print(expected_table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
