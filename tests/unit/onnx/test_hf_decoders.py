"""Hugging Face decoders from PyTorch (issue 17): LlamaForCausalLM, Qwen2ForCausalLM and
GPT2LMHeadModel exported by ``torch.onnx.export(dynamo=True)`` with unknown batch and sequence
(tests/fixtures/generate_hf.py). Each imports with its dynamic dims, ``one-resize`` makes it
fully static for [1,16], [2,32], [1,1] and [3,7], and LiteRT and the interpreter both equal
torch's logits (atol 1e-4·max|logit|). Quantized on token records (uint8 channel-wise, int16,
int8), the integer run agrees with float on the next token."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import one_cmds
from support.litert import DEFAULT, run_tflite

HF = Path(__file__).resolve().parents[2] / "fixtures" / "hf"
DECODERS = ("llama", "qwen2", "gpt2")
SHAPES = ("1x16", "2x32", "1x1", "3x7")


@pytest.fixture(scope="module", params=DECODERS)
def decoder(request):
    model = one_cmds.load(str(HF / f"{request.param}.onnx"))
    return request.param, model, np.load(HF / f"{request.param}_reference.npz")


def _ids(model: one_cmds.Model, ids: np.ndarray) -> np.ndarray:
    return ids.astype(np.int64 if model.main.inputs[0].dtype == "INT64" else np.int32)


def test_imports_with_dynamic_batch_and_sequence(decoder):
    _, model, _ = decoder
    assert model.main.inputs[0].shape == (None, None)


@pytest.mark.parametrize("shape", SHAPES)
def test_resized_static_equals_torch(decoder, shape, tmp_path):
    name, model, reference = decoder
    resized = one_cmds.resize(model, "[" + shape.replace("x", ",") + "]")
    assert [t.name for t in resized.main.referenced_tensors() if not t.is_static] == []
    ids, want = _ids(resized, reference[f"{shape}_ids"]), reference[f"{shape}_logits"]
    tolerance = 1e-4 * float(np.abs(want).max())
    (ours,) = one_cmds.Interpreter(resized).run([ids])
    np.testing.assert_allclose(ours, want, rtol=0, atol=tolerance)
    one_cmds.save(resized, str(tmp_path / f"{name}.tflite"))
    (litert,) = run_tflite(str(tmp_path / f"{name}.tflite"), [ids], DEFAULT)
    np.testing.assert_allclose(litert, want, rtol=0, atol=tolerance)


@pytest.mark.parametrize(("dtype", "floor"), [("uint8", 0.9), ("int16", 0.95), ("int8", 0.9)])
def test_quantized_next_token_agrees(decoder, dtype, floor, tmp_path):
    """Top-1 agreement with float on 8 records of 16 tokens (the note lists the figures)."""
    _, model, _ = decoder
    static = one_cmds.optimize(one_cmds.resize(model, "[1,16]"), "O1")
    rng = np.random.default_rng(0)
    np.savez(tmp_path / "tokens.npz", **{"0": _ids(static, rng.integers(0, 128, (16, 1, 16)))})
    q = one_cmds.quantize(
        static, quantized_dtype=dtype, granularity="channel", output_type="float32",
        input_data=str(tmp_path / "tokens.npz"), input_data_format="npz",
    )  # fmt: skip
    records = _ids(static, rng.integers(0, 128, (8, 1, 16)))
    float_run, integer_run = one_cmds.Interpreter(static), one_cmds.Interpreter(q)
    agreement = np.mean(
        [
            np.argmax(integer_run.run([r])[0], -1) == np.argmax(float_run.run([r])[0], -1)
            for r in records
        ]
    )
    assert agreement >= floor
