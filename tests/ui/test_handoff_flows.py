"""The hand-off does not matter (cli-and-config.md §10) for a build from each kind of source:
import -> resize -> O1 -> quantize as one ``onecc -C`` and as one driver command per step
(tests/support/handoff.py) write the same bytes, profiling tables included. The Hugging Face
decoders have unknown batch and sequence, so the resize works on what the import wrote; the
PyTorch program has an unknown batch. TensorFlow builds are the UI cases' (onecc_001, ...,
import_tf_optimize_quantize_pack), which test_ui runs both ways too; the corpus runs real
models (tests/corpus/test_handoff.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from support.handoff import Flow, differing, run_both
from support.ui_cases import FIXTURES


def _torch(name: str) -> str:
    from support.torch_fixtures import torch_fixtures

    return str(torch_fixtures() / name)


def _flows() -> dict[str, Callable[[], Flow]]:
    hf = FIXTURES / "hf"
    records = {
        "input_data": str(FIXTURES / "mobilenet_tiny_batch4_calibration.npz"),
        "input_data_format": "npz",
        "evaluate_result": True,
        "test_data": str(FIXTURES / "mobilenet_tiny_batch4_test.npz"),
    }
    int16 = {"quantized_dtype": "int16", "granularity": "channel"}
    tflite, onnx = "one-import-tflite", "one-import-onnx"
    return {
        "tflite-mobilenet": lambda: Flow(
            tflite, str(FIXTURES / "mobilenet_tiny.tflite"), {}, "[4,32,32,3]", records
        ),
        "onnx-llama": lambda: Flow(onnx, str(hf / "llama.onnx"), {}, "[1,16]"),
        "onnx-gpt2": lambda: Flow(onnx, str(hf / "gpt2_ts.onnx"), {}, "[1,1]", int16),
        "pytorch": lambda: Flow(
            "one-import-pytorch", _torch("test_pytorch_model.pt2"), {}, "[2,2,3,3]"
        ),
    }


FLOWS = _flows()


@pytest.mark.parametrize("name", FLOWS)
def test_one_config_and_separate_commands_write_the_same_bytes(name: str, tmp_path: Path) -> None:
    together, apart = run_both(FLOWS[name](), tmp_path)
    assert {"m.circle", "m.opt.circle", "m.q.circle"} <= set(together)
    assert differing(together, apart) == []
