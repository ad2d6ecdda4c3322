"""fake_quantize and the evaluate_result metrics (quantization.md §15-§17)."""

import numpy as np
import pytest

import one_cmds
from one_cmds.interp import Interpreter
from one_cmds.quant.metrics import report
from support.litert import REFERENCE, random_inputs, run_model


def test_metrics_lines_and_values():
    a = [np.array([0.0, 1.0, 2.0, 3.0, 4.0, 5.0])]
    b = [np.array([0.0, 1.5, 2.0, 3.0, 4.0, 4.0])]
    lines = report(["print_mae", "print_mpeir", "print_top1_match", "print_mse"], ["y"], [(a, b)])
    assert lines == [
        "Mean Absolute Error (MAE)",
        "MAE for y is 0.25",
        "Mean Peak Error to Interval Ratio (MPEIR)",
        "MPEIR for y is 0.2",
        "Ratio of Matched Indices between Top-1 results of the models",
        "Mean Top-1 match ratio for y is 0",
        "Mean Squared Error (MSE)",
        "MSE for y is 0.208333",
    ]


def test_top_k_of_a_small_output_is_skipped():
    lines = report(["print_top5_match"], ["y"], [([np.zeros(3)], [np.zeros(3)])])
    assert lines[1] == "Top-5 metric for y is ignored, because it has elements less than 5"


def test_mape_reports_inf_as_is():
    lines = report(["print_mape"], ["y"], [([np.array([0.0, 1.0])], [np.array([1.0, 1.0])])])
    assert lines[1] == "MAPE for y is inf%"


@pytest.mark.parametrize("name", ["mobilenet_tiny.tflite", "conv_spatial.tflite"])
def test_fake_quantized_model_simulates_the_quantized_one(fixture_path, name):
    model = one_cmds.load(fixture_path(name))
    quantized = one_cmds.quantize(model, input_type="float32", output_type="float32")
    simulated = one_cmds.quantize(quantized, fake_quantize=True)
    assert {t.dtype for t in simulated.main.outputs} == {"FLOAT32"}
    assert "CONV_2D" in [op.kind for op in simulated.main.operators]
    x = random_inputs(model, seed=6)
    (want,) = run_model(quantized, x, REFERENCE)
    (got,) = Interpreter(simulated).run(x)
    scale = float(quantized.main.operators[-1].inputs[0].quant.scale[0])
    assert np.max(np.abs(want - got)) <= 8 * scale, "within a few steps of the output grid"
