"""The quantizer beside onnxruntime's static quantization on the corpus's ONNX models.

    pip install -e '.[test]'   # onnxruntime
    python benchmarks/quant_peers.py [--models a,b] [--include-large] [-v] [--save FILE]

Every ONNX model of tests/corpus (the non-large ones by default, all with ``--include-large``,
or ``--models``), on the 16 calibration and 48 test records (``--test``) of
tests/corpus/records.py (real images), is quantized by
  (o) ours: tests/corpus/run.py's ``prepare`` (import with the manifest's shapes, O1) and
      ``run_mode`` in ``int8/channel`` (its default calibration, the clip search ``mse``), in
      ``int8/channel`` with ``mode=percentile`` and in ``uint8/layer`` (float I/O); the
      .tflite runs in LiteRT's default resolver (XNNPACK), or, where it fails, in the
      project's interpreter ("interp"), against the project interpreter's float outputs;
  (p) onnxruntime's ``quantize_static`` of the original .onnx file, its dynamic input dims set
      to the manifest's shapes, below opset 13 converted to 13 (per-channel DequantizeLinear),
      and ``quant_pre_process``-ed (without symbolic shape inference, then not at all, when
      that fails): QDQ, weights int8 per channel, asymmetric activations
      (``ActivationSymmetric`` False) QInt8 or QUInt8, calibration MinMax, Percentile or
      Entropy (with onnxruntime's default 128 histogram bins for 128 quantized bins, Entropy
      keeps the full range: MinMax's scales); 6 variants, each run in onnxruntime's CPU
      provider against onnxruntime's run of the float original (the float check line: how far
      that is from the project interpreter's float outputs).
The calibration and test records are the same for both (make_records, same seeds and dtypes).
SQNR: run.py's ``sqnr``, the worst float output's, dB (higher is better); top-1 (classifiers
and recognizers): argmax agreement with the float model. Time: one quantization, calibration
included (ours: from the O1 model in memory; onnxruntime: file to file, pre-processing
excluded). Best: the onnxruntime variant of the highest SQNR; delta: ours int8/channel − best.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import io
import json
import sys
import tempfile
import traceback
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import onnx
import onnx.version_converter
import onnxruntime as ort
from corpus_models import model_folders
from onnxruntime.quantization import (
    CalibrationDataReader,
    CalibrationMethod,
    QuantFormat,
    QuantType,
    quantize_static,
)
from onnxruntime.quantization.shape_inference import quant_pre_process
from timing import median_seconds

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from corpus import run  # noqa: E402  (tests/corpus/run.py: prepare, run_mode, sqnr, top1...)
from corpus.download import CorpusUnavailable, Entry, model_path  # noqa: E402
from corpus.records import CALIBRATION, make_records  # noqa: E402
from corpus.run import Record  # noqa: E402

# int8/channel is the default (calibration mode mse); "percentile" is the reference's mode
OURS = ("int8/channel", "int8/channel percentile", "uint8/layer")
TEST_RECORDS = 48  # more than the suite's 8: a 2-class output's SQNR moves a lot on 8
ACTIVATIONS = ("QInt8", "QUInt8")
METHODS = ("MinMax", "Percentile", "Entropy")
PER_CHANNEL_OPSET = 13  # DequantizeLinear with an axis
VARIANTS = tuple(f"{a}/{m}" for a in ACTIVATIONS for m in METHODS)
ORT_DTYPES = {"tensor(float)": np.float32, "tensor(int32)": np.int32, "tensor(int64)": np.int64}
Outputs = list[list[np.ndarray]]


@dataclass
class Score:
    """One quantized model: SQNR (dB) and top-1 against its float model and the quantize
    seconds, or the failure."""

    sqnr: float | None = None
    top1: float | None = None
    seconds: float | None = None
    engine: str = ""  # ours: where the SQNR was measured, "LiteRT" or "interp"
    error: str | None = None
    float_ops: str = ""  # onnxruntime: "k/n" of its operators (Q/DQ aside) computing in float


@dataclass
class Row:
    """One model: ours per mode, onnxruntime per variant, the float check and notes."""

    model: str
    ours: dict[str, Score] = field(default_factory=dict)
    peers: dict[str, Score] = field(default_factory=dict)
    float_diff: float | None = None  # max |onnxruntime float - project interpreter float|
    float_peak: float | None = None  # max |project interpreter float|
    notes: list[str] = field(default_factory=list)


class Records(CalibrationDataReader):
    """The calibration records for ``quantize_static``, one name -> array dict per call."""

    def __init__(self, names: list[str], records: list[Record]) -> None:
        self._feeds = iter([dict(zip(names, r, strict=True)) for r in records])

    def get_next(self) -> dict[str, np.ndarray] | None:
        return next(self._feeds, None)


def session(path: Path) -> ort.InferenceSession:
    """An onnxruntime CPU session on one thread (the machine is shared)."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def input_names(s: ort.InferenceSession) -> list[str]:
    """The session's input names, in the graph's (and the manifest's) order."""
    return [i.name for i in s.get_inputs()]


