"""LLM weight formats (quantization.md §21-§23) on the decoder fixtures: per decoder and mode,
top-1 agreement and relative logit error against the float model, the output's size against
the float file, and the time of the quantization.

    python benchmarks/weight_formats.py

Decoders: the §23.3 judge decoder (torch: vocabulary 512, hidden 128, 2 layers; made by
tests/fixtures/torch/aux_generator.py), the Hugging Face exports of tests/fixtures/hf
(vocabulary 128, hidden 32) and the TensorFlow-made llama/gpt decoders of tests/fixtures, each
resized to [1, 16]; 4 records of 16 seeded tokens (64 positions), run by the interpreter.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

import one_cmds  # noqa: E402
from support.decoder_judges import MODES, judge, logits, token_records  # noqa: E402
from support.torch_fixtures import torch_fixtures  # noqa: E402

FIXTURES = HERE.parent / "tests" / "fixtures"
HF = ("llama", "qwen2", "mistral", "phi", "gpt2")


def decoders() -> dict[str, tuple[one_cmds.Model, int]]:
    """Name -> (float model resized to [1, 16], vocabulary size)."""
    found = {"judge (torch)": (one_cmds.load(str(torch_fixtures() / "judge_decoder.pt2")), 512)}
    for name in HF:
        model = one_cmds.load(str(FIXTURES / "hf" / f"{name}.onnx"))
        shapes = ",".join(["[1,16]"] * len(model.main.inputs))
        found[f"{name} (HF)"] = (one_cmds.resize(model, shapes), 128)
    for name in ("llama_decoder", "gpt_decoder"):
        model = one_cmds.load(str(FIXTURES / f"{name}.tflite"))
        found[f"{name} (TF)"] = (one_cmds.resize(model, "[1,16]"), 64)
    return found


def main() -> None:
    print(f"{'decoder':16s} {'mode':14s} {'top-1':>6s} {'pos':>4s} {'err mean':>9s} "
          f"{'err max':>8s} {'size':>6s} {'time':>7s}")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        for name, (model, vocab) in decoders().items():
            records = token_records(model, vocab)
            expected = logits(model, records)
            float_path = Path(tmp) / "float.circle"
            one_cmds.save(model, str(float_path))
            for mode, options in MODES.items():
                started = time.perf_counter()
                quantized = one_cmds.quantize(model, **options)
                spent = time.perf_counter() - started
                path = Path(tmp) / "q.circle"
                one_cmds.save(quantized, str(path))
                size = path.stat().st_size / float_path.stat().st_size
                j = judge(expected, logits(quantized, records))
                print(
                    f"{name:16s} {mode:14s} {j.agreement:6.3f} {j.positions:4d} "
                    f"{j.error_mean:9.4f} {j.error_max:8.4f} {size:6.3f} {spent:6.2f}s",
                    flush=True,
                )


if __name__ == "__main__":
    main()
