"""Hugging Face models from PyTorch (issue 17; tests/fixtures/generate_hf.py): the decoders
LlamaForCausalLM, Qwen2ForCausalLM, MistralForCausalLM (sliding window), PhiForCausalLM (partial
rotary) and GPT2LMHeadModel, which read ``input_ids``, and the encoders BertForMaskedLM and
T5EncoderModel, which also read an ``attention_mask`` (padded rows in the references). Each is
exported by ``torch.onnx.export`` twice, dynamo (``<name>.onnx``) and TorchScript
(``<name>_ts.onnx``), with unknown batch and sequence. Each export imports with its dynamic dims,
``one-resize`` makes it fully static for [1,16], [2,32], [1,1] and [3,7], and LiteRT and the
interpreter both equal torch's output (atol 1e-4·max|output|); resized from a written file
(separate commands) it is the same model, byte for byte. Quantized on token records
(uint8 channel-wise, int16, int8; the TorchScript exports uint8 only), the integer run agrees
with float on the argmax of the last axis (the next token, the masked token, T5's largest
feature)."""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pytest

import one_cmds
from support.litert import DEFAULT, run_tflite

HF = Path(__file__).resolve().parents[2] / "fixtures" / "hf"
DECODERS = ("llama", "qwen2", "mistral", "phi", "gpt2")
ENCODERS = ("bert", "t5")
FAMILIES = DECODERS + ENCODERS
EXPORTS = FAMILIES + tuple(f"{name}_ts" for name in FAMILIES)
SHAPES = ("1x16", "2x32", "1x1", "3x7")
DTYPE_FLOORS = (("uint8", 0.9), ("int16", 0.95), ("int8", 0.9))


def _quantized_cases() -> list:
    """Every dtype for the exports of both exporters (the TorchScript one writes SDPA's mask
    as ``Where(mask, 0, -inf)``: calibration counts -inf as float32's lowest)."""
    return [
        pytest.param(export, dtype, floor, id=f"{export}-{dtype}")
        for name in FAMILIES
        for export in (name, f"{name}_ts")
        for dtype, floor in DTYPE_FLOORS
    ]


@functools.cache
def _export(name: str) -> tuple[one_cmds.Model, dict[str, np.ndarray]]:
    """An export as imported, and its family's references."""
    family = name.removesuffix("_ts")
    with np.load(HF / f"{family}_reference.npz") as archive:
        reference = dict(archive)
    return one_cmds.load(str(HF / f"{name}.onnx")), reference


def _feeds(model: one_cmds.Model, arrays: list[np.ndarray]) -> list[np.ndarray]:
    """Token ids (and masks) in the integer type of the model's inputs."""
    return [
        a.astype(np.int64 if t.dtype == "INT64" else np.int32)
        for t, a in zip(model.main.inputs, arrays, strict=True)
    ]


def _reference_feeds(model: one_cmds.Model, reference: dict, shape: str) -> list[np.ndarray]:
    keys = ("ids", "mask")[: len(model.main.inputs)]
    return _feeds(model, [reference[f"{shape}_{key}"] for key in keys])


def _resized(model: one_cmds.Model, shape: str) -> one_cmds.Model:
    """``model`` with every input (ids, mask) resized to ``shape``."""
    dims = "[" + shape.replace("x", ",") + "]"
    return one_cmds.resize(model, ",".join([dims] * len(model.main.inputs)))


@pytest.mark.parametrize("name", EXPORTS)
def test_imports_with_dynamic_batch_and_sequence(name):
    model, reference = _export(name)
    names = ["input_ids", "attention_mask"] if "1x16_mask" in reference else ["input_ids"]
    assert [(t.name, t.shape) for t in model.main.inputs] == [(n, (None, None)) for n in names]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("name", EXPORTS)
def test_resized_static_equals_torch(name, shape, tmp_path):
    model, reference = _export(name)
    resized = _resized(model, shape)
    assert [t.name for t in resized.main.referenced_tensors() if not t.is_static] == []
    feeds, want = _reference_feeds(resized, reference, shape), reference[f"{shape}_logits"]
    tolerance = 1e-4 * float(np.abs(want).max())
    (ours,) = one_cmds.Interpreter(resized).run(feeds)
    np.testing.assert_allclose(ours, want, rtol=0, atol=tolerance)
    one_cmds.save(resized, str(tmp_path / f"{name}.tflite"))
    (litert,) = run_tflite(str(tmp_path / f"{name}.tflite"), feeds, DEFAULT)
    np.testing.assert_allclose(litert, want, rtol=0, atol=tolerance)


@functools.cache
def _written(name: str, folder: str) -> one_cmds.Model:
    """The import written to a circle file and read back (one-import-onnx, then one-resize as
    a separate command)."""
    path = str(Path(folder) / f"{name}.circle")
    one_cmds.save(_export(name)[0], path)
    return one_cmds.load(path)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("name", EXPORTS)
def test_resized_from_a_written_file_is_the_same(name, shape, tmp_path, tmp_path_factory):
    """The hand-off does not matter: resized from the file, the model is as static, writes
    the same bytes as resized in memory, and LiteRT runs it to torch's output."""
    model, reference = _export(name)
    written = _written(name, str(tmp_path_factory.getbasetemp()))
    resized = _resized(written, shape)
    assert [t.name for t in resized.main.referenced_tensors() if not t.is_static] == []
    from_file, in_memory = tmp_path / "file.tflite", tmp_path / "memory.tflite"
    one_cmds.save(resized, str(from_file))
    one_cmds.save(_resized(model, shape), str(in_memory))
    assert from_file.read_bytes() == in_memory.read_bytes()
    feeds, want = _reference_feeds(resized, reference, shape), reference[f"{shape}_logits"]
    (litert,) = run_tflite(str(from_file), feeds, DEFAULT)
    np.testing.assert_allclose(litert, want, rtol=0, atol=1e-4 * float(np.abs(want).max()))


@pytest.mark.parametrize(("name", "dtype", "floor"), _quantized_cases())
def test_quantized_argmax_agrees(name, dtype, floor, tmp_path):
    """Argmax agreement with float on 8 records of 16 tokens (the note lists the figures);
    calibrated on 16 records, masks all ones."""
    model, _ = _export(name)
    static = one_cmds.optimize(_resized(model, "1x16"), "O1")
    rng = np.random.default_rng(0)

    def records(count: int) -> list[np.ndarray]:
        ids, mask = rng.integers(0, 128, (count, 1, 16)), np.ones((count, 1, 16), np.int64)
        return _feeds(static, [ids, mask][: len(static.main.inputs)])

    np.savez(tmp_path / "tokens.npz", **{str(k): a for k, a in enumerate(records(16))})
    q = one_cmds.quantize(
        static, quantized_dtype=dtype, granularity="channel", output_type="float32",
        input_data=str(tmp_path / "tokens.npz"), input_data_format="npz",
    )  # fmt: skip
    float_run, integer_run = one_cmds.Interpreter(static), one_cmds.Interpreter(q)
    agreement = np.mean(
        [
            np.argmax(integer_run.run(list(r))[0], -1) == np.argmax(float_run.run(list(r))[0], -1)
            for r in zip(*records(8), strict=True)
        ]
    )
    assert agreement >= floor
