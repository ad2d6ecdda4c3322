"""A Hugging Face Llama exported from PyTorch with its key/value cache, at real size (issue 32):
import, resize, Q4_0 conversion and a prefill + decode run, each in a process of its own, with
its wall time and peak RSS, against torch.onnx.export of the same program alone and torch's
own forward.

    pip install -e '.[test]'        # torch, transformers
    python benchmarks/llm_pytorch.py [--size tiny|0.5b|3b] [--workdir DIR]

Sizes (random weights, float16 unless ``--dtype float32``): ``tiny`` (hidden 64, 2 layers; a
check of the script), ``0.5b`` (hidden 1536, 16 layers, GQA 12/4, vocabulary 32000: the
issue's model) and ``3b`` (Llama-3.2-3B's shape: hidden 3072, 28 layers, GQA 24/8,
vocabulary 128256, tied embeddings). The model is ``tests/support/hf_cache.py``'s WithCache
(batch, sequence and past length dynamic) saved with ``torch.export`` as ``model.pt2``.
Phases (the ratio each is judged by in the last column):
  export   ``torch.onnx.export(torch.export.load(pt2), dynamo=True)`` alone (the baseline);
  import   ``one-import-pytorch`` (time against export; peak RSS against the .pt2's size and
           against export's peak);
  resize   ``one-resize`` to a decode model, 1 token after 127 cached positions;
  q4_0     ``one-quantize --quantize_weights_chunk q4_0`` of the resized model;
  torch    torch's prefill of 16 tokens and 16 greedy decode steps with the cache (the runtime
           baseline; skipped with ``--no-run``);
  run      the same steps in LiteRT (``one_cmds.Interpreter``), the imported model resized in
           memory for each: a static model per past length, so LiteRT prepares 17 models;
  import_masked  ``one-import-pytorch`` of the same weights exported as ``WithMask`` (a
           fixed-size cache of 32 slots, the position and a mask as inputs: static);
  masked   the same tokens in LiteRT with that one model (the prompt token by token).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SIZES = {
    "tiny": dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                 num_attention_heads=4, num_key_value_heads=2, vocab_size=256),
    "0.5b": dict(hidden_size=1536, intermediate_size=4096, num_hidden_layers=16,
                 num_attention_heads=12, num_key_value_heads=4, vocab_size=32000),
    "3b": dict(hidden_size=3072, intermediate_size=8192, num_hidden_layers=28,
               num_attention_heads=24, num_key_value_heads=8, vocab_size=128256,
               tie_word_embeddings=True),
}  # fmt: skip
PAST = 127
PROMPT = list(range(1, 17))  # the prefill: 16 tokens
STEPS = 16  # greedy decode steps after it
# Runs one phase in a child process (a driver of one_cmds.cli.drivers, or a phase_* function
# of this file) and prints its exit code and peak RSS (KiB) as the last line.
CHILD = """
import importlib.util, json, resource, sys
sys.path.insert(0, {tests!r})
phase, args = sys.argv[1], json.loads(sys.argv[2])
code = 0
if phase == "cli":
    from one_cmds.cli import drivers
    code = getattr(drivers, args[0].replace("-", "_"))(args[1:])
