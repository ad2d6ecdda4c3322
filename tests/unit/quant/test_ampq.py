"""``ampq``: automatic mixed precision (quant/ampq.py, quant/ampq_patterns.py, quant/visq.py;
reference circle-mpqsolver). The quantized models run in one_cmds.Interpreter and their error
against the float model is measured here, on the calibration records."""

import json
import re
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

import one_cmds
from one_cmds.config.resolve import build_options, convert_values
from one_cmds.config.source import Source
from one_cmds.errors import OneCmdsError
from one_cmds.ir import Graph, Model, Operator, Tensor
from one_cmds.ir.schema import new_options
from one_cmds.quant.ampq import AmpqSettings, Keep, depths, solve
from one_cmds.quant.data import records
from one_cmds.quant.default_pipeline import calibrate
from one_cmds.quant.errors import QuantizeError
from one_cmds.quant.visq import read_visq

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
MOBILENET = FIXTURES / "mobilenet_tiny.tflite"
CALIBRATION = FIXTURES / "mobilenet_tiny_calibration.npz"
FLOAT_IO = {"input_type": "float32", "output_type": "float32"}
QUANTIZE_OPS = ("QUANTIZE", "DEQUANTIZE")


def step_options(**options):
    source = Source(place="test")
    raw = {"input_path": "<m>", "output_path": "<m>", "ampq": True, **options}
    section = convert_values("one-quantize", raw, source)
    return build_options("one-quantize", main=source, section=section)


@dataclass
class Calibrated:
    """A float model, its min/max-recorded copy, the records and the step's options."""

    model: Model
    recorded: Model
    data: list
    options: object

    def solve(self, **settings):
        return solve(self.recorded, self.model, self.data, self.options, AmpqSettings(**settings))

    def error(self, quantized: Model) -> float:
        """The reference's MAE of ``quantized`` (run with its integer kernels) against the
        float model."""
        float_run, run = one_cmds.Interpreter(self.model), one_cmds.Interpreter(quantized)
        return float(
            np.mean(
                [
                    np.mean(np.abs(a.astype(np.float64) - b))
                    for record in self.data
                    for a, b in zip(float_run.run(record), run.run(record), strict=True)
                ]
            )
        )


def calibrated(source: Path | Model, **options) -> Calibrated:
    model = source if isinstance(source, Model) else one_cmds.load(str(source))
    opts = step_options(**{**FLOAT_IO, **options})
    data = list(records(model.main.inputs, opts.input_data, opts.input_data_format))
    recorded = model.copy()
    calibrate(recorded, data, opts)
    return Calibrated(model, recorded, data, opts)


@pytest.fixture(scope="module")
def mobilenet():
    return calibrated(MOBILENET, input_data=str(CALIBRATION), input_data_format="npz")


def int16_operators(model: Model) -> list[str]:
    """Names of the computing operators whose result is int16 (a graph output's producer
    writes ``<name>_Quantize`` when the QUANTIZE back to uint8 takes the name)."""
    return [
        op.outputs[0].name.removesuffix("_Quantize")
        for op in model.main.operators
        if op.opcode not in QUANTIZE_OPS and op.outputs[0].dtype == "INT16"
    ]


def computing(model: Model) -> list[Operator]:
    return [op for op in model.main.operators if op.opcode not in QUANTIZE_OPS]


def test_depth_is_the_longest_path_from_an_input(mobilenet):
    reached, max_depth = depths(mobilenet.recorded.main)
    ops = mobilenet.recorded.main.operators
    assert [op for op, _ in reached] == ops
    # a chain with two residual ADDs: every operator is one deeper than the one before
    assert [d for _, d in reached] == list(range(1, len(ops) + 1))
    assert max_depth == len(ops) + 1  # the graph output, one past the SOFTMAX