def ort_run(path: Path, records: list[Record]) -> Outputs:
    """Outputs of the .onnx at ``path`` in onnxruntime on ``records``."""
    s = session(path)
    names = input_names(s)
    return [s.run(None, dict(zip(names, r, strict=True))) for r in records]


def static_inputs(model: onnx.ModelProto, entry: Entry) -> None:
    """Set ``model``'s dynamic input dims to the manifest's shapes, each dim on its own: one
    ``dim_param`` may name dims of different sizes (ppocr_cls_mobile_v2's ``[N, 3, ?, ?]``)."""
    initializers = {t.name for t in model.graph.initializer}
    inputs = [i for i in model.graph.input if i.name not in initializers]
    for tensor, spec in zip(inputs, entry.inputs, strict=True):
        dims = tensor.type.tensor_type.shape.dim
        for dim, size in zip(dims, spec["shape"], strict=True):
            if dim.HasField("dim_value") and dim.dim_value > 0 and dim.dim_value != size:
                raise ValueError(f"{tensor.name}: dim {dim.dim_value} is not the manifest's {size}")
            dim.Clear()
            dim.dim_value = size


def peer_source(entry: Entry, src: Path, dst: Path, notes: list[str]) -> Path:
    """``src`` with static inputs (``static_inputs``) and, below opset 13, converted to opset 13,
    written to ``dst``: onnxruntime writes per-channel DequantizeLinear nodes (an ``axis``,
    opset 13) into an opset-11 model, which then does not load (noted)."""
    model = onnx.load(str(src))
    static_inputs(model, entry)
    opset = next(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))
    if opset < PER_CHANNEL_OPSET:
        model = onnx.version_converter.convert_version(model, PER_CHANNEL_OPSET)
        notes.append(f"opset {opset} converted to {PER_CHANNEL_OPSET} for per-channel weights")
    onnx.save(model, str(dst))
    return dst


def preprocessed(src: Path, dst: Path, notes: list[str]) -> Path:
    """``quant_pre_process`` of ``src`` into ``dst``; again without its symbolic shape
    inference when that fails (it asserts on some Concats), then ``src`` (each failure noted)."""
    for skip_symbolic_shape in (False, True):
        try:
            quant_pre_process(
                str(src), str(dst), skip_optimization=False, skip_symbolic_shape=skip_symbolic_shape
            )
            return dst
        except Exception as e:
            where = traceback.extract_tb(e.__traceback__)[-1]
            failure = f"{run._short(e, 160)} [at {Path(where.filename).name}:{where.lineno}]"
            notes.append(f"quant_pre_process(skip_symbolic_shape={skip_symbolic_shape}): {failure}")
    notes.append("quantizing the file without pre-processing")
    return src


def quantize_peer(
    src: Path, dst: Path, variant: str, names: list[str], data: list[Record]
) -> float:
    """``quantize_static`` of ``src`` into ``dst`` in ``variant``; the seconds it took."""
    activation, method = variant.split("/")

    def quantize() -> None:
        quantize_static(
            str(src),
            str(dst),
            Records(names, data),
            quant_format=QuantFormat.QDQ,
            per_channel=True,
            weight_type=QuantType.QInt8,
            activation_type=getattr(QuantType, activation),
            calibrate_method=getattr(CalibrationMethod, method),
            extra_options={"ActivationSymmetric": False},
        )

    with contextlib.redirect_stdout(io.StringIO()):  # its calibration progress
        return median_seconds(quantize, 1)


def float_operators(path: Path) -> str:
    """``k/n``: of the n operators of the QDQ model at ``path`` (QuantizeLinear and
    DequantizeLinear aside) the k that read a float activation not straight from a
    DequantizeLinear (onnxruntime leaves the operator types it cannot quantize in float: a
    partly float model is no like-for-like win)."""
    graph = onnx.load(str(path), load_external_data=False).graph
    made_by = {out: node.op_type for node in graph.node for out in node.output}
    constants = {i.name for i in graph.initializer}
    qdq = ("QuantizeLinear", "DequantizeLinear")
    nodes = [n for n in graph.node if n.op_type not in qdq and n.op_type != "Constant"]
    floating = [
        n
        for n in nodes
        if any(
            i and i not in constants and made_by.get(i, "input") not in (*qdq, "Constant")
            for i in n.input
        )
    ]
    return f"{len(floating)}/{len(nodes)}"


