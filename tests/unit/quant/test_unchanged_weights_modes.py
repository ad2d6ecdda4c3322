"""A weights mode that changes nothing says so in one line (issue 33, quantization.md §14.3):
on an already converted model, on an int8 model, with every weight below
``skip_chunkquant_size``, on a model without the operators it converts. The model is still
written (exit 0)."""

from __future__ import annotations

import pytest

import one_cmds
from one_cmds.cli import drivers
from support.passes import Net, fc_options


@pytest.fixture
def fc_model(tmp_path) -> str:
    net = Net()
    x = net.input("x", [1, 64])
    y = net.op("FULLY_CONNECTED", [x, net.random("w", [32, 64]), None], fc_options(), name="y")
    net.outputs(y)
    path = str(tmp_path / "fc.circle")
    one_cmds.save(net.model(), path)
    return path


def _warnings(capsys, args: list[str]) -> list[str]:
    assert drivers.one_quantize(args) == 0
    return [line for line in capsys.readouterr().err.splitlines() if line.startswith("WARNING")]


def test_each_weights_mode_that_changes_nothing_warns(fc_model, fixture_path, tmp_path, capsys):
    q4, again = str(tmp_path / "q4.circle"), str(tmp_path / "again.circle")
    assert _warnings(capsys, ["-i", fc_model, "-o", q4, "--quantize_weights_chunk", "q4_0"]) == []
    assert _warnings(capsys, ["-i", q4, "-o", again, "--quantize_weights_chunk", "q8_0"]) == [
        "WARNING: quantize_weights_chunk q8_0 changed nothing: every FULLY_CONNECTED/GATHER "
        "weight is already quantized"
    ]
    skip = ["--quantize_weights_chunk", "q4_0", "--skip_chunkquant_size", "4096"]
    assert _warnings(capsys, ["-i", fc_model, "-o", again, *skip]) == [
        "WARNING: quantize_weights_chunk q4_0 changed nothing: every float weight is below "
        "skip_chunkquant_size (4096 elements)"
    ]
    int8 = ["--quantize_weights", "--quantized_dtype", "int8", "--granularity", "channel"]
    model = fixture_path("int8_quant.tflite")
    assert _warnings(capsys, ["-i", model, "-o", again, *int8]) == [
        "WARNING: quantize_weights (int8) changed nothing: every CONV_2D/DEPTHWISE_CONV_2D/"
        "FULLY_CONNECTED weight is already quantized"
    ]
    kinds = [[op.opcode for op in one_cmds.load(m).main.operators] for m in (model, again)]
    assert kinds[0] == kinds[1]  # written as it was
