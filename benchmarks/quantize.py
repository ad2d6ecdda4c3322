"""one-quantize: its speed against LiteRT, and its accuracy against the TFLite converter's PTQ.

    python benchmarks/quantize.py [--records N] [--repeat N] [--threads 1 2] [--skip-speed]
                                  [--skip-accuracy]

1. Speed, on the MobileNetV2-size float model (benchmarks/mobilenet_v2.py) written as a circle
   file and ``--records`` (default 32) seeded random records in an h5 file (the reference's
   calibration format), for each thread count, in a child process bound to that many CPUs
   (its affinity, which our calibration reads to size its interpreters; LiteRT
   ``num_threads``; numpy's BLAS through OPENBLAS_NUM_THREADS / OMP_NUM_THREADS /
   MKL_NUM_THREADS, which must be set before numpy loads):
     (L) the baseline: LiteRT (default resolver, XNNPACK) invokes the float model on the same
         records one at a time (the interpreter made and the file read beforehand);
     (q) the whole one-quantize step, per mode, as ``one-quantize -i m.circle -o q.circle
         --input_data records.h5 ...`` runs it in process: the circle file read, weights
         fake-quantized, calibration (LiteRT with range probes), quantize-with-minmax, the
         checks, the output and its log written. Modes: uint8 layer-wise, uint8 / int16 /
         int8 channel-wise, and a ``quant_config`` mix (uint8 layer-wise with the last
         convolution and the classifier int16 channel-wise);
     (c) calibration alone (``pipeline.calibrate``, uint8 layer-wise);
     (a) a peer, when installed: ai-edge-quantizer's ``Quantizer.calibrate`` of the same
         model (with a signature) and records under its static int8 recipe (LiteRT with every
         tensor preserved).
   One warm-up run each, then interleaved repetitions, median of each. Target: every (q)
   <= 2 x (L).
2. Accuracy, against the converter's int8 post-training quantization of the same float
   function (tests/fixtures: mobilenet_tiny.tflite, mobilenet_tiny_int8.tflite, both
   calibrated on mobilenet_tiny_calibration.npz, compared on mobilenet_tiny_test.npz). Ours:
   uint8 channel-wise (our interpreter's quantized kernels, which compute as LiteRT's
   reference kernels; LiteRT has no uint8 channel-wise kernels) and uint8 layer-wise (LiteRT),
   float32 input and output; each with the default ranges (percentiles 1 and 99) and with
   min/max ranges (percentiles 0 and 100, as the converter calibrates). LiteRT runs with its
   reference kernels and with its default resolver (optimized kernels, XNNPACK), which round
   differently.
   The converter's model has int8 input and output: the records are quantized with its
   input's scale and zero point and its output dequantized. Each is compared with the float
   model (LiteRT) on every test record: MPEIR (mean over the records of the largest error
   over the range of the float output, the ``print_mpeir`` metric) and top-1 agreement.
   Goal: ours no worse than the converter's.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(os.path.dirname(HERE), "tests", "fixtures")
THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
FLOAT_IO = {"input_type": "float32", "output_type": "float32"}
# (granularity, ranges) -> more options: the default ranges (percentiles 1 and 99 of the
# per-record minima and maxima) and the plain minimum and maximum, as the converter takes.
VARIANTS: dict[tuple[str, str], dict[str, float]] = {
    ("channel", "pct 1/99"): {},
    ("channel", "min/max"): {"min_percentile": 0.0, "max_percentile": 100.0},
    ("layer", "pct 1/99"): {},
    ("layer", "min/max"): {"min_percentile": 0.0, "max_percentile": 100.0},
}

Runner = Callable[[np.ndarray], np.ndarray]


def _litert(path: str, threads: int = 1, reference: bool = False) -> Runner:
    """One-record runner of a .tflite file in LiteRT (default resolver, or its reference
    kernels)."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType

    resolver = OpResolverType.BUILTIN_REF if reference else OpResolverType.AUTO
    litert = Interpreter(
        model_path=path, num_threads=threads, experimental_op_resolver_type=resolver
    )
    litert.allocate_tensors()
    (input_index,) = (d["index"] for d in litert.get_input_details())
    (output_index,) = (d["index"] for d in litert.get_output_details())

    def run(record: np.ndarray) -> np.ndarray:
        litert.set_tensor(input_index, record)
        litert.invoke()
        return litert.get_tensor(output_index).copy()

    return run


MODES: dict[str, dict[str, str]] = {
    "uint8 layer": {},
    "uint8 channel": {"granularity": "channel"},
    "int16 channel": {"quantized_dtype": "int16", "granularity": "channel"},
    "int8 channel": {"quantized_dtype": "int8", "granularity": "channel"},
    "quant_config mix": {"quant_config": "<mix>"},
}


