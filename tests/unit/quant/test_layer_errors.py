"""The per-layer quantization error report of ``evaluate_result`` (a one-cmds addition)."""

import math

import numpy as np
import pytest

import one_cmds
from one_cmds.engines.tensor_values import TensorValues
from one_cmds.interp import Interpreter
from one_cmds.quant.data import records
from one_cmds.quant.layer_errors import (
    GRAPH_INPUT,
    HEADER,
    LayerError,
    csv_text,
    layer_errors,
    ranked,
    tensor_pairs,
    write_csv,
)
from one_cmds.report.console import capture, table


def _row(name: str, signal: float, noise: float, peirs: list[float]) -> LayerError:
    return LayerError(0, "ADD", name, "UINT8", [0.5], [3], signal, noise, peirs)


def test_sqnr_and_peir_of_one_record():
    row = _row("y", 0.0, 0.0, [])
    row.add(np.array([0.0, 1.0, 2.0, 3.0]), np.array([0.0, 1.0, 2.5, 3.0]))
    assert row.sqnr == pytest.approx(10 * math.log10(14 / 0.25))
    assert row.peir == pytest.approx(0.5 / 3)


def test_sqnr_pools_the_records_and_peir_averages_them():
    row = _row("y", 0.0, 0.0, [])
    row.add(np.zeros(2), np.zeros(2))  # an all-zero record does not make the result inf
    row.add(np.array([1.0, -1.0]), np.array([1.0, -0.5]))
    assert row.sqnr == pytest.approx(10 * math.log10(2 / 0.25))
    assert row.peir == pytest.approx((0.0 + 0.25) / 2)


def test_exact_and_all_zero_edges():
    assert _row("a", 1.0, 0.0, [0.0]).sqnr == math.inf
    assert _row("b", 0.0, 0.0, [0.0]).sqnr == math.inf
    assert _row("c", 0.0, 1.0, [1.0]).sqnr == -math.inf


def test_ranking_is_lowest_sqnr_then_highest_peir():
    rows = [_row("good", 100, 1, [0.1]), _row("bad", 10, 1, [0.1]), _row("worse", 10, 1, [0.2])]
    assert [r.name for r in ranked(rows)] == ["worse", "bad", "good"]


def test_csv_columns_and_atomic_write(tmp_path):
    rows = [_row("y", 10.0, 1.0, [0.25]), LayerError(None, GRAPH_INPUT, "x", "INT16", [], [])]
    text = csv_text(rows)
    assert text.splitlines() == [
        ",".join(HEADER),
        "0,ADD,y,UINT8,0.5,3,10,0.25",
        ",(graph input),x,INT16,,,inf,0",
    ]
    path = tmp_path / "q.circle.qerror.csv"
    write_csv(str(path), rows)
    assert path.read_text() == text
    assert [p.name for p in tmp_path.iterdir()] == [path.name], "no temporary file left"


@pytest.fixture
def mobilenet(fixture_path):
    return one_cmds.load(fixture_path("mobilenet_tiny.tflite"))


def _errors(model, **options):
    quantized = one_cmds.quantize(model, **options)
    return quantized, layer_errors(model, quantized, records(model.main.inputs, None))


def test_every_float_operator_output_and_the_input_are_compared(mobilenet):
    _, rows = _errors(mobilenet)
    names = {t.name for op in mobilenet.main.operators for t in op.outputs}
    assert {r.name for r in rows} == names | {"input"}
    assert {r.dtype for r in rows} == {"UINT8"} and all(len(r.scale) == 1 for r in rows)
    assert all(r.sqnr > 20 and r.peir < 0.2 for r in rows), "uint8 errors of a sane model"
    by_name = {r.name: r for r in rows}
    assert by_name["input"].index is None and by_name["input"].opcode == GRAPH_INPUT
    assert by_name["Identity"].opcode == "SOFTMAX"
    assert by_name["Identity"].index == len(mobilenet.main.operators) - 1


def test_float_io_compares_the_renamed_tensors_around_quantize_and_dequantize(mobilenet):
    """input_type/output_type float32 put the model-dtype values in ``input_Quantize`` and
    ``Identity_Dequantize``; those are compared, with the same errors as the uint8 I/O."""
    _, uint8_rows = _errors(mobilenet)
    quantized, rows = _errors(mobilenet, input_type="float32", output_type="float32")
    by_name = {r.name: r for r in rows}
    assert by_name["input"].dtype == by_name["Identity"].dtype == "UINT8"
    assert [(r.name, r.sqnr, r.peir) for r in rows] == [
        (r.name, r.sqnr, r.peir) for r in uint8_rows
    ]
    # the output row is the dequantized quantized output against the float one, taken from
    # the engine layer_errors takes it from (LiteRT, the compared tensors as extra outputs):
    # the same float64 sums
    output, data = mobilenet.main.outputs[0], list(records(mobilenet.main.inputs, None))
    compared = {row.name for _, row in tensor_pairs(mobilenet.main, quantized.main)}
    tensors = [t for t in mobilenet.main.referenced_tensors() if t.name in compared]
    engine, reference = TensorValues(mobilenet, tensors), Interpreter(mobilenet)
    float_runs = [(engine.run(r)[output.name], reference.run(r)[0]) for r in data]
    (dequantize,) = [op for op in quantized.main.operators if op.opcode == "DEQUANTIZE"]
    source = dequantize.inputs[0]  # the model-dtype output, dequantized in float64 here
    scale, zero_point = float(source.quant.scale[0]), int(source.quant.zero_point[0])
    integer_run = Interpreter(quantized)
    quantized_runs = [
        scale * (np.float64(integer_run.run_all(r)[source.name]) - zero_point) for r in data
    ]
    signal, noise = _sums([a for a, _ in float_runs], quantized_runs)
    assert by_name["Identity"].sqnr == pytest.approx(10 * math.log10(signal / noise), rel=1e-12)
    # against the reference interpreter's float output, within what the two engines' float
    # rounding can move it: with D = ||a' - a|| over every record, the triangle inequality
    # bounds sqrt(signal) and sqrt(noise) within D of their reference values
    ref_signal, ref_noise = _sums([a for _, a in float_runs], quantized_runs)
    d = math.sqrt(sum(float(np.sum((np.float64(a) - b) ** 2)) for a, b in float_runs))
    bound = 20 / math.log(10) * (d / (math.sqrt(ref_signal) - d) + d / (math.sqrt(ref_noise) - d))
    reference_sqnr = 10 * math.log10(ref_signal / ref_noise)
    assert abs(by_name["Identity"].sqnr - reference_sqnr) <= bound


