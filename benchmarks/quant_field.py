"""The quantizer against the field: int8 PTQ error and time on the real-model corpus.

    pip install -e '.[bench]'   # ai-edge-quantizer and ai-edge-litert
    python benchmarks/quant_field.py [--models a,b] [--include-large] [--no-fixture] [--as-is]
        [--repeat N]

Every .tflite model of tests/corpus (the default set, all with ``--include-large``, or
``--models``), prepared by tests/corpus/run.py's ``prepare`` (load, O1, 16 calibration and 8 test
records, the float outputs of the project's interpreter), is quantized by
  (o) ours: one-cmds int8 channel-wise with float I/O (run.py's mode ``int8/channel``);
  (a) ai-edge-quantizer, recipe ``static_wi8_ai8``, from the wheel's float .tflite with two
      metadata fixes (``for_aeq``; ``--as-is`` keeps the first only): a SignatureDef when there
      is none, and ``builtin_code`` from ``deprecated_builtin_code`` (MediaPipe leaves it 0, ADD);
  (c) the TFLite converter's int8 PTQ, which needs the float source: "n/a" on the corpus (.tflite
      files only); on the Keras fixture tests/fixtures/mobilenet_tiny (64 calibration and 100
      test records) its pre-generated mobilenet_tiny_int8.tflite (int8 I/O, (de)quantized).
Time: the fastest of ``--repeat`` (3) quantizations from the float model to the written file,
calibration included. Each file runs in LiteRT's default resolver on the test records; the error
is run.py's ``sqnr`` (dB, the worst output's) and ``mpeir`` against the float outputs; a failure
is one line with its stage. "fl a/b": operators (Q/DQ excepted) of the written model with a
float32 output (partly float: no fair win). Goal: SQNR no lower than the better of the two on
every model, and more models processed than either.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from corpus_models import model_folders

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
sys.path.insert(0, str(ROOT / "tests"))

import one_cmds  # noqa: E402
from corpus import run  # noqa: E402  (tests/corpus/run.py: prepare, litert_run, mpeir...)
from corpus.download import CorpusUnavailable, Entry, model_path  # noqa: E402
from corpus.run import Prepared, Record  # noqa: E402
from one_cmds.interp import Interpreter  # noqa: E402

MODE = "int8/channel"
TOOLS = ("ours", "ai-edge-quantizer", "converter")
NO_SOURCE = "n/a (no source model)"


@dataclass
class Outcome:
    """One tool on one model: SQNR (dB) and MPEIR against the float model and seconds, or
    the failure."""

    sqnr: float | None = None
    mpeir: float | None = None
    seconds: float | None = None
    float_ops: str = ""
    error: str | None = None


@dataclass(frozen=True)
class Settings:
    fix_opcodes: bool = True  # see for_aeq
    repeat: int = 3  # quantizations per tool and model, the fastest is reported


@dataclass
class Row:
    model: str
    results: dict[str, Outcome | None] = field(default_factory=dict)  # tool -> outcome; None: n/a


def _records(npz: Path) -> list[Record]:
    """The records of a quantizer ``npz`` input file (array ``i`` stacks input ``i``)."""
    data = np.load(npz)
    arrays = [data[str(i)] for i in range(len(data.files))]
    return [list(values) for values in zip(*arrays, strict=True)]


def _failure(stage: str, e: BaseException) -> str:
    """One line: the stage, the exception and where it was raised."""
    frames = traceback.extract_tb(e.__traceback__)
    last = frames[-1] if frames else None
    where = f" [at {Path(last.filename).name}:{last.lineno} {last.name}]" if last else ""
    return f"{stage}: {run._short(e, 200)}{where}"


def _fastest(fn: Callable[[], None], repeat: int) -> float:
    """Seconds of the fastest of ``repeat`` calls of ``fn`` (timed by run.py's ``_timed``)."""
    times: list[float] = []
    for _ in range(repeat):
        spent: dict[str, float] = {}
        run._timed(spent, "s", fn)
        times.append(spent["s"])
    return min(times)


def _float_ops(path: Path) -> str:
    """``float32-output operators / operators`` of the first subgraph, Q/DQ excepted."""
    from ai_edge_litert import schema_py_generated as schema
    from ai_edge_litert.tools.flatbuffer_utils import read_model

    model = read_model(str(path))
    graph = model.subgraphs[0]
    codes = [max(c.builtinCode, c.deprecatedBuiltinCode) for c in model.operatorCodes]
    skip = {schema.BuiltinOperator.QUANTIZE, schema.BuiltinOperator.DEQUANTIZE}
    ops = [op for op in graph.operators if codes[op.opcodeIndex] not in skip]
    left = sum(graph.tensors[op.outputs[0]].type == schema.TensorType.FLOAT32 for op in ops)
    return f"{left}/{len(ops)}"


def _measure(out: Outcome, path: Path, prep: Prepared) -> Outcome:
    """Run the written model in LiteRT's default resolver and take its SQNR and MPEIR."""
    try:
        out.float_ops = _float_ops(path)
        outputs = run.litert_run(path, "default", prep.test)
        out.mpeir = run.mpeir(prep.expected, outputs, [0.0] * len(outputs[0]))  # every output
        out.sqnr = run.sqnr(prep.expected, outputs)
    except Exception as e:  # XNNPACK first lists every node it did not take: drop that
        out.error = "LiteRT: " + re.sub(r"failed to delegate \w+ node #\d+", "", run._short(e, 900))
        out.error = out.error[:250]
    return out


def run_ours(prep: Prepared, workdir: Path, settings: Settings) -> Outcome:
    """One-cmds int8 channel-wise with float I/O, written as .tflite."""
    path = workdir / "ours.tflite"

    def quantize() -> None:
        one_cmds.save(one_cmds.quantize(prep.model, **run.quantize_options(MODE, prep)), str(path))

    try:
        seconds = _fastest(quantize, settings.repeat)
    except Exception as e:
        return Outcome(error=_failure("quantize", e))
    return _measure(Outcome(seconds=seconds), path, prep)


def for_aeq(path: Path, fix_opcodes: bool = True) -> bytes:
    """The .tflite at ``path`` as ai-edge-quantizer reads it, the graph unchanged: with a
    ``serving_default`` SignatureDef over the first subgraph's inputs and outputs when it has
    none (it needs one) and, with ``fix_opcodes``, ``builtin_code`` set from
    ``deprecated_builtin_code`` (files older than schema v3a leave it 0, which it reads as ADD)."""
    from ai_edge_litert import schema_py_generated as schema
    from ai_edge_litert.tools import flatbuffer_utils

    model = flatbuffer_utils.read_model(str(path))
    changed = not model.signatureDefs
    if changed:
        graph = model.subgraphs[0]

        def maps(indices: Any) -> list[Any]:
            return [schema.TensorMapT(graph.tensors[i].name.decode(), int(i)) for i in indices]

        signature = schema.SignatureDefT(maps(graph.inputs), maps(graph.outputs), "serving_default")
        signature.subgraphIndex = 0
        model.signatureDefs = [signature]
    for code in model.operatorCodes if fix_opcodes else []:
        if code.builtinCode < code.deprecatedBuiltinCode:
            code.builtinCode, changed = code.deprecatedBuiltinCode, True
    return (
        bytes(flatbuffer_utils.convert_object_to_bytearray(model)) if changed else path.read_bytes()
    )


def _signature_records(model: bytes, records: list[Record]) -> list[dict[str, np.ndarray]]:
    """``records`` (in the subgraph's input order) keyed by the signature's input names."""
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    litert = LiteRT(model_content=model)
    order = [d["index"] for d in litert.get_input_details()]
    names = {d["index"]: n for n, d in litert.get_signature_runner().get_input_details().items()}
    return [{names[i]: v for i, v in zip(order, record, strict=True)} for record in records]


def run_aeq(float_path: Path, prep: Prepared, workdir: Path, settings: Settings) -> Outcome:
    """ai-edge-quantizer ``static_wi8_ai8`` of the original float file (see ``for_aeq``)."""
    from ai_edge_quantizer import quantizer, recipe

    path, stage = workdir / "aeq.tflite", "prepare"
    try:
        model = for_aeq(float_path, settings.fix_opcodes)
        data = {"serving_default": _signature_records(model, _records(prep.calibration))}

        def quantize() -> None:
            nonlocal stage
            stage = "load"
            q = quantizer.Quantizer(model, recipe.static_wi8_ai8())
            stage = "calibrate"
            result = q.calibrate(data)
            stage = "quantize"
            q.quantize(result, enable_progress_report=False).export_model(str(path), True)

        seconds = _fastest(quantize, settings.repeat)
    except Exception as e:
        return Outcome(error=_failure(stage, e))
    return _measure(Outcome(seconds=seconds), path, prep)


def corpus_row(entry: Entry, workdir: Path, settings: Settings) -> Row:
    row = Row(entry.id, {"converter": None})
    try:
        prep = run.prepare(entry, workdir)
    except CorpusUnavailable:
        raise
    except Exception as e:  # the float model does not load or run: nobody is compared
        row.results["ours"] = Outcome(error=_failure("prepare", e))
        return row
    row.results["ours"] = run_ours(prep, workdir, settings)
    row.results["ai-edge-quantizer"] = run_aeq(model_path(entry), prep, workdir, settings)
    return row


def fixture_row(workdir: Path, settings: Settings) -> Row:
    """mobilenet_tiny (tests/fixtures): ours, ai-edge-quantizer and the converter's file."""
    float_path = FIXTURES / "mobilenet_tiny.tflite"
    model = one_cmds.optimize(one_cmds.load(str(float_path)), "O1")
    calibration = FIXTURES / "mobilenet_tiny_calibration.npz"
    test = _records(FIXTURES / "mobilenet_tiny_test.npz")
    interp = Interpreter(model)
    expected = [list(interp.run(r)) for r in test]
    entry = Entry("mobilenet_tiny (fixture)", "tests/fixtures", "", "", str(float_path), "",
                  "tflite", "image classifier", [], "npz")  # fmt: skip
    prep = Prepared(entry, model, calibration, test, expected, [])
    return Row(
        entry.id,
        {
            "ours": run_ours(prep, workdir, settings),
            "ai-edge-quantizer": run_aeq(float_path, prep, workdir, settings),
            # int8 I/O: run.py's litert_run quantizes the inputs and dequantizes the outputs
            "converter": _measure(Outcome(), FIXTURES / "mobilenet_tiny_int8.tflite", prep),
        },
    )


def _sqnr(row: Row, tool: str) -> float | None:
    out = row.results.get(tool)
    return None if out is None else out.sqnr


def _best_field(row: Row) -> float | None:
    """The field's highest SQNR."""
    found = [_sqnr(row, t) for t in TOOLS[1:]]
    return max((e for e in found if e is not None), default=None)


def _cell(out: Outcome | None, with_time: bool = True) -> str:
    if out is None:
        return NO_SOURCE
    if out.sqnr is None or out.mpeir is None:
        return f"✗ {out.error.split(':')[0] if out.error else 'fails'}"
    time = f" / {out.seconds:.2f} s" if with_time and out.seconds is not None else ""
    return f"{out.sqnr:.1f} dB · {out.mpeir:.4g}{time} (fl {out.float_ops})"


def _delta(row: Row) -> str:
    ours, best = _sqnr(row, "ours"), _best_field(row)
    return "-" if ours is None or best is None else f"{ours - best:+.1f}"


def table(rows: list[Row]) -> str:
    """Markdown: per tool ``SQNR dB · MPEIR / seconds (fl float ops)`` and ours minus the
    field's best SQNR."""
    head = ["model", "ours SQNR · MPEIR / time", "ai-edge-quantizer SQNR · MPEIR / time",
            "converter SQNR · MPEIR", "ours − best of field, dB"]  # fmt: skip
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cells = [r.model, _cell(r.results.get("ours")), _cell(r.results.get("ai-edge-quantizer")),
                 _cell(r.results.get("converter"), with_time=False), _delta(r)]  # fmt: skip
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def summary(rows: list[Row]) -> str:
    """Models processed per tool, and where ours is no worse than the best of the field."""
    done = {t: sum(_sqnr(r, t) is not None for r in rows) for t in TOOLS}
    n = {t: sum(r.results.get(t) is not None for r in rows) for t in TOOLS}
    ours = [r for r in rows if _sqnr(r, "ours") is not None]
    compared = [r for r in ours if _best_field(r) is not None]
    wins = [r for r in compared if _sqnr(r, "ours") >= _best_field(r)]  # type: ignore[operator]
    only = len(ours) - len(compared)
    processed = ", ".join(f"{t} {done[t]}/{n[t]}" for t in TOOLS)
    goal = len(wins) == len(compared) and all(done["ours"] > done[t] for t in TOOLS[1:])
    return (
        f"processed (quantized and run in LiteRT): {processed}; ours SQNR >= best of the field on "
        f"{len(wins)}/{len(compared)} models both processed; only ours processed: {only}; "
        f"goal {'met' if goal else 'NOT met'}"
    )


def failures(rows: list[Row]) -> list[str]:
    found = [(r.model, t, o.error) for r in rows for t, o in r.results.items() if o and o.error]
    return [f"{model} [{tool}] {error}" for model, tool, error in found]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", help="comma-separated corpus ids (default: the default set)")
    ap.add_argument("--include-large", action="store_true")
    ap.add_argument("--no-fixture", action="store_true", help="skip mobilenet_tiny")
    ap.add_argument("--as-is", action="store_true", help="no builtin_code fix (see for_aeq)")
    ap.add_argument("--repeat", type=int, default=3, help="quantizations timed, fastest kept")
    args = ap.parse_args(argv)
    settings = Settings(not args.as_is, max(1, args.repeat))
    rows = []
    with tempfile.TemporaryDirectory(prefix="quant-field-") as tmp:
        folders = model_folders("tflite", args.models, args.include_large, Path(tmp))
        for label, entry, work in folders:
            rows.append(corpus_row(entry, work, settings))
            print(f"{label} {table(rows[-1:]).splitlines()[-1]}", flush=True)
        if not args.no_fixture:
            (work := Path(tmp) / "fixture").mkdir()
            rows.append(fixture_row(work, settings))
    print(table(rows))
    print(summary(rows))
    for line in failures(rows):
        print(f"  {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