def test_ratio_zero_is_the_int16_model(mobilenet):
    outcome = mobilenet.solve(ratio=0.0, bisection_type="i16_front")
    q16, q8 = outcome.trials[0].error, outcome.trials[1].error
    assert outcome.dtype == "int16" and outcome.target == q16 < q8
    assert len(outcome.int16) == outcome.operators == len(mobilenet.model.main.operators)
    assert int16_operators(outcome.model) == [op.outputs[0].name for op in computing(outcome.model)]
    # the default pipeline's int16 model (weights fake-quantized before calibration)
    reference = one_cmds.quantize(
        mobilenet.model,
        quantized_dtype="int16",
        granularity="channel",
        input_data=str(CALIBRATION),
        input_data_format="npz",
        **FLOAT_IO,
    )
    error, int16 = mobilenet.error(outcome.model), mobilenet.error(reference)
    assert error == pytest.approx(int16, rel=0.05)  # measured 1.1249e-4 and 1.1248e-4
    assert error == pytest.approx(q16, rel=0.05)  # the solver's fake-quantized measure


def test_ratio_one_is_the_uint8_model(mobilenet):
    outcome = mobilenet.solve(ratio=1.0, bisection_type="i16_front")
    assert outcome.dtype == "uint8" and outcome.int16 == []
    assert int16_operators(outcome.model) == []
    assert not any(t.dtype == "INT16" for t in outcome.model.main.referenced_tensors())
    error = mobilenet.error(outcome.model)
    assert error == pytest.approx(outcome.trials[1].error, rel=0.1)  # measured 2.08e-3, 1.98e-3


@pytest.mark.parametrize("side", ["i16_front", "i16_back"])
def test_middle_ratio_meets_the_target_with_fewer_int16_operators(mobilenet, side):
    outcome = mobilenet.solve(ratio=0.75, bisection_type=side)
    q16, q8 = outcome.trials[0].error, outcome.trials[1].error
    assert outcome.target == pytest.approx(q16 + 0.75 * (q8 - q16))
    assert outcome.dtype == "uint8" and outcome.error < outcome.target
    assert 0 < len(outcome.int16) < outcome.operators
    assert sorted(int16_operators(outcome.model)) == sorted(outcome.int16)
    error = mobilenet.error(outcome.model)
    u8 = mobilenet.error(mobilenet.solve(ratio=1.0).model)
    # integer kernels against the solver's fake-quantized measure: within 3 % (measured
    # front 1.4799e-3 / 1.4729e-3, back 1.4024e-3 / 1.4309e-3; target 1.5119e-3, uint8 2.08e-3)
    assert error <= 1.03 * outcome.target and error < u8


@pytest.mark.parametrize("side", ["i16_front", "i16_back"])
def test_bisection_stops_next_to_a_cut_that_misses_the_target(mobilenet, side):
    """The cut found is one step from a measured cut with one more uint8 depth level that
    misses the target: no cut with fewer int16 operators was left untried."""
    outcome = mobilenet.solve(ratio=0.75, bisection_type=side)
    cuts = {t.cut: t for t in outcome.trials if t.cut is not None}
    best = next(t for t in cuts.values() if t.error == outcome.error)
    fewer = cuts[best.cut - 1] if side == "i16_front" else cuts[best.cut + 1]
    assert fewer.int16 == best.int16 - 1 and fewer.error >= outcome.target


def test_equal_errors_keep_the_uint8_model():
    """add2 with uint8 inputs and outputs: the uint8 I/O bounds both errors alike."""
    setup = calibrated(FIXTURES / "add2.tflite", input_type="uint8", output_type="uint8")
    outcome = setup.solve(ratio=0.0)
    assert outcome.trials[0].error == outcome.trials[1].error  # q16 == q8
    assert outcome.dtype == "uint8" and int16_operators(outcome.model) == []


def test_front_and_back_choose_different_operators(mobilenet):
    ops = [op.outputs[0].name for op in mobilenet.model.main.operators]
    front = mobilenet.solve(ratio=0.75, bisection_type="i16_front").int16
    back = mobilenet.solve(ratio=0.75, bisection_type="i16_back").int16
    assert front == ops[: len(front)] and back == ops[-len(back) :]
    assert front != back


def test_auto_takes_the_half_where_the_visq_map_sums_more_error(mobilenet, tmp_path):
    ops = [op.outputs[0].name for op in mobilenet.model.main.operators]
    for heavy, side in ((ops[-1], "i16_back"), (ops[0], "i16_front")):
        path = tmp_path / "given.visq.json"
        path.write_text(json.dumps({"meta": {}, "error": [{heavy: 100.0, ops[5]: 1.0}]}))
        settings = AmpqSettings.of(
            options_with(ampq_bisection_visq=str(path), ampq_qerror_ratio=0.75)
        )
        outcome = solve(
            mobilenet.recorded, mobilenet.model, mobilenet.data, mobilenet.options, settings
        )
        assert side in outcome.summary
        assert heavy in outcome.int16


