"""The LiteRT engine (engines/litert.py, engines/choice.py): calibration ranges equal the
reference interpreter's within float rounding on every float fixture, the choice and its
fallbacks, extra outputs."""

from __future__ import annotations

import numpy as np
import pytest

import one_cmds
from one_cmds.engines.choice import litert_runner
from one_cmds.engines.litert import LiteRTError
from one_cmds.quant.calibration import record_minmax
from support.fixtures import FLOAT_MODELS
from support.litert import random_inputs


def _ranges(model, data, engine):
    minmax = record_minmax(model, data, engine=engine)
    return {t.name: (minmax.mins[k], minmax.maxs[k]) for k, t in minmax.tensors.items()}


@pytest.mark.parametrize("name", FLOAT_MODELS)
def test_litert_ranges_equal_the_reference_ranges(fixture_path, name):
    model = one_cmds.load(fixture_path(name))
    data = [random_inputs(model, seed) for seed in range(4)]
    notes = []
    litert = record_minmax(model, data, engine="auto", note=notes.append)
    if notes[0] != "engine: litert":
        pytest.skip(f"{name}: {notes[0]}")
    ours = {t.name: (litert.mins[k], litert.maxs[k]) for k, t in litert.tensors.items()}
    reference = _ranges(model, data, "reference")
    assert ours.keys() == reference.keys()
    for tensor, (lo, hi) in reference.items():
        scale = max(1.0, *np.abs(lo), *np.abs(hi))
        np.testing.assert_allclose(ours[tensor][0], lo, rtol=1e-5, atol=1e-5 * scale)
        np.testing.assert_allclose(ours[tensor][1], hi, rtol=1e-5, atol=1e-5 * scale)


def test_auto_falls_back_to_the_reference_for_what_litert_cannot_run(fixture_path):
    model = one_cmds.load(fixture_path("gelu_erf_custom.tflite"))  # a custom operator
    notes = []
    assert litert_runner(model, "auto", note=notes.append) is None
    assert notes[0].startswith("engine: reference (LiteRT cannot run the model: ")
    with pytest.raises(LiteRTError, match="LiteRT cannot run the model"):
        litert_runner(model, "litert")


def test_quantized_operators_without_litert_kernels_fall_back(fixture_path):
    q = one_cmds.quantize(
        one_cmds.load(fixture_path("mobilenet_tiny.tflite")), granularity="channel"
    )
    notes = []
    assert litert_runner(q, "auto", note=notes.append) is None
    assert "per-channel UINT8 weights" in notes[0]


def test_extra_outputs_are_the_interpreter_s_values(fixture_path):
    model = one_cmds.load(fixture_path("mobilenet_tiny.tflite"))
    tensors = [op.outputs[0] for op in model.main.operators]
    runner = litert_runner(model, "litert", tensors)
    x = random_inputs(model, 3)
    outputs, extra = runner.run(x)
    seen = one_cmds.Interpreter(model).run_all(x)
    for t, value in zip(runner.extra, extra, strict=True):
        np.testing.assert_allclose(value, seen[t.name], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(outputs[0], seen[model.main.outputs[0].name], rtol=1e-5, atol=1e-6)
