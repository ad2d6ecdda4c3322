"""``bias_correction`` (quant/bias_correction.py): the mean output of each weighted operator
with quantized weights comes back to the float operator's mean on the calibration data."""

import numpy as np
import pytest

import one_cmds
from one_cmds.quant.bias_correction import correct_biases, input_means
from one_cmds.quant.data import records
from one_cmds.quant.default_pipeline import fake_quantize_weights
from support.in_process import quantize_with_config
from support.passes import Net, conv2d_options, depthwise_options, fc_options

VALID = 1  # the padding that reads no border zeros: the input means are exact


def _net() -> one_cmds.Model:
    """CONV_2D -> DEPTHWISE_CONV_2D (multiplier 2) -> FULLY_CONNECTED without a bias, each
    with weights whose uint8 layer-wise grid is coarse for most channels."""
    rng = np.random.default_rng(0)
    net = Net()
    x = net.input("x", [1, 6, 6, 3])
    scale = np.array([4.0, 0.05, 0.02, 0.3], np.float32)[:, None, None, None]
    w = (rng.normal(0.2, 1, (4, 3, 3, 3)) * scale).astype(np.float32)
    y = net.op("CONV_2D", [x, net.const("cw", w), net.const("cb", np.zeros(4, np.float32))],
               conv2d_options(padding=VALID), name="conv")  # fmt: skip
    dw = (rng.normal(0.1, 1, (1, 3, 3, 8)) * np.linspace(0.02, 2, 8)).astype(np.float32)
    z = net.op("DEPTHWISE_CONV_2D", [y, net.const("dw", dw), net.const("db", np.zeros(8, np.float32))],
               depthwise_options(multiplier=2, padding=VALID), name="dwconv")  # fmt: skip
    flat = net.op("RESHAPE", [z, net.const("shape", np.array([1, 32], np.int32))], name="flat")
    fw = (rng.normal(0.3, 1, (5, 32)) * np.linspace(0.01, 1, 5)[:, None]).astype(np.float32)
    net.outputs(
        net.op("FULLY_CONNECTED", [flat, net.const("fw", fw), None], fc_options(), name="fc")
    )
    return net.model()


def _means(model: one_cmds.Model, data: np.ndarray) -> dict[str, np.ndarray]:
    """The mean of each operator output over ``data``, per channel (last axis)."""
    sums: dict[str, np.ndarray] = {}

    def observe(t, value):
        v = np.asarray(value, np.float64)
        sums[t.name] = sums.get(t.name, 0) + v.reshape(-1, v.shape[-1]).mean(axis=0)

    interpreter = one_cmds.interp.Interpreter(model)
    for record in data:
        interpreter.run([record], observer=observe)
    return {name: s / len(data) for name, s in sums.items()}


@pytest.fixture
def calibration(tmp_path):
    # Each record is flat over space: every window of a convolution has the record's mean, so
    # the corrections are exact up to float rounding (the operators between are linear).
    colours = np.random.default_rng(1).uniform(0, 2, (24, 1, 1, 1, 3))
    data = np.broadcast_to(colours, (24, 1, 6, 6, 3)).astype(np.float32)
    np.savez(tmp_path / "r.npz", **{"0": data})
    return data, str(tmp_path / "r.npz")


def test_the_corrected_operators_keep_the_float_means(calibration):
    data, path = calibration
    want = _means(_net(), data)
    model = _net()
    means = input_means(model, records(model.main.inputs, path, "npz"), "reference")
    errors = fake_quantize_weights(model, "uint8", "layer", keep_errors=True)
    before = _means(model, data)
    found = correct_biases(errors, means)
    after = _means(model, data)
    assert found == 3
    assert model.main.operators[-1].inputs[2] is not None  # the FC got a bias
    for name in ("conv", "dwconv", "fc"):
        shift = np.abs(before[name] - want[name]).max()
        assert shift > 1e-3 * np.abs(want[name]).max()
        assert np.abs(after[name] - want[name]).max() < 1e-4 * shift


def test_both_engines_correct_alike(calibration):
    _, path = calibration
    biases = []
    for engine in ("litert", "reference"):
        model = _net()
        means = input_means(model, records(model.main.inputs, path, "npz"), engine)
        errors = fake_quantize_weights(model, "uint8", "layer", keep_errors=True)
        correct_biases(errors, means)
        biases.append([np.asarray(e.op.inputs[2].data) for e in errors])
    for a, b in zip(*biases, strict=True):
        assert np.allclose(a, b, rtol=1e-4, atol=1e-6)


def test_a_config_key_turns_it_on(fixture_path, tmp_path, capsys):
    assert (
        quantize_with_config(
            tmp_path,
            fixture_path("mobilenet_tiny.tflite"),
            "quantized_dtype=int8\ngranularity=channel\nbias_correction=True\n",
        )
        == 0
    )
    assert "bias correction: " in capsys.readouterr().out
    assert (tmp_path / "q.circle").stat().st_size > 0