def test_auto_without_a_map_writes_the_tae_map_of_the_uint8_model(mobilenet, tmp_path):
    kept = {}
    visq = tmp_path / "m.tae.visq.json"
    keep = Keep(lambda model, suffix: kept.setdefault(suffix, model), str(visq), "m.tflite")
    settings = AmpqSettings(ratio=0.75)
    outcome = solve(
        mobilenet.recorded, mobilenet.model, mobilenet.data, mobilenet.options, settings, keep=keep
    )
    document = json.loads(visq.read_text())
    assert document["meta"]["model"] == "m.tflite" and document["meta"]["metric"] == "TAE"
    assert [c["c"] for c in document["meta"]["colorscheme"]][::8] == ["#ffffcc", "#800026"]
    errors = read_visq(str(visq))
    assert list(errors) == [op.outputs[0].name for op in mobilenet.model.main.operators]
    assert all(v > 0 for v in errors.values())
    q8 = kept["visq.q8"]  # uint8 everywhere, uint8 inputs and outputs
    assert {t.dtype for t in q8.main.inputs + q8.main.outputs} == {"UINT8"}
    assert int16_operators(q8) == []
    # the sums of the map decide the side (front: depth < the middle, 9.5)
    front = sum(errors[name] for name in list(errors)[:9])
    rear = sum(errors.values()) - front
    assert ("i16_front" if front > rear else "i16_back") in outcome.summary


def options_with(**options):
    return SimpleNamespace(
        **{
            "ampq_qerror_ratio": None,
            "ampq_algorithm": "bisection",
            "bisection_type": "auto",
            "u8_layernorm_with_s16_variance": False,
            "u8_softmax_with_s16_sub_exp": False,
            "ampq_bisection_visq": None,
            **options,
        }
    )


def test_settings_defaults_and_bad_values(tmp_path):
    assert AmpqSettings.of(options_with()) == AmpqSettings("bisection", 0.5, "auto")
    for key, value in (
        ("ampq_qerror_ratio", 1.5),
        ("ampq_qerror_ratio", -0.1),
        ("ampq_qerror_ratio", float("nan")),
        ("ampq_algorithm", "greedy"),
        ("bisection_type", "middle"),
    ):
        with pytest.raises(QuantizeError, match=key):
            AmpqSettings.of(options_with(**{key: value}))
    broken = tmp_path / "broken.json"
    for text, message in (("{", "not a JSON file"), ('{"error": {}}', "no 'error' section")):
        broken.write_text(text)
        with pytest.raises(
            QuantizeError, match=f"ampq_bisection_visq: {re.escape(str(broken))}.*{message}"
        ):
            AmpqSettings.of(options_with(ampq_bisection_visq=str(broken)))
    with pytest.raises(QuantizeError, match=r"cannot read .*missing\.json"):
        AmpqSettings.of(options_with(ampq_bisection_visq=str(tmp_path / "missing.json")))
    assert AmpqSettings.of(options_with(quant_config="q.json")).ignored() == [
        "'quant_config' has no effect with ampq: the solver picks the layers"
    ]
    # the map is read only where auto bisection uses it
    unused = options_with(ampq_bisection_visq=str(broken), bisection_type="i16_back")
    assert AmpqSettings.of(unused).ignored() == [
        "'ampq_bisection_visq' has no effect with bisection_type=i16_back"
    ]


def test_bad_ratio_and_algorithm_stop_the_step_before_any_work(monkeypatch):
    import one_cmds.stages.quantize as stage

    monkeypatch.setattr(stage, "calibrate", lambda *a, **k: pytest.fail("calibrated"))
    model = one_cmds.load(str(MOBILENET))
    with pytest.raises(OneCmdsError, match=r"ampq_qerror_ratio must be in \[0, 1\]"):
        one_cmds.quantize(model, ampq=True, ampq_qerror_ratio=1.01)
    with pytest.raises(OneCmdsError, match=r"invalid choice: 'greedy'.*ampq_algorithm"):
        one_cmds.quantize(model, ampq=True, ampq_algorithm="greedy")