def _write_h5(path: str, records: np.ndarray) -> None:
    """The reference's calibration file: group ``value``, one subgroup per record."""
    import h5py

    with h5py.File(path, "w") as f:
        group = f.create_group("value")
        for k, record in enumerate(records):
            group.create_group(str(k)).create_dataset("0", data=record)


def _write_mix(path: str, model) -> None:
    """uint8 layer-wise, the last convolution and the classifier int16 channel-wise."""
    import json

    names = [op.outputs[0].name for op in model.main.operators if op.opcode == "CONV_2D"][-1:]
    names += [op.outputs[0].name for op in model.main.operators if op.opcode == "FULLY_CONNECTED"]
    layers = [{"names": names, "dtype": "int16", "granularity": "channel"}]
    with open(path, "w") as f:
        json.dump({"default_quantization_dtype": "uint8", "layers": layers}, f)


def _step(folder: str, options: dict[str, str]) -> Callable[[], None]:
    """The one-quantize step of ``options`` as a driver runs it, its console output muted."""
    import contextlib
    import io

    from one_cmds.config.load import plan_from_arguments
    from one_cmds.pipeline.run import run_plan

    arguments = {
        "input_path": os.path.join(folder, "mobilenet_v2.circle"),
        "output_path": os.path.join(folder, "q.circle"),
        "input_data": os.path.join(folder, "records.h5"),
        **{k: os.path.join(folder, "mix.json") if v == "<mix>" else v for k, v in options.items()},
    }

    def run() -> None:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            run_plan(plan_from_arguments("one-quantize", arguments))

    return run


def speed(threads: int, repeat: int, count: int) -> None:
    """Part 1 for one thread count (numpy's threads are set by the parent's environment)."""
    os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:threads])
    from interpreter import median_seconds
    from mobilenet_v2 import build_mobilenet_v2

    import one_cmds
    from one_cmds.config.resolve import build_options, convert_values
    from one_cmds.config.source import Source
    from one_cmds.quant.default_pipeline import calibrate, fake_quantize_weights

    model = build_mobilenet_v2()
    rng = np.random.default_rng(0)
    records = rng.standard_normal((count, 1, 224, 224, 3)).astype(np.float32)
    source = Source(place="benchmarks/quantize.py")
    raw = {"input_path": "<memory>", "output_path": "<memory>"}
    options = build_options(
        "one-quantize", main=source, section=convert_values("one-quantize", raw, source)
    )
    staged = model.copy()
    fake_quantize_weights(staged, "uint8", "layer")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "mobilenet_v2.tflite")
        one_cmds.save(model, path)
        one_cmds.save(model, os.path.join(tmp, "mobilenet_v2.circle"))
        _write_h5(os.path.join(tmp, "records.h5"), records)
        _write_mix(os.path.join(tmp, "mix.json"), model)
        run = _litert(path, threads)
        peer = _peer_calibration(model, records, os.path.join(tmp, "signed.tflite"))

        def litert() -> None:
            for record in records:
                run(record)

        def calibration() -> None:
            calibrate(staged.copy(), ([r] for r in records), options)

        steps = [_step(tmp, mode) for mode in MODES.values()]
        timed = [litert, *steps, calibration, *([peer] if peer else [])]
        t_litert, *rest = median_seconds(timed, repeat)
        t_steps, (t_calibration, *t_peer) = rest[: len(steps)], rest[len(steps) :]
    print(f"MobileNetV2, {count} h5 records, {threads} thread(s), median of {repeat}")
    print(f"  (L) LiteRT, float model, one by one : {t_litert:7.3f} s")
    for name, seconds in zip(MODES, t_steps, strict=True):
        ratio = seconds / t_litert
        print(f"  (q) one-quantize, {name:16s}: {seconds:7.3f} s  {ratio:5.2f} x (L)  (<= 2)")
    print(f"  (c) calibration alone            : {t_calibration:7.3f} s  "
          f"{t_calibration / t_litert:5.2f} x (L)")  # fmt: skip
    for seconds in t_peer:
        lead = seconds / t_calibration
        print(f"  (a) ai-edge-quantizer calibrate  : {seconds:7.3f} s  "
              f"{seconds / t_litert:5.2f} x (L)  ((a)/(c) {lead:.2f})")  # fmt: skip


