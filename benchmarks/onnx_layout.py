"""Our ONNX import against onnx2tf on the corpus's ONNX models (issue 22): TRANSPOSEs left,
agreement with onnxruntime, and LiteRT invoke time.

    python benchmarks/onnx_layout.py [--models a,b] [--runs N] [--threads N] [--venv DIR]

onnx2tf pins onnx, TensorFlow and numpy versions this project does not use, so it runs from
its own virtual environment (``--venv``, default ``onnx2tf-venv`` in the corpus cache),
created with pip on first use. Before conversion the benchmark names the ONNX nodes that have
no name, replaces the characters Keras refuses in a scope name (Paddle2ONNX's ``Softmax@0``),
and puts a local sample-image file where onnx2tf would download one. onnx2tf makes rank-3/4/5 inputs
and outputs channels-last, so ours is imported with both ``nchw_to_nhwc`` options, then
optimized at O1 (onnx2tf folds and fuses as it converts; a build does so in one-optimize).

Per model and converter: the TRANSPOSE count of the ``.tflite``, the worst difference from
onnxruntime on the corpus's test records (relative to the output's largest magnitude, at
least 1), and the median LiteRT invoke time (default resolver with XNNPACK, ``--threads``
threads, runs interleaved), with the ratio ours / onnx2tf (below 1: ours is faster).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

import one_cmds  # noqa: E402
from corpus.download import Entry, cache_dir, model_path  # noqa: E402
from corpus.layout import (  # noqa: E402
    count,
    measure,
    onnx_entries,
    onnxruntime_outputs,
    records,
    worst_difference,
)
from one_cmds.frontends.onnx.ops.common import CHANNELS_FIRST, CHANNELS_LAST  # noqa: E402

ONNX2TF = [
    "onnx2tf==1.29.24", "onnx_graphsurgeon", "sng4onnx", "onnxsim", "psutil",
    "tensorflow-cpu==2.19.*", "tf-keras==2.19.*", "ai-edge-litert", "onnxruntime",
]  # fmt: skip
SAMPLE = "calibration_image_sample_data_20x128x128x3_float32.npy"


def onnx2tf_venv(path: Path) -> Path:
    """The onnx2tf environment's bin directory, created on first use."""
    if not (path / "bin" / "onnx2tf").exists():
        subprocess.run([sys.executable, "-m", "venv", str(path)], check=True)
        subprocess.run([str(path / "bin" / "pip"), "install", "-q", *ONNX2TF], check=True)
    return path / "bin"


def named(entry: Entry, workdir: Path) -> tuple[Path, onnx.GraphProto]:
    """The model (its path and graph) with every node named as Keras accepts a scope
    (``<op type>_<index>`` where it has no name; characters such as Paddle2ONNX's ``@`` made
    ``_``), names unique."""
    model = onnx.load(str(model_path(entry)))
    seen: set[str] = set()
    for k, node in enumerate(model.graph.node):
        name = re.sub(r"[^A-Za-z0-9_.\\/>-]", "_", node.name or f"{node.op_type}_{k}")
        node.name = name if name not in seen else f"{name}_{k}"
        seen.add(node.name)
    path = workdir / f"{entry.id}.onnx"
    onnx.save(model, str(path))
    return path, model.graph


def convert_onnx2tf(entry: Entry, bin_dir: Path, workdir: Path) -> Path:
    """onnx2tf's float32 ``.tflite`` of ``entry`` (its log in ``<id>.onnx2tf.log`` beside)."""
    source, graph = named(entry, workdir)
    rng = np.random.default_rng(0)
    np.save(workdir / SAMPLE, rng.uniform(0, 1, (20, 128, 128, 3)).astype(np.float32))
    shapes = [
        f"{i.name}:{','.join(map(str, s['shape']))}"
        for i, s in zip(_graph_inputs(graph), entry.inputs, strict=True)
    ]
    out = workdir / f"{entry.id}.onnx2tf"
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    command = [str(bin_dir / "onnx2tf"), "-i", str(source), "-o", str(out), "-n", "-ois", *shapes]
    log = workdir / f"{entry.id}.onnx2tf.log"
    with log.open("w") as f:
        subprocess.run(
            command, cwd=workdir, env=env, stdout=f, stderr=subprocess.STDOUT, timeout=1800
        )
    result = out / f"{source.stem}_float32.tflite"
    if not result.exists():
        errors = [
            line for line in log.read_text().splitlines() if "Error" in line or "ERROR" in line
        ]
        raise RuntimeError(errors[0].strip() if errors else f"no .tflite, see {log}")
    return result