else:
    spec = importlib.util.spec_from_file_location("bench", {script!r})
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    getattr(bench, "phase_" + phase)(**args)
print(code, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def _config(size: str, dtype: str):
    import torch
    import transformers

    config = transformers.LlamaConfig(**SIZES[size], max_position_embeddings=4096)
    config.dtype = getattr(torch, dtype)
    return config


def phase_make(size: str, dtype: str, path: str, masked: str) -> None:
    """The seeded random model, exported with its cache to ``path`` and with a fixed-size
    cache and a mask (``WithMask``: one decode model for every past length) to ``masked``."""
    import torch
    import transformers

    from support.hf_cache import Decoder, export, export_masked

    torch.manual_seed(0)
    config = _config(size, dtype)
    torch.set_default_dtype(getattr(torch, dtype))  # built in its type: no float32 copy
    model = transformers.LlamaForCausalLM(config).eval()
    heads = config.num_key_value_heads
    found = Decoder(model, config.num_hidden_layers, heads, config.head_dim)
    export(found, path, max_seq=2048, max_past=4096)
    export_masked(found, masked, max_past=len(PROMPT) + STEPS)


def phase_export(path: str) -> None:
    """torch.onnx.export of the saved program alone (the import's first step)."""
    import torch

    torch.onnx.export(torch.export.load(path), (), dynamo=True, verbose=False)


def _empty_cache(size: str, dtype: str) -> list:
    import numpy as np

    config = _config(size, dtype)
    shape = (1, config.num_key_value_heads, 0, config.head_dim)
    return [np.zeros(shape, np.float32) for _ in range(2 * config.num_hidden_layers)]


def _greedy(step, size: str, dtype: str, tokens_path: str) -> None:
    """Prefill :data:`PROMPT` then :data:`STEPS` greedy decode steps with ``step(ids, cache)
    -> (logits, cache)``; the tokens go to ``tokens_path``."""
    import numpy as np

    ids, cache, tokens = np.array([PROMPT], np.int64), _empty_cache(size, dtype), []
    for _ in range(STEPS + 1):
        logits, cache = step(ids, cache)
        tokens.append(int(np.argmax(logits[0, -1])))
        ids = np.array([[tokens[-1]]], np.int64)
    Path(tokens_path).write_text(json.dumps(tokens[:STEPS]))


def phase_torch(size: str, dtype: str, path: str, tokens: str) -> None:
    """torch's prefill and decode steps with the exported program (the runtime baseline)."""
    import torch

    program = torch.export.load(path).module()
    kind = getattr(torch, dtype)

    def step(ids, cache):
        with torch.no_grad():
            logits, *present = program(
                torch.from_numpy(ids), *(torch.from_numpy(c).to(kind) for c in cache)
            )
        return logits.float().numpy(), [c.float().numpy() for c in present]

    _greedy(step, size, dtype, tokens)


def phase_run(size: str, dtype: str, path: str, tokens: str) -> None:
    """The same steps in LiteRT, the imported circle resized for each (static shapes: the
    prompt with an empty cache, then one token after each past length)."""
    import one_cmds

    base = one_cmds.load(path)

    def step(ids, cache):
        shapes = ",".join(f"[{','.join(map(str, x.shape))}]" for x in (ids, *cache))
        logits, *present = one_cmds.Interpreter(one_cmds.resize(base, shapes)).run([ids, *cache])
        return logits, present

    _greedy(step, size, dtype, tokens)


def phase_masked(size: str, dtype: str, path: str, tokens: str) -> None:
    """The same tokens in LiteRT with the imported ``WithMask`` model: one interpreter for
    the prompt (token by token) and every decode step."""
    import numpy as np

    import one_cmds
    from support.hf_cache import masked_decode

    config = _config(size, dtype)
    shape = (1, config.num_key_value_heads, len(PROMPT) + STEPS, config.head_dim)
    cache = [np.zeros(shape, np.float32) for _ in range(2 * config.num_hidden_layers)]
    run = one_cmds.Interpreter(one_cmds.load(path)).run
    Path(tokens).write_text(json.dumps(masked_decode(run, cache, PROMPT, STEPS)[len(PROMPT) :]))


def _timed(phase: str, args: object, log: Path) -> tuple[float, float]:
    """Seconds and peak RSS (GiB) of one phase in a child process."""
    child = CHILD.format(tests=str(HERE.parent / "tests"), script=__file__)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", child, phase, json.dumps(args)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    seconds = time.perf_counter() - started
    with log.open("a") as f:
        f.write(f"== {phase} {args}\n{done.stdout}{done.stderr}")
    last = done.stdout.strip().splitlines()[-1].split() if done.stdout.strip() else ["1"]
    if done.returncode != 0 or last[0] != "0":
        raise SystemExit(f"{phase} failed; see {log}")
    return seconds, int(last[1]) / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", choices=SIZES, default="tiny")
    parser.add_argument("--dtype", choices=("float16", "float32"), default="float16")
    parser.add_argument(
        "--workdir", help="where the files go (default: a temporary folder); a model.pt2 already "
        "there is used as it is",
    )  # fmt: skip
    parser.add_argument(
        "--no-run", action="store_true",
        help="skip the torch and LiteRT decode steps (LiteRT holds float32 copies of float16 "
        "weights: about 7x the .pt2)",
    )  # fmt: skip
    args = parser.parse_args()
    work = Path(args.workdir or tempfile.mkdtemp(prefix="llm_pytorch_"))
    work.mkdir(parents=True, exist_ok=True)
    pt2, log = work / "model.pt2", work / "log.txt"
    circle, decode, q4 = work / "model.circle", work / "decode.circle", work / "decode_q4.circle"
    common = {"size": args.size, "dtype": args.dtype}
    masked, masked_circle = work / "masked.pt2", work / "masked.circle"
    if not (pt2.exists() and masked.exists()):  # made once per workdir (seeded: the same model)
        _timed("make", {**common, "path": str(pt2), "masked": str(masked)}, log)
    config = _config(args.size, args.dtype)
    cache = [1, config.num_key_value_heads, PAST, config.head_dim]
    shapes = ",".join(["[1,1]"] + [str(cache).replace(" ", "")] * (2 * config.num_hidden_layers))
    rows = {
        "export": _timed("export", {"path": str(pt2)}, log),
        "import": _timed("cli", ["one-import-pytorch", "-i", str(pt2), "-o", str(circle)], log),
        "resize": _timed(
            "cli", ["one-resize", "-i", str(circle), "-o", str(decode), "-s", shapes], log
        ),
        "q4_0": _timed("cli", ["one-quantize", "-i", str(decode), "-o", str(q4),
                               "--quantize_weights_chunk", "q4_0"], log),
    }  # fmt: skip
    if not args.no_run:
        torch_tokens, run_tokens = work / "tokens_torch.json", work / "tokens_run.json"
        rows["torch"] = _timed(
            "torch", {**common, "path": str(pt2), "tokens": str(torch_tokens)}, log
        )
        rows["run"] = _timed("run", {**common, "path": str(circle), "tokens": str(run_tokens)}, log)
        import_masked = ["one-import-pytorch", "-i", str(masked), "-o", str(masked_circle)]
        rows["import_masked"] = _timed("cli", import_masked, log)
        masked_tokens = work / "tokens_masked.json"
        rows["masked"] = _timed(
            "masked", {**common, "path": str(masked_circle), "tokens": str(masked_tokens)}, log
        )
        expected = json.loads(torch_tokens.read_text())
        same = {
            phase: sum(a == b for a, b in zip(expected, json.loads(t.read_text()), strict=True))
            for phase, t in (("run", run_tokens), ("masked", masked_tokens))
        }
    size = pt2.stat().st_size / 2**30
    export_s, export_gib = rows["export"]
    print(f"{args.size} ({args.dtype}), model.pt2 {size:.2f} GiB, files in {work}")
    for phase, (seconds, gib) in rows.items():
        ratio = ""
        if phase == "import":
            ratio = (f"time {seconds / export_s:.2f}x export (goal <= 1.0), peak {gib / size:.2f}x "
                     f"the .pt2 (goal <= 1.5), {gib / export_gib:.2f}x export's peak")  # fmt: skip
        elif phase in ("resize", "q4_0"):
            ratio = f"peak {gib / size:.2f}x the .pt2"
        elif phase in ("run", "masked"):
            ratio = (f"{seconds / rows['torch'][0]:.2f}x torch's process; {same[phase]} of "
                     f"{STEPS} greedy tokens equal torch's")  # fmt: skip
        print(f"  {phase:13s} {seconds:8.1f} s  peak {gib:6.2f} GiB  {ratio}")


if __name__ == "__main__":
    main()
