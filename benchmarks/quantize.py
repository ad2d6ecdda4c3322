"""one-quantize: its speed against LiteRT, and its accuracy against the TFLite converter's PTQ.

    python benchmarks/quantize.py [--repeat N] [--threads 1 2] [--skip-speed] [--skip-accuracy]

1. Speed, on the MobileNetV2-size float model (benchmarks/mobilenet_v2.py) and 64 seeded
   random records, for each thread count, in a child process bound to that many CPUs (its
   affinity, which our calibration reads to size its interpreters; LiteRT ``num_threads``;
   numpy's BLAS through OPENBLAS_NUM_THREADS / OMP_NUM_THREADS / MKL_NUM_THREADS, which must
   be set before numpy loads):
     (L) the baseline: LiteRT (default resolver) invokes the float model on the 64 records
         one at a time;
     (c) calibration: the whole record-minmax stage, ``pipeline.calibrate`` (the interpreter
         on every record, then the ranges stored), on the weights-fake-quantized model;
     (q) the whole step: ``one_cmds.quantize(model, input_data=<npz of the 64 records>,
         input_data_format="npz")`` (uint8 layer-wise: the three stages, reading the file);
     (a) a peer, when installed: ai-edge-quantizer's ``Quantizer.calibrate`` of the same
         model (with a signature) and records under its static int8 recipe (LiteRT with every
         tensor preserved).
   One warm-up run each, then interleaved repetitions, median of each. Targets:
   (c) <= 1.5 x (L), (q) <= 3 x (L).
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
RECORDS = 64
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


def speed(threads: int, repeat: int) -> None:
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
    records = rng.standard_normal((RECORDS, 1, 224, 224, 3)).astype(np.float32)
    source = Source(place="benchmarks/quantize.py")
    raw = {"input_path": "<memory>", "output_path": "<memory>"}
    options = build_options(
        "one-quantize", main=source, section=convert_values("one-quantize", raw, source)
    )
    staged = model.copy()
    fake_quantize_weights(staged, "uint8", "layer")
    with tempfile.TemporaryDirectory() as tmp:
        path, data = os.path.join(tmp, "mobilenet_v2.tflite"), os.path.join(tmp, "records.npz")
        one_cmds.save(model, path)
        np.savez(data, **{"0": records})
        run = _litert(path, threads)
        peer = _peer_calibration(model, records, os.path.join(tmp, "signed.tflite"))

        def litert() -> None:
            for record in records:
                run(record)

        def calibration() -> None:
            calibrate(staged.copy(), ([r] for r in records), options)

        def quantize() -> None:
            one_cmds.quantize(model, input_data=data, input_data_format="npz")

        timed = [litert, calibration, quantize, *([peer] if peer else [])]
        t_litert, t_calibration, t_quantize, *t_peer = median_seconds(timed, repeat)
    print(f"MobileNetV2, {RECORDS} records, {threads} thread(s), median of {repeat}")
    print(f"  (L) LiteRT, float model, one by one : {t_litert:7.2f} s")
    print(f"  (c) calibration (record-minmax)     : {t_calibration:7.2f} s")
    print(f"  (q) one_cmds.quantize (3 stages)    : {t_quantize:7.2f} s")
    for seconds in t_peer:
        print(f"  (a) ai-edge-quantizer calibrate     : {seconds:7.2f} s")
    print(f"  ratio (c)/(L): {t_calibration / t_litert:5.2f}  (target <= 1.5)")
    print(f"  ratio (q)/(L): {t_quantize / t_litert:5.2f}  (target <= 3)")
    for seconds in t_peer:
        lead = seconds / t_calibration
        print(f"  ratio (a)/(L): {seconds / t_litert:5.2f}  (the peer; (a)/(c) {lead:.2f})")


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


def _with_threads(threads: int, repeat: int) -> None:
    """Part 1 in a child process whose numpy uses ``threads`` threads."""
    env = {**os.environ, **dict.fromkeys(THREAD_VARIABLES, str(threads))}
    command = [sys.executable, __file__, "--child", str(threads), "--repeat", str(repeat)]
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
    parser.add_argument("--repeat", type=int, default=3, help="timed repetitions (part 1)")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--skip-accuracy", action="store_true")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    sys.path.insert(0, HERE)
    if args.child is not None:
        speed(args.child, args.repeat)
        return
    if not args.skip_speed:
        for threads in args.threads:
            _with_threads(threads, args.repeat)
    if not args.skip_accuracy:
        accuracy()


if __name__ == "__main__":
    main()