def _graph_inputs(graph: onnx.GraphProto) -> list[onnx.ValueInfoProto]:
    constants = {t.name for t in graph.initializer}
    return [i for i in graph.input if i.name not in constants]


def onnx2tf_outputs(path: Path, entry: Entry, expected) -> list[list[np.ndarray]]:
    """onnx2tf's model on the corpus records, each value moved to or from channels-last
    where its shape says so: through its signature (inputs and outputs by ONNX name) when it
    has one, else in the order of the model's inputs and outputs."""
    from ai_edge_litert.interpreter import Interpreter

    it = Interpreter(model_path=str(path))
    graph = onnx.load(str(model_path(entry)), load_external_data=False).graph
    names = [i.name for i in _graph_inputs(graph)]
    out_names = [o.name for o in graph.output]
    signed = bool(it.get_signature_list())
    if signed:
        runner = it.get_signature_runner()
        details = [runner.get_input_details()[name] for name in names]
    else:
        it.allocate_tensors()
        details = it.get_input_details()
    outputs = []
    for record, reference in zip(records(entry), expected, strict=True):
        feed = [
            _moved(v, tuple(d["shape"]), CHANNELS_LAST).astype(d["dtype"])
            for v, d in zip(record, details, strict=True)
        ]
        if signed:
            got = runner(**dict(zip(names, feed, strict=True)))
            values = (
                [got[n] for n in out_names] if set(out_names) <= set(got) else list(got.values())
            )
        else:
            for d, v in zip(details, feed, strict=True):
                it.set_tensor(d["index"], v)
            it.invoke()
            values = [it.get_tensor(d["index"]) for d in it.get_output_details()]
        outputs.append(
            [_moved(g, e.shape, CHANNELS_FIRST) for g, e in zip(values, reference, strict=True)]
        )
    return outputs


def _moved(value: np.ndarray, shape: tuple, perms: dict) -> np.ndarray:
    if value.shape != shape and value.ndim in perms:
        moved = value.transpose(perms[value.ndim])
        if moved.shape == shape:
            return moved
    return value


def invoke_seconds(paths: list[Path], threads: int, runs: int) -> list[float]:
    """Median invoke time of each ``.tflite`` in LiteRT, runs interleaved."""
    from ai_edge_litert.interpreter import Interpreter

    interpreters = []
    for path in paths:
        it = Interpreter(model_path=str(path), num_threads=threads)
        it.allocate_tensors()
        for d in it.get_input_details():
            it.set_tensor(d["index"], np.zeros(d["shape"], d["dtype"]))
        for _ in range(3):
            it.invoke()
        interpreters.append(it)
    times: list[list[float]] = [[] for _ in paths]
    for _ in range(runs):
        for it, row in zip(interpreters, times, strict=True):
            start = time.perf_counter()
            it.invoke()
            row.append(time.perf_counter() - start)
    return [statistics.median(row) for row in times]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", help="comma-separated corpus ids (default: every ONNX one)")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--venv", type=Path, default=cache_dir() / "onnx2tf-venv")
    args = parser.parse_args()
    if args.models:
        os.environ["ONE_CMDS_CORPUS_MODELS"] = args.models
    bin_dir = onnx2tf_venv(args.venv)
    print("| model | TRANSPOSEs ours / onnx2tf | worst diff ours / onnx2tf | ", end="")
    print("invoke ms ours / onnx2tf | ratio |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        for entry in onnx_entries():
            expected = onnxruntime_outputs(entry, records(entry))
            ours = measure(entry, "nhwc", workdir, expected, optimize="O1")
            ours_path = workdir / f"{entry.id}.nhwc.tflite"
            try:
                theirs_path = convert_onnx2tf(entry, bin_dir, workdir)
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                row = f"| {entry.id} | {ours.transposes} / failed | {ours.worst:.1e} / - | - |"
                print(f"{row} onnx2tf: {e} |", flush=True)
                continue
            theirs = count(one_cmds.load(str(theirs_path)))[0]
            try:
                got = onnx2tf_outputs(theirs_path, entry, expected)
                a, b = invoke_seconds([ours_path, theirs_path], args.threads, args.runs)
            except (RuntimeError, ValueError) as e:  # it does not run in LiteRT's default resolver
                reason = str(e).split(".")[0][:80]
                row = f"| {entry.id} | {ours.transposes} / {theirs} | {ours.worst:.1e} / - | - |"
                print(f"{row} onnx2tf's model does not run: {reason} |", flush=True)
                continue
            print(
                f"| {entry.id} | {ours.transposes} / {theirs} | {ours.worst:.1e} / "
                f"{worst_difference(expected, got):.1e} | {a * 1e3:.2f} / {b * 1e3:.2f} | "
                f"{a / b:.2f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