def test_the_step_calibrates_once(monkeypatch):
    import one_cmds.stages.quantize as stage

    calls = []
    real = stage.calibrate
    monkeypatch.setattr(stage, "calibrate", lambda *a, **k: calls.append(1) or real(*a, **k))
    model = one_cmds.load(str(MOBILENET))
    q = one_cmds.quantize(model, ampq=True, ampq_qerror_ratio=0.75, bisection_type="i16_back")
    assert calls == [1]
    assert 0 < len(int16_operators(q)) < len(model.main.operators)
    assert [t.dtype for t in q.main.inputs + q.main.outputs] == ["UINT8", "UINT8"]


def test_pattern_puts_the_layernorm_variance_in_int16():
    for name, variance in (
        (
            "instnorm_decomposed",
            ["moments/SquaredDifference", "moments/variance", "batchnorm/add", "batchnorm/Rsqrt"],
        ),
        (
            "transformer_block",
            [
                *("SquaredDifference", "Mean_1", "add", "Rsqrt"),
                *("SquaredDifference_1", "Mean_3", "add_5", "Rsqrt_1"),
            ],
        ),
    ):
        setup = calibrated(FIXTURES / f"{name}.tflite")
        outcome = solve(
            setup.recorded,
            setup.model,
            setup.data,
            setup.options,
            AmpqSettings("pattern", patterns=("u8_layernorm_with_s16_variance",)),
        )
        assert outcome.int16 == variance
        assert int16_operators(outcome.model) == variance
        uint8 = setup.solve(ratio=1.0).model
        # measured: instnorm 1.0734e-2 both, transformer 2.3387e-2 against 2.4445e-2
        assert setup.error(outcome.model) <= setup.error(uint8) + 1e-9


def softmax_model() -> Model:
    """``Div(e, Sum(e))``, ``e = Exp(Sub(x, ReduceMax(x)))`` over the last axis."""
    x = Tensor("x", "FLOAT32", (1, 4, 8))
    axis = Tensor.constant("axis", np.array([-1], np.int32), "INT32")
    peak, total = Tensor("peak", "FLOAT32", (1, 4, 1)), Tensor("total", "FLOAT32", (1, 4, 1))
    d, e, y = (Tensor(n, "FLOAT32", (1, 4, 8)) for n in ("d", "e", "y"))
    keep = {"options": new_options("ReducerOptions", keepDims=True)}
    ops = [
        Operator("REDUCE_MAX", [x, axis], [peak], **keep),
        Operator("SUB", [x, peak], [d], options=new_options("SubOptions")),
        Operator("EXP", [d], [e], options=new_options("ExpOptions")),
        Operator("SUM", [e, axis], [total], **keep),
        Operator("DIV", [e, total], [y], options=new_options("DivOptions")),
    ]
    return Model(graphs=[Graph("main", [x], [y], ops)])


def test_pattern_puts_the_softmax_sub_exp_in_int16():
    setup = calibrated(softmax_model())
    settings = AmpqSettings("pattern", patterns=("u8_softmax_with_s16_sub_exp",))
    outcome = solve(setup.recorded, setup.model, setup.data, setup.options, settings)
    assert int16_operators(outcome.model) == outcome.int16 == ["d", "e"]
    dtypes = {op.outputs[0].name: op.outputs[0].dtype for op in computing(outcome.model)}
    assert [dtypes[n] for n in ("peak", "d", "e", "total")] == ["UINT8", "INT16", "INT16", "UINT8"]
    uint8 = setup.solve(ratio=1.0).model
    # measured 1.24e-3 against 1.89e-3
    assert setup.error(outcome.model) < 0.8 * setup.error(uint8)


def test_pattern_without_a_pattern_is_the_uint8_model():
    model = one_cmds.load(str(FIXTURES / "instnorm_decomposed.tflite"))
    settings = AmpqSettings("pattern")
    assert settings.ignored() == [
        "ampq_algorithm=pattern without u8_layernorm_with_s16_variance or "
        "u8_softmax_with_s16_sub_exp: every operator is uint8"
    ]
    q = one_cmds.quantize(model, ampq=True, ampq_algorithm="pattern")
    assert int16_operators(q) == []
