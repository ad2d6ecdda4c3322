"""The decoder judges of the LLM weight formats (quantization.md §23.3) on the §23.3 judge
decoder (torch, vocabulary 512, hidden 128) and on decoders of other makers: each mode's
logits against the float model's, with thresholds recorded from the first measurement
(error at most 1.5 times the measured mean and maximum, agreement at least the measured one
minus 0.05; benchmarks/weight_formats.py prints the table)."""

from __future__ import annotations

import numpy as np
import pytest

import one_cmds
from one_cmds.interp import Interpreter
from support.decoder_judges import FIXTURES, MODES, judge, logits, token_records
from support.torch_fixtures import torch_fixtures

# decoder -> mode -> (agreement, error mean, error max) measured on 2026-12-02
MEASURED = {
    "judge": {
        "q8_0": (1.000, 0.0069, 0.0092),
        "q4_0": (0.766, 0.1130, 0.1328),
        "int8 channel": (1.000, 0.0042, 0.0050),
        "int4 channel": (0.922, 0.0767, 0.0935),
        "int4 block 32": (0.891, 0.0744, 0.0898),
    },
    "llama": {
        "q8_0": (1.000, 0.0081, 0.0110),
        "q4_0": (0.794, 0.1277, 0.1561),
        "int8 channel": (1.000, 0.0062, 0.0079),
        "int4 channel": (0.810, 0.1094, 0.1368),
        "int4 block 32": (0.794, 0.1095, 0.1369),
    },
    "gpt_decoder": {
        "q8_0": (0.984, 0.0092, 0.0201),
        "q4_0": (0.938, 0.1358, 0.2211),
        "int8 channel": (1.000, 0.0077, 0.0122),
        "int4 channel": (0.922, 0.1450, 0.2593),
        "int4 block 32": (0.922, 0.1391, 0.2430),
    },
}


def _decoder(name: str) -> tuple[one_cmds.Model, int]:
    if name == "judge":
        return one_cmds.load(str(torch_fixtures() / "judge_decoder.pt2")), 512
    if name == "llama":
        model = one_cmds.load(str(FIXTURES / "hf" / "llama.onnx"))
        return one_cmds.resize(model, ",".join(["[1,16]"] * len(model.main.inputs))), 128
    model = one_cmds.load(str(FIXTURES / f"{name}.tflite"))
    return one_cmds.resize(model, "[1,16]"), 64


@pytest.fixture(scope="module", params=list(MEASURED))
def decoder(request):
    model, vocab = _decoder(request.param)
    records = token_records(model, vocab)
    return request.param, model, records, logits(model, records)


@pytest.mark.parametrize("mode", list(MODES))
def test_each_weight_format_stays_near_the_float_logits(decoder, mode):
    name, model, records, expected = decoder
    quantized = one_cmds.quantize(model, **MODES[mode])
    found = judge(expected, logits(quantized, records))
    agreement, error_mean, error_max = MEASURED[name][mode]
    assert found.positions >= 60
    assert found.agreement >= agreement - 0.05
    assert found.error_mean <= 1.5 * error_mean
    assert found.error_max <= 1.5 * error_max


def test_8_bit_formats_are_far_closer_than_4_bit_ones(decoder):
    """int8 and Q8_0 are several times closer to float than the 4-bit formats."""
    _, model, records, expected = decoder
    errors = {
        mode: judge(expected, logits(one_cmds.quantize(model, **options), records)).error_mean
        for mode, options in MODES.items()
    }
    eight_bit = max(errors["q8_0"], errors["int8 channel"])
    assert 5 * eight_bit < min(errors["q4_0"], errors["int4 channel"], errors["int4 block 32"])


def test_int8_weights_only_decoder_runs_alike_in_litert(tmp_path):
    """The hybrid int8 judge decoder in LiteRT (dynamic-range kernels quantize each input row
    at run time) within 2% of the largest logit of the interpreter's (§23.2)."""
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    model, vocab = _decoder("judge")
    quantized = one_cmds.quantize(model, **MODES["int8 channel"])
    path = tmp_path / "judge_int8.tflite"
    one_cmds.save(quantized, str(path))
    litert = LiteRT(model_path=str(path))
    litert.allocate_tensors()
    (ids,) = token_records(quantized, vocab)[0]
    litert.set_tensor(litert.get_input_details()[0]["index"], ids)
    litert.invoke()
    ours = Interpreter(quantized).run([ids])[0]
    theirs = litert.get_tensor(litert.get_output_details()[0]["index"])
    assert np.abs(ours - theirs).max() <= 0.02 * np.abs(ours).max()
