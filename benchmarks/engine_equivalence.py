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
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

import one_cmds  # noqa: E402
from corpus.download import cache_dir, select  # noqa: E402
from corpus.run import prepare  # noqa: E402
from one_cmds.quant.calibration import record_minmax  # noqa: E402


def _ranges(model, records, engine):
    notes: list[str] = []
    started = time.perf_counter()
    minmax = record_minmax(model, records, engine=engine, note=notes.append)
    spent = time.perf_counter() - started
    return {t.name: (np.array(minmax.mins[k]), np.array(minmax.maxs[k])) for k, t in
            minmax.tensors.items()}, spent, notes[0]  # fmt: skip


def _worst(ours, reference) -> float:
    worst = 0.0
    for name, (lo, hi) in reference.items():
        span = max(float(hi.max() - lo.min()), 1e-30)
        o_lo, o_hi = ours[name]
        worst = max(
            worst, float(np.abs(o_lo - lo).max()) / span, float(np.abs(o_hi - hi).max()) / span
        )
    return worst


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
            data = np.load(prep.calibration)
            records = [list(x) for x in zip(*(data[k] for k in sorted(data, key=int)), strict=True)]
            ours, t_ours, chosen = _ranges(prep.model, records, "auto")
            reference, t_ref, _ = _ranges(prep.model, records, "reference")
            a = _qparams(prep.model, prep.calibration, "auto")
            b = _qparams(prep.model, prep.calibration, "reference")
            differ = [n for n in b if a.get(n) != b[n]]
            zero = max((abs(int(a[n][1]) - int(b[n][1])) for n in differ), default=0)
            scale = max((abs(a[n][0] / b[n][0] - 1) for n in differ if b[n][0]), default=0.0)
            print(
                f"{entry.id}: {chosen}; worst range difference {_worst(ours, reference):.2e} of "
                f"the range; qparams differing {len(differ)}/{len(b)} (zero point by <= {zero}, "
                f"scale by <= {scale:.1e} relative); "
                f"calibration {t_ours:.2f} s vs {t_ref:.2f} s",
                flush=True,
            )


if __name__ == "__main__":
    main()
