"""int8 for LiteRT (quantization.md §24): ``quantized_dtype=int8``.

The scheme is the TFLite converter's: int8 asymmetric activations, symmetric per-channel int8
weights, int32 biases, float I/O by default. Judged by LiteRT: the written model runs in its
default resolver (XNNPACK) and its builtin and reference kernels, the reference kernels equal
the interpreter, and the error against the float model is compared with the converter's own
int8 model of the same float model, calibrated on the same records.
"""

import numpy as np
import pytest

import one_cmds
from one_cmds.quant.invariants import invariant_problem
from one_cmds.quant.metrics import METRICS
from support.litert import BUILTIN, DEFAULT, REFERENCE, run_model, run_tflite

TEST_RECORDS = 20


@pytest.fixture(scope="module")
def int8_mobilenet(request):
    fixtures = request.config.rootpath / "tests" / "fixtures"
    float_model = one_cmds.load(str(fixtures / "mobilenet_tiny.tflite"))
    quantized = one_cmds.quantize(
        float_model,
        quantized_dtype="int8",
        input_data=str(fixtures / "mobilenet_tiny_calibration.npz"),
        input_data_format="npz",
        min_percentile=0.0,
        max_percentile=100.0,
    )
    records = np.load(fixtures / "mobilenet_tiny_test.npz")["0"][:TEST_RECORDS]
    return float_model, quantized, records, fixtures


def test_the_scheme_of_the_converter(int8_mobilenet):
    _, model, _, _ = int8_mobilenet
    main = model.main
    assert main.inputs[0].dtype == "FLOAT32" and main.outputs[0].dtype == "FLOAT32"
    assert [main.operators[0].opcode, main.operators[-1].opcode] == ["QUANTIZE", "DEQUANTIZE"]
    for op in main.operators:
        if op.opcode in ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED"):
            x, w, b = op.inputs[:3]
            assert x.dtype == w.dtype == op.outputs[0].dtype == "INT8"
            channels = w.shape[3 if op.opcode == "DEPTHWISE_CONV_2D" else 0]
            assert len(w.quant.scale) == channels, "per-channel weights"
            assert not w.quant.zero_point.any(), "symmetric weights"
            assert w.data.min() >= -127
            assert b.dtype == "INT32" and not b.quant.zero_point.any()
        for t in op.outputs:
            if t.dtype == "INT8":
                assert -128 <= int(t.quant.zero_point[0]) <= 127
    assert invariant_problem(model) is None


@pytest.mark.parametrize(
    "resolver", [DEFAULT, BUILTIN, REFERENCE], ids=["xnnpack", "builtin", "ref"]
)
def test_litert_runs_it_like_the_interpreter(int8_mobilenet, resolver):
    _, model, records, _ = int8_mobilenet
    interpreter = one_cmds.Interpreter(model, engine="reference")
    scale = float(model.main.operators[-1].inputs[0].quant.scale[0])
    for record in records[:5]:
        (want,) = interpreter.run([record])
        (got,) = run_model(model, [record], resolver)
        # The optimized kernels round their own way, up to 1 LSB per operator; through the
        # model's 18 operators and the softmax that amplifies logit differences, the output
        # was measured within 3 LSB (the converter's own int8 model differs alike).
        tolerance = 0 if resolver == REFERENCE else 4
        assert np.abs(got - want).max() <= tolerance * scale + 1e-7


def test_error_against_float_matches_the_converter(int8_mobilenet):
    """MPEIR against the float model, ours and the converter's int8 model (calibrated on the
    same 64 records with min/max ranges), in LiteRT's reference kernels."""
    float_model, ours, records, fixtures = int8_mobilenet
    converter_path = str(fixtures / "mobilenet_tiny_int8.tflite")
    converter = one_cmds.load(converter_path)
    qin, qout = converter.main.inputs[0].quant, converter.main.outputs[0].quant
    float_run = one_cmds.Interpreter(float_model)
    pairs_ours, pairs_converter = [], []
    for record in records:
        (want,) = float_run.run([record])
        x = np.clip(np.round(record / qin.scale[0]) + qin.zero_point[0], -128, 127)
        (q,) = run_tflite(converter_path, [x.astype(np.int8)], REFERENCE)
        theirs = (q.astype(np.float64) - qout.zero_point[0]) * qout.scale[0]
        pairs_converter.append(([want], [theirs]))
        pairs_ours.append(([want], run_model(ours, [record], REFERENCE)))
    mpeir = METRICS["print_mpeir"][2]
    ours_error = float(np.mean([mpeir(a[0], b[0]) for a, b in pairs_ours]))
    converter_error = float(np.mean([mpeir(a[0], b[0]) for a, b in pairs_converter]))
    print(f"MPEIR ours {ours_error:.5f}, converter {converter_error:.5f}")
    assert ours_error <= 1.15 * converter_error, (ours_error, converter_error)


def test_config_defaults_and_uint8_io(tmp_path, fixture_path):
    model = one_cmds.load(fixture_path("add2.tflite"))
    uint8_io = one_cmds.quantize(
        model, quantized_dtype="int8", input_type="uint8", output_type="uint8"
    )
    main = uint8_io.main
    assert {t.dtype for t in main.inputs} == {"UINT8"} and main.outputs[0].dtype == "UINT8"
    assert main.operators[0].opcode == "QUANTIZE"
    assert main.operators[0].outputs[0].dtype == "INT8"
    inputs = [np.full(t.shape, 100, np.uint8) for t in main.inputs]
    run_model(uint8_io, inputs, DEFAULT)