def score(expected: Outputs, got: Outputs, kind: str, seconds: float) -> Score:
    """SQNR and (for run.TOP1_KINDS) top-1 of ``got`` against ``expected``."""
    top1 = run.top1(expected, got) if kind in run.TOP1_KINDS else None
    return Score(run.sqnr(expected, got), top1, seconds)


@dataclass
class PeerData:
    """What every onnxruntime variant of a model shares: records and float outputs."""

    kind: str
    names: list[str]
    calibration: list[Record]
    test: list[Record]
    expected: Outputs  # onnxruntime's outputs of the float original


def peer_variant(src: Path, workdir: Path, variant: str, data: PeerData) -> Score:
    """One onnxruntime variant quantized and run on the test records (never raises)."""
    dst, stage = workdir / f"ort_{variant.replace('/', '_')}.onnx", "quantize"
    try:
        seconds = quantize_peer(src, dst, variant, data.names, data.calibration)
        stage = "run"
        result = score(data.expected, ort_run(dst, data.test), data.kind, seconds)
        result.float_ops = float_operators(dst)
        return result
    except Exception as e:
        return Score(error=f"{stage}: {run._short(e, 160)}")


def peer_data(entry: Entry, path: Path, tests: int) -> PeerData:
    """The records (make_records with the ONNX input dtypes) and onnxruntime's float outputs."""
    s = session(path)
    dtypes = [np.dtype(ORT_DTYPES[i.type]) for i in s.get_inputs()]
    calibration = make_records(entry.id, entry.inputs, dtypes, "calibration", CALIBRATION)
    test = make_records(entry.id, entry.inputs, dtypes, "test", tests)
    return PeerData(entry.kind, input_names(s), calibration, test, ort_run(path, test))


def run_peers(entry: Entry, workdir: Path, row: Row, tests: int) -> Outputs | None:
    """Every onnxruntime variant into ``row.peers``; onnxruntime's float outputs (None, noted,
    when the float model does not run or ``peer_source`` fails)."""
    original, stage = model_path(entry), "onnxruntime float"
    try:
        data = peer_data(entry, original, tests)
        stage = "fixing the input dims and opset"
        src = peer_source(entry, original, workdir / "static.onnx", row.notes)
    except Exception as e:
        row.notes.append(f"{stage}: {run._short(e, 200)}")
        return None
    src = preprocessed(src, workdir / "preprocessed.onnx", row.notes)
    for variant in VARIANTS:
        row.peers[variant] = peer_variant(src, workdir, variant, data)
    return data.expected


def ours_mode(prep: run.Prepared, mode: str, workdir: Path) -> Score:
    """run.py's ``run_mode`` (``mode`` may name a calibration mode after the dtype and
    granularity): LiteRT default's SQNR and top-1, else the interpreter's."""
    dtype_granularity, _, calibration = mode.partition(" ")
    options = {"mode": calibration} if calibration else None
    with contextlib.redirect_stdout(io.StringIO()):  # record-minmax's "Recording finished"
        res = run.run_mode(prep, dtype_granularity, workdir, options, layers=False)
    if res.error:
        return Score(error=res.error)
    seconds = res.times["quantize"]
    if "default" in res.sqnr_litert:
        return Score(res.sqnr_litert["default"], res.top1_litert.get("default"), seconds, "LiteRT")
    if res.sqnr_interp is not None:
        return Score(res.sqnr_interp, res.top1_interp, seconds, "interp")
    return Score(seconds=seconds, error=f"LiteRT: {res.litert.get('default')}; {res.interp_error}")


def float_check(row: Row, ort_float: Outputs, expected: Outputs) -> None:
    """The largest difference between onnxruntime's and the project's float outputs."""
    pairs = [
        (np.asarray(a, np.float64), np.asarray(b, np.float64).reshape(np.shape(a)))
        for e, o in zip(expected, ort_float, strict=True)
        for a, b in zip(e, o, strict=True)
    ]
    row.float_diff = max(float(np.max(np.abs(a - b))) for a, b in pairs)
    row.float_peak = max(float(np.max(np.abs(a))) for a, _ in pairs)


def model_row(entry: Entry, workdir: Path, tests: int) -> Row:
    """Ours in every mode and every onnxruntime variant on one model, ``tests`` test
    records."""
    row = Row(entry.id)
    prep: run.Prepared | None = None
    try:
        prep = run.prepare(entry, workdir, tests, layers=False)
    except CorpusUnavailable:
        raise
    except Exception as e:
        row.ours = dict.fromkeys(OURS, Score(error=f"prepare: {run._short(e, 200)}"))
    if prep is not None:
        row.ours = {mode: ours_mode(prep, mode, workdir) for mode in OURS}
    ort_float = run_peers(entry, workdir, row, tests)
    if prep is not None and ort_float is not None:
        try:
            float_check(row, ort_float, prep.expected)
        except ValueError as e:  # outputs of other shapes or counts
            row.notes.append(f"float check: {run._short(e, 160)}")
    return row


