"""Speed of ``one_cmds.Interpreter`` against LiteRT on a MobileNetV2-sized model: with the
default engine (LiteRT in process: the target is one inference <= 1.2x LiteRT's invoke) or
``--engine reference`` (the numpy reference interpreter).

    python benchmarks/interpreter.py [--threads N] [--runs R] [--profile] [--engine E]

Both runtimes use N threads (default 1): LiteRT through ``num_threads``, numpy's BLAS through
OPENBLAS_NUM_THREADS / OMP_NUM_THREADS / MKL_NUM_THREADS, which must be set before numpy
loads, so the script re-executes itself with them when they differ. After one warm-up run
each, the two runtimes take turns for ``--runs`` timed runs; the script prints each median,
the largest output difference (exit status 1 above 1e-4) and the ratio ours / LiteRT.
``--profile`` adds the interpreter's cProfile summary.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import sys
import tempfile
import time

import numpy as np
from ai_edge_litert.interpreter import Interpreter as LiteRTInterpreter
from mobilenet_v2 import build_mobilenet_v2, parameter_count

import one_cmds
from one_cmds.engines import Interpreter

THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
TOLERANCE = 1e-4  # on the softmax probabilities


def median_seconds(functions, runs: int) -> list[float]:
    """Median time of each function; runs alternate between them, so load drifts hit all."""
    times: list[list[float]] = [[] for _ in functions]
    for fn in functions:
        fn()  # warm-up
    for _ in range(runs):
        for fn, spent in zip(functions, times, strict=True):
            start = time.perf_counter()
            fn()
            spent.append(time.perf_counter() - start)
    return [statistics.median(spent) for spent in times]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=1, help="threads of both runtimes")
    parser.add_argument("--runs", type=int, default=10, help="timed runs of each runtime")
    parser.add_argument("--profile", action="store_true", help="cProfile the interpreter")
    parser.add_argument(
        "--engine", default="auto", choices=("auto", "litert", "reference"),
        help="one_cmds.Interpreter's engine (auto: LiteRT for this model)",
    )  # fmt: skip
    args = parser.parse_args()
    threads = str(args.threads)
    if any(os.environ.get(v) != threads for v in THREAD_VARIABLES):
        env = {**os.environ, **dict.fromkeys(THREAD_VARIABLES, threads)}
        os.execve(sys.executable, [sys.executable, *sys.argv], env)

    model = build_mobilenet_v2()
    image = np.random.default_rng(0).standard_normal((1, 224, 224, 3)).astype(np.float32)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "mobilenet_v2.tflite")
        size = one_cmds.save(model, path)
        print(
            f"MobileNetV2: {len(model.main.operators)} operators, "
            f"{parameter_count(model) / 1e6:.2f}M parameters, {size / 2**20:.1f} MiB; "
            f"{args.threads} thread(s), median of {args.runs} runs"
        )

        litert = LiteRTInterpreter(model_path=path, num_threads=args.threads)
        litert.allocate_tensors()
        (input_index,) = (d["index"] for d in litert.get_input_details())
        (output_index,) = (d["index"] for d in litert.get_output_details())

        def run_litert():
            litert.set_tensor(input_index, image)
            litert.invoke()
            return litert.get_tensor(output_index).copy()

        ours = Interpreter(path, engine=args.engine, threads=args.threads)

        def run_ours():
            return ours.run([image])[0]

        expected, got = run_litert(), run_ours()
        litert_time, ours_time = median_seconds([run_litert, run_ours], args.runs)
        if args.profile:
            profiler = cProfile.Profile()
            profiler.runcall(run_ours)

    difference = float(np.max(np.abs(got - expected)))
    print(f"max abs diff of the outputs: {difference:.3g}")
    print(f"LiteRT: {litert_time * 1e3:8.2f} ms")
    print(f"ours:   {ours_time * 1e3:8.2f} ms")
    print(f"ratio ours/LiteRT: {ours_time / litert_time:.2f}")
    if args.profile:
        pstats.Stats(profiler).sort_stats("tottime").print_stats(15)
    if difference > TOLERANCE:
        sys.exit(f"the outputs differ by more than {TOLERANCE}")


if __name__ == "__main__":
    main()
