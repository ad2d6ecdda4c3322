"""A file is the model (DESIGN.md): ``load(save(m))`` equals ``m`` in everything the IR holds
(tensors with their dtype, shape, constness and data, zero-element constants included,
quantization, sparsity and variables; operators and options; origins, their tables and the
source md5; signature defs, metadata, subgraphs), and the file read back is written again
byte for byte. Checked on every bundled fixture (TFLite, ONNX, the Hugging Face exports,
PyTorch, TensorFlow) after its import and after each stage of a typical build: resize to
static shapes where an input is dynamic, O1, then quantization (uint8 on random records, or
an LLM weight format for the decoders whose token ids random records cannot feed). The
corpus holds the same property for the real models (tests/corpus, check ``file``)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

import one_cmds
from support.fixtures import ALL_MODELS, FIXTURES
from support.model_equality import file_differences

Stage = Callable[[one_cmds.Model], one_cmds.Model]
HF = os.path.join(FIXTURES, "hf")
ONNX = os.path.join(FIXTURES, "onnx")
TORCH_SHAPE = [(1, 2, 3, 3)]


def static(model: one_cmds.Model) -> one_cmds.Model:
    """Resize an unknown batch to 1 and another unknown dimension to 16 (a sequence)."""
    shapes = [
        tuple((1 if k == 0 else 16) if d is None else d for k, d in enumerate(t.shape))
        for t in model.main.inputs
    ]
    return one_cmds.resize(model, shapes)


def o1(model: one_cmds.Model) -> one_cmds.Model:
    return one_cmds.optimize(model, "O1")


def uint8(model: one_cmds.Model) -> one_cmds.Model:
    return one_cmds.quantize(model)


def q4_0(model: one_cmds.Model) -> one_cmds.Model:
    return one_cmds.quantize(model, quantize_weights_chunk="q4_0")


def int8_weights(model: one_cmds.Model) -> one_cmds.Model:
    return one_cmds.quantize(model, quantize_weights=True)


BUILD = (o1, uint8)
DYNAMIC_BUILD = (static, o1, uint8)
# Fixtures a float calibration does not fit: already integer, several subgraphs, token ids
# beyond what random records hold, a mask whose random values make the softmax NaN.
STAGES: dict[str, tuple[Stage, ...]] = {
    "int8_quant.tflite": (o1,),
    "mobilenet_tiny_int8.tflite": (o1,),
    "two_subgraphs.tflite": (o1,),
    "llama_decoder.tflite": (static, o1, q4_0),
    "gpt_decoder.tflite": (static, o1, q4_0),
    "onnx/bert.onnx": (static, o1, int8_weights),
}


def _onnx_sources() -> list[str]:
    files = [f"onnx/{n}" for n in sorted(os.listdir(ONNX)) if n.endswith(".onnx")]
    files += [f"hf/{n}" for n in sorted(os.listdir(HF)) if n.endswith(".onnx")]
    return [*files, "onnx_cnn.onnx"]


def _load_fixture(name: str) -> Callable[[], one_cmds.Model]:
    return lambda: one_cmds.load(os.path.join(FIXTURES, name))


def _load_torch(name: str, **options: object) -> Callable[[], one_cmds.Model]:
    def load() -> one_cmds.Model:
        from one_cmds.frontends.pytorch import import_pytorch
        from support.torch_fixtures import GENERATOR, torch_fixtures

        if "python_path" in options:
            options["python_path"] = str(GENERATOR)
        path = str(torch_fixtures() / name)
        return import_pytorch(path, **options).model  # type: ignore[arg-type]

    return load


def _load_tf(name: str) -> Callable[[], one_cmds.Model]:
    def load() -> one_cmds.Model:
        from support.tf_fixtures import tf_fixtures

        return one_cmds.load(str(tf_fixtures() / name))

    return load


def _sources() -> list[object]:
    torch_args = {"input_shapes": TORCH_SHAPE, "input_types": ["float32"]}
    sources: list[tuple[str, Callable[[], one_cmds.Model], tuple[Stage, ...]]] = [
        *((name, _load_fixture(name), STAGES.get(name, DYNAMIC_BUILD)) for name in ALL_MODELS),
        *((name, _load_fixture(name), STAGES.get(name, DYNAMIC_BUILD)) for name in _onnx_sources()),
        ("torch/test_pytorch_model.pt2", _load_torch("test_pytorch_model.pt2"), DYNAMIC_BUILD),
        ("torch/decoder.pt2", _load_torch("decoder.pt2"), DYNAMIC_BUILD),
        ("torch/torchscript_model.pth", _load_torch("torchscript_model.pth", **torch_args), BUILD),
        (
            "torch/state_dict_model.pth",
            _load_torch("state_dict_model.pth", python_path="", **torch_args),
            BUILD,
        ),
        ("tf/test_saved_model", _load_tf("test_saved_model"), BUILD),
        ("tf/test_keras_model.keras", _load_tf("test_keras_model.keras"), BUILD),
    ]
    return [pytest.param(load, stages, id=name) for name, load, stages in sources]


@pytest.mark.parametrize(("load", "stages"), _sources())
def test_a_file_is_the_model(
    load: Callable[[], one_cmds.Model], stages: tuple[Stage, ...], tmp_path: Path
) -> None:
    model = load()
    assert file_differences(model, tmp_path) == [], "after the import"
    for stage in stages:
        model = stage(model)
        assert file_differences(model, tmp_path) == [], f"after {stage.__name__}"
