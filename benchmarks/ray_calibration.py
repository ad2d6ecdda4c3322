"""Calibration on Ray actors (``onecc --ray`` with ``calibration_workers``): 1 worker against 2.

    python benchmarks/ray_calibration.py [--records 512] [--repeat 1]

On the MobileNetV2-size float model (benchmarks/mobilenet_v2.py), weights fake-quantized as
the step does, and 512 seeded random records, on a local Ray cluster of 2 CPUs started here:
  (s) Ray's start-up, reported apart: ``ray.init`` once, and the actors' start-up of every
      calibration (actor processes created, the model shipped and prepared in LiteRT),
      measured as the calibration of a single record;
  (1) record-minmax on one Ray actor of one CPU (what ``calibration_workers=N`` runs, with
      N=1, which ``onecc`` itself runs in process);
  (2) the same on two actors of one CPU each (``calibration_workers=2``);
  (p) for reference, today's calibration (``default_pipeline.calibrate``) in this process
      without Ray: one LiteRT interpreter per usable CPU, side by side.
Runs alternate; median of ``--repeat``. Target: (1) / (2) >= 1.7 on 2 cores, without the
actors' start-up (which every calibration pays once, and is printed apart); the ratio with it
is printed too.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
CPUS = 2


def _seconds(run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--records", type=int, default=512)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    sys.path.insert(0, HERE)
    import ray
    from mobilenet_v2 import build_mobilenet_v2

    from one_cmds.quant import calibration
    from one_cmds.quant.default_pipeline import calibrate, fake_quantize_weights
    from one_cmds.quant.options import CalibrationOptions

    model = build_mobilenet_v2()
    fake_quantize_weights(model, "uint8", "layer")
    rng = np.random.default_rng(0)
    records = rng.standard_normal((args.records, 1, 224, 224, 3)).astype(np.float32)

    def on_ray(workers: int, count: int = args.records) -> Callable[[], None]:
        """What ``calibrate`` runs with ``calibration_workers=workers`` in a process of the
        cluster (its private entry is taken so that one actor can run too: a single worker
        is calibration in this process, by design)."""

        def run() -> None:
            runs = calibration._Runs.prepare(model, "auto", calibration.BATCH, 1, 1, None)
            result = calibration.MinMax()
            calibration._run_on_ray(ray, runs, ([r] for r in records[:count]), workers, result)
            runs.add_fixed(result)

        return run

    def local() -> None:
        calibrate(model.copy(), ([r] for r in records), CalibrationOptions())

    init = _seconds(
        lambda: ray.init(
            num_cpus=CPUS, logging_level="ERROR", log_to_driver=False, include_dashboard=False
        )
    )
    start_up = [statistics.median(_seconds(on_ray(w, 1)) for _ in range(3)) for w in (1, 2)]
    timed = {"1": on_ray(1), "2": on_ray(2), "p": local}
    spent: dict[str, list[float]] = {key: [] for key in timed}
    for _ in range(args.repeat):
        for key, run in timed.items():
            spent[key].append(_seconds(run))
    ray.shutdown()
    one, two, here = (statistics.median(spent[key]) for key in ("1", "2", "p"))
    print(f"MobileNetV2, {args.records} records, Ray cluster of {CPUS} CPUs, median of "
          f"{args.repeat}")  # fmt: skip
    print(f"  (s) ray.init                          : {init:7.2f} s")
    print(f"  (s) actors' start-up, 1 worker        : {start_up[0]:7.2f} s")
    print(f"  (s) actors' start-up, 2 workers       : {start_up[1]:7.2f} s")
    print(f"  (1) calibration, 1 Ray worker         : {one:7.2f} s")
    print(f"  (2) calibration, 2 Ray workers        : {two:7.2f} s")
    print(f"  (p) calibration in process, no Ray    : {here:7.2f} s")
    print(f"  (1) / (2)                             : {one / two:7.2f} x")
    steady = (one - start_up[0]) / (two - start_up[1])
    print(f"  (1) / (2) without the actors' start-up: {steady:7.2f} x (target >= 1.7)")
    print(f"  (p) / (2)                             : {here / two:7.2f} x")


if __name__ == "__main__":
    main()