def _sums(expected: list[np.ndarray], got: list[np.ndarray]) -> tuple[float, float]:
    """Σa² and Σ(a-b)² over every record, in float64."""
    signal = sum(float(np.sum(np.float64(a) ** 2)) for a in expected)
    noise = sum(
        float(np.sum((np.float64(a) - np.float64(b)) ** 2))
        for a, b in zip(expected, got, strict=True)
    )
    return signal, noise


def test_int16_rows(mobilenet):
    _, rows = _errors(mobilenet, quantized_dtype="int16", granularity="channel")
    assert {r.dtype for r in rows} == {"INT16"} and {z for r in rows for z in r.zero_point} == {0}
    assert min(r.sqnr for r in rows) > 50, "int16 is far more precise than uint8"


def test_tensors_on_one_side_only_are_skipped(mobilenet):
    quantized = one_cmds.quantize(mobilenet)
    quantized.main.operators[3].outputs[0].name = "renamed"
    rows = layer_errors(mobilenet, quantized, records(mobilenet.main.inputs, None))
    assert "renamed" not in {r.name for r in rows}
    assert mobilenet.main.operators[3].outputs[0].name not in {r.name for r in rows}
    assert len(rows) == len(mobilenet.main.operators)  # the input, minus the renamed one


def test_the_step_prints_the_table_and_writes_the_csv(mobilenet, tmp_path, capsys):
    output = tmp_path / "q.circle"
    one_cmds.quantize(mobilenet, evaluate_result=True, output_path=str(output))
    shown = capsys.readouterr().out
    assert "SQNR (dB)" in shown and "the 10 worst of 19" in shown
    lines = (tmp_path / "q.circle.qerror.csv").read_text().splitlines()
    assert lines[0] == ",".join(HEADER) and len(lines) == 20


def test_without_an_output_path_no_csv_is_written(mobilenet, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    one_cmds.quantize(mobilenet, evaluate_result=True)
    assert "SQNR (dB)" in capsys.readouterr().out
    assert list(tmp_path.iterdir()) == []


def test_table_goes_to_stdout_and_to_the_step_log_as_plain_text(capsys):
    long = "a_rather_long_tensor_name;" * 6
    with capture() as lines:
        table("Title", ["op", "tensor name"], [["1", long]])
    shown = capsys.readouterr().out
    assert long in shown, "not wrapped when stdout is not a terminal"
    assert lines[0] == "Title" and any(long in line for line in lines)
    assert any("tensor name" in line for line in lines)
    assert all("\x1b" not in line for line in lines)


def test_a_quantized_model_that_does_not_run_is_a_warning(mobilenet, tmp_path, monkeypatch, capsys):
    from one_cmds.interp import InterpreterError
    from one_cmds.stages import quantize as stage

    def fail(*_):
        raise InterpreterError("CUSTOM(X) (graph 0, operator 3): no kernel for this operator")

    monkeypatch.setattr(stage, "layer_errors", fail)
    one_cmds.quantize(mobilenet, evaluate_result=True, output_path=str(tmp_path / "q.circle"))
    shown = capsys.readouterr()
    assert "WARNING: no per-layer error report: the quantized model does not run" in shown.err
    assert "SQNR" not in shown.out and list(tmp_path.iterdir()) == []


def test_the_float_side_on_litert_gives_the_reference_rows(mobilenet):
    quantized = one_cmds.quantize(mobilenet)
    data = list(records(mobilenet.main.inputs, None))
    notes: list[str] = []
    litert = layer_errors(mobilenet, quantized, data, "litert", notes.append)
    reference = layer_errors(mobilenet, quantized, data, "reference")
    assert notes == ["engine: litert"]
    by_name = {r.name: r for r in reference}
    assert {r.name for r in litert} == set(by_name)
    for row in litert:
        assert row.sqnr == pytest.approx(by_name[row.name].sqnr, rel=1e-4)
        assert row.peir == pytest.approx(by_name[row.name].peir, rel=1e-4, abs=1e-6)
