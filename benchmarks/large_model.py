"""LLM-size models: `onecc` import -> resize -> export, and Q4_0 weight quantization, against
`cp`: time and peak memory.

    python benchmarks/large_model.py [--folder DIR] [--repeat N] [--keep] [--cold]

Builds (once per folder) a synthetic LLM-like float32 model of about 6 GB: token embedding
(GATHER), 24 decoder blocks (FULLY_CONNECTED q/k/v/o, BATCH_MATMUL attention with SOFTMAX,
SwiGLU MLP, residual ADDs), logits; batch and sequence length unknown (shape_signature -1).
Its weights are shifted views of a few arrays, so building it takes little memory.

Then, in the same run, the median of ``--repeat`` runs of:
  (cp)  ``cp`` of the file;
  (p)   ``onecc -C`` with one ``[one-resize]`` step reading the ``.tflite`` (import), resizing
        to [1, 128] and writing a circle file (export) with the profiling data ([profile]
        profile_info=True: the md5 of the source is computed);
  (n)   the same without profiling data;
  (q)   ``onecc -C`` with one ``[one-quantize]`` step, ``quantize_weights_chunk=q4_0``, reading
        the ``.tflite`` and writing a circle file whose FULLY_CONNECTED and GATHER weights are
        GGML_Q4_0 blocks (quantization.md §22): the weights are read once and quantized, the
        MB/s of float32 weights and the output size ratio are reported.
With ``--cold`` the page cache is dropped before every command (root only), so each one
reads the model from the disk; otherwise the model is in the page cache, which makes ``cp``
faster than md5 can hash (about 0.85 GB/s on one core). The peak RSS of each ``onecc``
process comes from ``os.wait4`` (the model is built in a
child process, so the measuring process stays small: Linux carries a parent's RSS into the
peak of the children it forks). Targets: (p) <= 1.5 x (cp),
(n) <= 1.1 x (cp), (q) <= 3 x (cp), peak RSS <= 0.25 x the file size.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import one_cmds
from one_cmds.ir import Graph, Model, Operator, Tensor
from one_cmds.ir.schema import new_options

VOCAB, HIDDEN, MLP, BLOCKS = 32000, 2048, 6144, 24
FILE = "llm.tflite"
Q4_OUTPUT = "q4.circle"


class _Weights:
    """Distinct constant matrices of one shape, as shifted views of one array."""

    def __init__(self) -> None:
        self.bases: dict[tuple[int, int], np.ndarray] = {}
        self.used: dict[tuple[int, int], int] = {}

    def take(self, name: str, shape: tuple[int, int]) -> Tensor:
        size = shape[0] * shape[1]
        if shape not in self.bases:
            values = (np.arange(size + 128, dtype=np.int64) % 251 - 125).astype(np.float32)
            self.bases[shape] = values * np.float32(1 / (125 * 256))
        k = self.used.get(shape, 0)
        self.used[shape] = k + 1
        return Tensor.constant(name, self.bases[shape][k : k + size].reshape(shape))


class _Decoder:
    def __init__(self) -> None:
        self.weights = _Weights()
        self.operators: list[Operator] = []

    def op(self, opcode: str, inputs: list, name: str, shape: tuple, options=None) -> Tensor:
        out = Tensor(name, "FLOAT32", shape)
        self.operators.append(Operator(opcode, inputs, [out], options))
        return out

    def fc(self, x: Tensor, units: int, name: str) -> Tensor:
        w = self.weights.take(f"{name}/w", (units, x.shape[-1]))
        options = new_options("FullyConnectedOptions", keepNumDims=True)
        return self.op("FULLY_CONNECTED", [x, w, None], name, (*x.shape[:-1], units), options)

    def binary(self, opcode: str, x: Tensor, y: Tensor, name: str) -> Tensor:
        options = new_options(f"{opcode.capitalize()}Options")
        return self.op(opcode, [x, y], name, x.shape, options)

    def block(self, x: Tensor, i: int) -> Tensor:
        b, s = x.shape[:2]
        q, k, v = (self.fc(x, HIDDEN, f"b{i}/{n}") for n in "qkv")
        transposed = new_options("BatchMatMulOptions", adjointRhs=True)
        scores = self.op("BATCH_MATMUL", [q, k], f"b{i}/scores", (b, s, s), transposed)
        softmax = new_options("SoftmaxOptions", beta=1.0)
        p = self.op("SOFTMAX", [scores], f"b{i}/p", (b, s, s), softmax)
        plain = new_options("BatchMatMulOptions")
        mixed = self.op("BATCH_MATMUL", [p, v], f"b{i}/mixed", (b, s, HIDDEN), plain)
        h = self.binary("ADD", x, self.fc(mixed, HIDDEN, f"b{i}/o"), f"b{i}/h")
        gate, up = self.fc(h, MLP, f"b{i}/gate"), self.fc(h, MLP, f"b{i}/up")
        sig = self.op("LOGISTIC", [gate], f"b{i}/sig", gate.shape)
        act = self.binary("MUL", self.binary("MUL", gate, sig, f"b{i}/silu"), up, f"b{i}/act")
        return self.binary("ADD", h, self.fc(act, HIDDEN, f"b{i}/down"), f"b{i}/out")

    def model(self) -> Model:
        tokens = Tensor("tokens", "INT32", (None, None))
        table = self.weights.take("embedding", (VOCAB, HIDDEN))
        gather = new_options("GatherOptions", axis=0)
        x = self.op("GATHER", [table, tokens], "embed", (None, None, HIDDEN), gather)
        for i in range(BLOCKS):
            x = self.block(x, i)
        logits = self.fc(x, VOCAB, "logits")
        model = Model([Graph("main", [tokens], [logits], self.operators)])
        for i, op in enumerate(self.operators):
            op.origin = frozenset({i})
            model.source_table[i] = op.outputs[0].name
        return model


def _build(path: str) -> None:
    started = time.perf_counter()
    one_cmds.save(_Decoder().model(), path)
    size = os.path.getsize(path) / 1e9
    print(f"built {path}: {size:.2f} GB in {time.perf_counter() - started:.1f} s")


def _config(folder: str, source: str, profile: bool) -> str:
    path = os.path.join(folder, f"build-{'p' if profile else 'n'}.cfg")
    with open(path, "w") as f:
        f.write(
            "[onecc]\none-resize=True\n\n"
            f"[one-resize]\ninput_path={source}\n"
            f"output_path={folder}/out.circle\ninput_shapes=[1,128]\n\n"
            f"[profile]\nprofile_info={profile}\n"
        )
    return path


def _q4_config(folder: str, source: str) -> str:
    path = os.path.join(folder, "build-q.cfg")
    with open(path, "w") as f:
        f.write(
            "[onecc]\none-quantize=True\n\n"
            f"[one-quantize]\ninput_path={source}\n"
            f"output_path={folder}/{Q4_OUTPUT}\nquantize_weights_chunk=q4_0\n"
        )
    return path


def _weight_bytes(path: str) -> int:
    """Float32 bytes of the FULLY_CONNECTED and GATHER weights (what Q4_0 converts)."""
    model = one_cmds.load(path)
    chosen = {
        id(op.inputs[1] if op.opcode == "FULLY_CONNECTED" else op.inputs[0])
        for op in model.main.operators
        if op.opcode in ("FULLY_CONNECTED", "GATHER")
    }
    return sum(t.buffer.nbytes for t in model.main.referenced_tensors() if id(t) in chosen)


def _drop_page_cache() -> None:
    os.sync()
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


def _run(command: list[str], cold: bool) -> tuple[float, int]:
    """Wall time and peak RSS (bytes) of a child process."""
    if cold:
        _drop_page_cache()
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"{' '.join(command)} failed")
    return elapsed, usage.ru_maxrss * 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", default=os.path.join(tempfile.gettempdir(), "one-cmds-llm"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", action="store_true", help="keep the outputs of the last run")
    parser.add_argument("--cold", action="store_true", help="drop the page cache before each run")
    parser.add_argument("--build", metavar="PATH", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.build:
        _build(args.build)
        return
    os.makedirs(args.folder, exist_ok=True)
    source = os.path.join(args.folder, FILE)
    if not os.path.exists(source):
        subprocess.run([sys.executable, __file__, "--build", source], check=True)
    size = os.path.getsize(source)
    onecc = os.path.join(os.path.dirname(sys.executable), "onecc")
    runs: dict[str, list[tuple[float, int]]] = {"cp": [], "p": [], "n": [], "q": []}
    commands = {
        "cp": ["cp", source, os.path.join(args.folder, "copy.tflite")],
        "p": [onecc, "-C", _config(args.folder, source, True)],
        "n": [onecc, "-C", _config(args.folder, source, False)],
        "q": [onecc, "-C", _q4_config(args.folder, source)],
    }
    q4_size = 0
    for _ in range(args.repeat):
        for key, command in commands.items():
            runs[key].append(_run(command, args.cold))
            for name in ("copy.tflite", "out.circle", Q4_OUTPUT):
                path = os.path.join(args.folder, name)
                if name == Q4_OUTPUT and os.path.exists(path):
                    q4_size = os.path.getsize(path)
                if os.path.exists(path) and not args.keep:
                    os.remove(path)
    seconds = {k: statistics.median(t for t, _ in v) for k, v in runs.items()}
    peak = {k: max(r for _, r in v) for k, v in runs.items()}
    cache = "page cache dropped before each run" if args.cold else "model in the page cache"
    print(f"model {size / 1e9:.2f} GB, median of {args.repeat}, {cache}")
    print(f"  (cp) cp                              : {seconds['cp']:6.2f} s")
    for key, label in (("p", "with profiling data"), ("n", "without profiling data")):
        print(
            f"  ({key})  onecc import+resize+export, {label:22s}: {seconds[key]:6.2f} s  "
            f"= {seconds[key] / seconds['cp']:.2f} x cp  (target {1.5 if key == 'p' else 1.1}); "
            f"peak RSS {peak[key] / 1e9:.2f} GB = {peak[key] / size:.3f} x file (target 0.25)"
        )
    weights = _weight_bytes(source)
    print(
        f"  (q)  onecc quantize_weights_chunk=q4_0           : {seconds['q']:6.2f} s  "
        f"= {seconds['q'] / seconds['cp']:.2f} x cp  (target 3); "
        f"{weights / 1e6 / seconds['q']:.0f} MB/s of float32 weights; "
        f"peak RSS {peak['q'] / 1e9:.2f} GB = {peak['q'] / size:.3f} x file (target 0.25); "
        f"output {q4_size / 1e9:.2f} GB = {q4_size / size:.3f} x input"
    )


if __name__ == "__main__":
    main()