def _peer_calibration(model, records: np.ndarray, path: str) -> Callable[[], None] | None:
    """ai-edge-quantizer's calibration of ``model`` on ``records``, or None without it."""
    try:
        from ai_edge_quantizer import quantizer, recipe
    except ImportError:
        return None
    import contextlib
    import io

    import one_cmds
    from one_cmds.ir import SignatureDef

    signed = model.copy()  # the peer feeds records through a signature
    graph = signed.main
    signed.signature_defs = [
        SignatureDef(
            "serving_default", 0, [("input", graph.inputs[0])], [("output", graph.outputs[0])]
        )
    ]
    one_cmds.save(signed, path)
    peer = quantizer.Quantizer(path)
    peer.load_quantization_recipe(recipe.static_wi8_ai8())
    data = {"serving_default": [{"input": record} for record in records]}

    def calibrate() -> None:
        with contextlib.redirect_stderr(io.StringIO()):  # its progress bar
            peer.calibrate(data)

    return calibrate


def _with_threads(threads: int, repeat: int, count: int) -> None:
    """Part 1 in a child process whose numpy uses ``threads`` threads."""
    env = {**os.environ, **dict.fromkeys(THREAD_VARIABLES, str(threads))}
    command = [sys.executable, __file__, "--child", str(threads), "--repeat", str(repeat)]
    command += ["--records", str(count)]
    subprocess.run(command, env=env, check=True)


def _int8_io(path: str, run: Runner) -> Runner:
    """``run`` of a model with int8 input and output, on float records (round half away,
    as LiteRT's QUANTIZE) giving float results."""
    from ai_edge_litert.interpreter import Interpreter

    details = Interpreter(model_path=path)
    (x_scale, x_zero), (y_scale, y_zero) = (
        d[0]["quantization"] for d in (details.get_input_details(), details.get_output_details())
    )

    def float_run(record: np.ndarray) -> np.ndarray:
        scaled = record / np.float32(x_scale)
        q = np.sign(scaled) * np.floor(np.abs(scaled) + 0.5) + x_zero
        y = run(np.clip(q, -128, 127).astype(np.int8))
        return (y.astype(np.float32) - y_zero) * np.float32(y_scale)

    return float_run


def accuracy() -> None:
    """Part 2: MPEIR and top-1 agreement against the float model, ours and the converter's."""
    import one_cmds
    from one_cmds.interp import Interpreter
    from one_cmds.quant.metrics import METRICS

    mpeir, top1 = METRICS["print_mpeir"][2], METRICS["print_top1_match"][2]
    float_path = os.path.join(FIXTURES, "mobilenet_tiny.tflite")
    converter_path = os.path.join(FIXTURES, "mobilenet_tiny_int8.tflite")
    calibration = os.path.join(FIXTURES, "mobilenet_tiny_calibration.npz")
    test = np.load(os.path.join(FIXTURES, "mobilenet_tiny_test.npz"))["0"]
    model = one_cmds.load(float_path)
    runners: dict[str, Runner] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for (granularity, ranges), extra in VARIANTS.items():
            quantized = one_cmds.quantize(
                model,
                input_data=calibration,
                input_data_format="npz",
                granularity=granularity,
                **FLOAT_IO,
                **extra,
            )
            name = f"ours uint8 {granularity}-wise, {ranges}"
            if granularity == "channel":  # LiteRT has no uint8 channel-wise kernels
                interpreter = Interpreter(quantized)
                runners[f"{name}, our interpreter"] = lambda x, interpreter=interpreter: (
                    interpreter.run([x])[0]
                )
                continue
            path = os.path.join(tmp, f"{granularity}-{len(runners)}.tflite")
            one_cmds.save(quantized, path)
            for kernels, reference in (("reference", True), ("default", False)):
                runners[f"{name}, LiteRT {kernels}"] = _litert(path, 1, reference)
        for kernels, reference in (("reference", True), ("default", False)):
            runners[f"converter int8 channel-wise, LiteRT {kernels}"] = _int8_io(
                converter_path, _litert(converter_path, 1, reference)
            )
        float_run = _litert(float_path)
        expected = [float_run(x) for x in test]
        print(
            f"mobilenet_tiny: {len(test)} test records, calibration on "
            f"{len(np.load(calibration)['0'])} records; against the float model (LiteRT)"
        )
        print(f"  {'':55s} {'MPEIR':>9s} {'top-1':>7s}")
        for name, run in runners.items():
            got = [run(x) for x in test]
            pairs = list(zip(expected, got, strict=True))
            error = float(np.mean([mpeir(a, b) for a, b in pairs]))
            agreement = float(np.mean([top1(a, b) for a, b in pairs]))
            print(f"  {name:55s} {error:9.5f} {agreement:7.1%}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="timed repetitions (part 1)")
    parser.add_argument("--records", type=int, default=32, help="calibration records (part 1)")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--skip-accuracy", action="store_true")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    sys.path.insert(0, HERE)
    if args.child is not None:
        speed(args.child, args.repeat, args.records)
        return
    if not args.skip_speed:
        for threads in args.threads:
            _with_threads(threads, args.repeat, args.records)
    if not args.skip_accuracy:
        accuracy()


if __name__ == "__main__":
    main()
