"""The default quantization pipeline end to end: uint8 layer-wise models run in LiteRT and
stay close to the float model; int16 channel-wise models have the structure of §14."""

import warnings

import numpy as np
import pytest

import one_cmds
from one_cmds.errors import OneCmdsError
from support.litert import BUILTIN, REFERENCE, random_inputs, run_model
from support.passes import Net

FLOAT_IO = {"input_type": "float32", "output_type": "float32"}


@pytest.mark.parametrize(
    ("name", "tolerance"), [("mobilenet_tiny.tflite", 0.02), ("add2.tflite", 0.1)]
)
def test_uint8_layer_model_runs_in_litert_close_to_float(fixture_path, tmp_path, name, tolerance):
    model = one_cmds.load(fixture_path(name))
    inputs = random_inputs(model, seed=4)
    path = str(tmp_path / f"{name}.npz")
    np.savez(path, **{str(i): x[None] for i, x in enumerate(inputs)})
    quantized = one_cmds.quantize(model, input_data=path, input_data_format="npz", **FLOAT_IO)
    want = run_model(model, inputs, BUILTIN)
    got = run_model(quantized, inputs, REFERENCE)
    for w, g in zip(want, got, strict=True):
        assert np.max(np.abs(w - g)) <= tolerance * max(1.0, float(np.max(np.abs(w))))
    kinds = [op.kind for op in quantized.main.operators]
    assert kinds[0] == "QUANTIZE" and kinds[-1] == "DEQUANTIZE"
    assert model.main.inputs[0].dtype == "FLOAT32", "the input model is untouched"


def test_int16_channel_structure(fixture_path):
    model = one_cmds.load(fixture_path("mobilenet_tiny.tflite"))
    q = one_cmds.quantize(model, quantized_dtype="int16", granularity="channel")
    conv = next(op for op in q.main.operators if op.opcode == "CONV_2D")
    x, w, b = conv.inputs[:3]
    assert (x.dtype, w.dtype, b.dtype, conv.outputs[0].dtype) == (
        "INT16",
        "INT16",
        "INT64",
        "INT16",
    )
    assert int(x.quant.zero_point[0]) == 0 and len(w.quant.scale) == w.shape[0]
    assert w.quant.min is None and x.quant.min is None, "ranges are cleared at the end"


def test_layer_wise_int16_is_refused(fixture_path):
    model = one_cmds.load(fixture_path("add2.tflite"))
    with pytest.raises(OneCmdsError, match=r"Layer-wise quantization only supports uint8 dtype\."):
        one_cmds.quantize(model, quantized_dtype="int16", granularity="layer")


def test_int16_concatenation_inputs_are_requantized_to_its_qparams(fixture_path):
    """LiteRT's int16 CONCATENATION joins values unscaled: inputs must share its qparams."""
    from one_cmds.interp import Interpreter

    model = one_cmds.load(fixture_path("splitv_equal.tflite"))
    q = one_cmds.quantize(model, quantized_dtype="int16", granularity="channel", **FLOAT_IO)
    concat = next(op for op in q.main.operators if op.opcode == "CONCATENATION")
    for t in concat.inputs:
        assert t.quant.scale.tolist() == concat.outputs[0].quant.scale.tolist()
    assert any(
        op.opcode == "QUANTIZE" and op.outputs[0] in concat.inputs for op in q.main.operators
    )
    x = random_inputs(model, seed=9)
    (want,) = run_model(model, x, BUILTIN)
    (got,) = Interpreter(q).run(x)
    assert np.max(np.abs(want - got)) <= 1e-3 * float(np.ptp(want))


def test_a_min_max_clamp_shares_its_input_qparams(fixture_path):
    """LiteRT's integer MINIMUM/MAXIMUM compare raw values: constants and results take the
    clamped tensor's qparams, so the uint8 model stays close to float in LiteRT."""
    model = one_cmds.load(fixture_path("clamp_dense.tflite"))
    q = one_cmds.quantize(model, **FLOAT_IO)
    x_q = q.main.operators[0].outputs[0].quant
    for op in q.main.operators[1:3]:
        assert op.opcode in ("MINIMUM", "MAXIMUM")
        for t in (*op.inputs, *op.outputs):
            assert (t.quant.scale.tolist(), t.quant.zero_point.tolist()) == (
                x_q.scale.tolist(),
                x_q.zero_point.tolist(),
            )
    x = random_inputs(model, seed=3)
    (want,) = run_model(model, x, BUILTIN)
    (got,) = run_model(q, x, REFERENCE)
    assert np.max(np.abs(want - got)) <= 0.05 * float(np.ptp(want))


@pytest.mark.parametrize("dtype", ["uint8", "int16"])
def test_maximum_of_two_activations_reads_both_at_its_qparams(fixture_path, dtype):
    """LiteRT compares raw values: each input of another scale is requantized first."""
    model = one_cmds.load(fixture_path("misc_ops_a.tflite"))
    q = one_cmds.quantize(model, quantized_dtype=dtype, granularity="channel")
    maximum = next(
        op
        for op in q.main.operators
        if op.opcode == "MAXIMUM" and not op.outputs[0].name.endswith("_OffZero")
    )  # the model's own, not the clamp of its DIV's divisor (quant/divisors.py)
    out = maximum.outputs[0].quant
    producers = q.main.producers()
    for t in maximum.inputs:
        assert (t.quant.scale.tolist(), t.quant.zero_point.tolist()) == (
            out.scale.tolist(),
            out.zero_point.tolist(),
        )
        assert producers[t].opcode == "QUANTIZE" and t.name.endswith("_Requantize")


def test_an_infinite_clamp_bound_saturates(tmp_path):
    """``max(x, -inf)`` (Magika): the constant shares x's qparams and takes the type's lowest
    value instead of a NaN cast to an integer."""
    net = Net()
    x = net.input("x", [1, 8])
    net.outputs(net.op("MAXIMUM", [x, net.const("floor", np.float32(-np.inf))], name="y"))
    rng = np.random.default_rng(0)
    np.savez(tmp_path / "r.npz", **{"0": rng.uniform(-1, 1, (8, 1, 8)).astype(np.float32)})
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        q = one_cmds.quantize(
            net.model(), quantized_dtype="int8", granularity="channel",
            input_data=str(tmp_path / "r.npz"), input_data_format="npz",
        )  # fmt: skip
    (op,) = [op for op in q.main.operators if op.kind == "MAXIMUM"]
    assert op.inputs[1].data.tolist() == -128