def best_peer(row: Row) -> tuple[str, Score] | None:
    """The onnxruntime variant of the highest SQNR."""
    done = [(v, s) for v, s in row.peers.items() if s.sqnr is not None]
    return max(done, key=lambda vs: vs[1].sqnr or 0.0, default=None)


def delta(row: Row) -> float | None:
    """Ours int8/channel minus the best onnxruntime variant, dB."""
    ours, best = row.ours.get(OURS[0]), best_peer(row)
    if ours is None or ours.sqnr is None or best is None or best[1].sqnr is None:
        return None
    return ours.sqnr - best[1].sqnr


def _cell(s: Score | None) -> str:
    if s is None:
        return "-"
    if s.sqnr is None:
        return f"✗ {(s.error or 'fails').split(':')[0]}"
    engine = " (interp)" if s.engine == "interp" else ""
    return f"{s.sqnr:.1f}{engine} · {s.seconds:.2f} s"


def _top1(row: Row) -> str:
    ours, best = row.ours.get(OURS[0]), best_peer(row)
    values = [ours.top1 if ours else None, best[1].top1 if best else None]
    if all(v is None for v in values):
        return "-"
    return " / ".join("-" if v is None else f"{v:.2f}" for v in values)


def table(rows: list[Row]) -> str:
    """Markdown: the best onnxruntime variant, ours in both modes, top-1 and the delta."""
    head = ["model", "best onnxruntime: variant · SQNR dB · time · float ops",
            *(f"ours {m}" for m in OURS),
            "top-1 ours int8 / best", "Δ int8 − best dB"]  # fmt: skip
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        best, d = best_peer(r), delta(r)
        best_text = (
            f"{best[0]} · {_cell(best[1])} · float ops {best[1].float_ops}"
            if best
            else "✗ every variant fails"
        )
        cells = [r.model, best_text, *(_cell(r.ours.get(m)) for m in OURS), _top1(r),
                 "-" if d is None else f"{d:+.1f}"]  # fmt: skip
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def variants_table(rows: list[Row]) -> str:
    """Markdown: every onnxruntime variant's ``SQNR · time`` per model."""
    lines = ["| model | " + " | ".join(VARIANTS) + " |", "|" + "---|" * (len(VARIANTS) + 1)]
    for r in rows:
        lines.append(f"| {r.model} | " + " | ".join(_cell(r.peers.get(v)) for v in VARIANTS) + " |")
    return "\n".join(lines)


def summary(rows: list[Row]) -> str:
    """Where ours int8/channel reaches the best onnxruntime variant − 0.5 dB and + 1 dB."""
    deltas = [d for d in map(delta, rows) if d is not None]
    near, above = sum(d >= -0.5 for d in deltas), sum(d >= 1.0 for d in deltas)
    return (
        f"ours int8/channel >= best onnxruntime - 0.5 dB on {near}/{len(deltas)} models, "
        f">= best + 1 dB on {above}/{len(deltas)} (models both measured; {len(rows)} run)"
    )


def details(row: Row) -> list[str]:
    """The float check, notes and failures of ``row``, one line each."""
    lines = []
    if row.float_diff is not None:
        lines.append(
            f"float check: max |onnxruntime - interpreter| = {row.float_diff:.3g} "
            f"(max |float| {row.float_peak:.3g})"
        )
    lines += row.notes
    for name, s in [*row.ours.items(), *row.peers.items()]:
        if s.error:
            lines.append(f"[{name}] {s.error}")
    return [f"{row.model}: {line}" for line in lines]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", help="comma-separated corpus ids (default: the default set)")
    ap.add_argument("--include-large", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true", help="every variant's SQNR too")
    ap.add_argument("--save", type=Path, help="write every number as JSON")
    ap.add_argument("--test", type=int, default=TEST_RECORDS, help="test records per model")
    args = ap.parse_args(argv)
    ort.set_default_logger_severity(3)  # errors only: no "Removing initializer" warnings
    rows = []
    with tempfile.TemporaryDirectory(prefix="quant-peers-") as tmp:
        folders = model_folders("onnx", args.models, args.include_large, Path(tmp))
        for label, entry, work in folders:
            rows.append(model_row(entry, work, args.test))
            print(f"{label} {table(rows[-1:]).splitlines()[-1]}", flush=True)
            for line in details(rows[-1]):
                print(f"  {line}", flush=True)
            if args.save:
                args.save.write_text(json.dumps([dataclasses.asdict(r) for r in rows], indent=1))
    print(table(rows))
    if args.verbose:
        print(variants_table(rows))
    print(summary(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
