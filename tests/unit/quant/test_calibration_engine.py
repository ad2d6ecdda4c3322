"""Every quantization mode calibrates on LiteRT (issue 29): the weights that stage 1
fake-quantizes per channel keep their scales for stage 3, and LiteRT, which refused a float
tensor with per-channel scales, gets the model without them."""

import json
import os

import pytest

import one_cmds
from one_cmds.quant.data import records
from one_cmds.quant.default_pipeline import calibrate, fake_quantize_weights
from one_cmds.quant.options import CalibrationOptions
from support.in_process import run_program

MODES = [("uint8", "layer"), ("uint8", "channel"), ("int16", "channel"), ("int8", "channel")]


def _engine(model, dtype: str, granularity: str, quant_config=None) -> list[str]:
    fake_quantize_weights(model, dtype, granularity, quant_config)
    notes: list[str] = []
    data = records(model.main.inputs, None)
    calibrate(model, data, CalibrationOptions(), note=notes.append)
    return [n for n in notes if n.startswith("engine")]


@pytest.mark.parametrize(("dtype", "granularity"), MODES)
def test_every_mode_calibrates_on_litert(fixture_path, dtype, granularity):
    model = one_cmds.load(fixture_path("mobilenet_tiny.tflite"))
    assert _engine(model, dtype, granularity) == ["engine: litert"]


def test_a_quant_config_mix_calibrates_on_litert(fixture_path, tmp_path, capsys):
    model = one_cmds.load(fixture_path("mobilenet_tiny.tflite"))
    convs = [op.outputs[0].name for op in model.main.operators if op.opcode == "CONV_2D"]
    layer = {"names": convs[-1:], "dtype": "int16", "granularity": "channel"}
    mix = tmp_path / "mix.json"
    mix.write_text(json.dumps({"default_quantization_dtype": "uint8", "layers": [layer]}))
    args = ["-i", fixture_path("mobilenet_tiny.tflite"), "-o", "q.circle", "-V"]
    command = [*args, "--quant_config", str(mix)]
    assert run_program("one-quantize", command, tmp_path, dict(os.environ)) == 0
    assert "engine: litert" in capsys.readouterr().out
