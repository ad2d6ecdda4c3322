"""Calibration on LiteRT against the reference interpreter on the real-model corpus
(tests/corpus): the per-record ranges of every observed tensor, and the qparams of the uint8
(layer-wise) models quantized from each engine's ranges.

    python benchmarks/engine_equivalence.py [--large] [--records N]

Per model (prepared as the corpus tests prepare it: loaded, resized, O1): which engine
``auto`` chose, the largest difference of a recorded minimum or maximum relative to the
tensor's range, and how many activation qparams differ between the two quantized models (by
at most one zero-point step / 1e-6 relative scale expected: a range crossing a rounding
boundary), with the two calibration times.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

import one_cmds  # noqa: E402
from corpus.download import cache_dir, select  # noqa: E402
from corpus.engines import calibration_records, engine_ranges, worst_difference  # noqa: E402
from corpus.run import prepare  # noqa: E402


def _qparams(model, npz, engine):
    q = one_cmds.quantize(model.copy(), input_data=str(npz), input_data_format="npz", engine=engine)
    return {t.name: (t.quant.scale[0], t.quant.zero_point[0]) for t in q.main.referenced_tensors()
            if t.quant is not None and t.quant.scale is not None and not t.is_constant}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--large", action="store_true", help="also the large corpus models")
    args = parser.parse_args()
    entries = [e for e in select(include_large=args.large)
               if (cache_dir() / "models" / e.id).exists()]  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        for entry in entries:
            prep = prepare(entry, Path(tmp))
            records = calibration_records(prep.calibration)
            ours = engine_ranges(prep.model, records, "auto")
            reference = engine_ranges(prep.model, records, "reference")
            worst, where = worst_difference(ours.ranges, reference.ranges)
            a = _qparams(prep.model, prep.calibration, "auto")
            b = _qparams(prep.model, prep.calibration, "reference")
            differ = [n for n in b if a.get(n) != b[n]]
            zero = max((abs(int(a[n][1]) - int(b[n][1])) for n in differ), default=0)
            scale = max((abs(a[n][0] / b[n][0] - 1) for n in differ if b[n][0]), default=0.0)
            print(
                f"{entry.id}: {ours.note}; worst range difference {worst:.2e} of the range "
                f"({where}); qparams differing {len(differ)}/{len(b)} (zero point by <= {zero}, "
                f"scale by <= {scale:.1e} relative); "
                f"calibration {ours.seconds:.2f} s vs {reference.seconds:.2f} s",
                flush=True,
            )


if __name__ == "__main__":
    main()
