"""``cross_layer_equalization`` (quant/equalization.py): the float model computes the same,
each equalized channel has one weight range on both sides, and a layer-wise uint8 model of a
stack whose channels differ 100-fold loses less."""

from __future__ import annotations

import numpy as np

import one_cmds
from one_cmds.quant.equalization import equalize
from support.in_process import quantize_with_config
from support.passes import Net, conv2d_options, depthwise_options

RELU, RELU6 = 1, 3


def _stack(last_activation: int = 0) -> one_cmds.Model:
    """CONV(ReLU) -> DEPTHWISE -> PRELU -> CONV(``last_activation``) -> CONV, channel scales
    of the first convolution 100-fold apart."""
    rng = np.random.default_rng(0)
    net = Net()
    x = net.input("x", [1, 8, 8, 3])
    scale = np.geomspace(0.01, 1, 6).astype(np.float32)[:, None, None, None]
    w1 = (rng.normal(0, 1, (6, 3, 3, 3)) * scale).astype(np.float32)
    b1 = net.const("b1", (rng.normal(0, 0.1, 6) * scale[:, 0, 0, 0]).astype(np.float32))
    y = net.op("CONV_2D", [x, net.const("w1", w1), b1], conv2d_options(RELU), name="c1")
    dw = rng.normal(0, 1, (1, 3, 3, 6)).astype(np.float32)
    z = net.op("DEPTHWISE_CONV_2D", [y, net.const("dw", dw), net.const("db", np.zeros(6, np.float32))],
               depthwise_options(), name="dw")  # fmt: skip
    alpha = net.const("alpha", np.full((1, 1, 6), 0.2, np.float32))
    p = net.op("PRELU", [z, alpha], name="prelu")
    w3 = rng.normal(0, 1, (4, 1, 1, 6)).astype(np.float32)
    c3 = net.op("CONV_2D", [p, net.const("w3", w3), net.const("b3", np.zeros(4, np.float32))],
                conv2d_options(last_activation), name="c3")  # fmt: skip
    w4 = rng.normal(0, 1, (2, 1, 1, 4)).astype(np.float32)
    net.outputs(net.op("CONV_2D", [c3, net.const("w4", w4), None], conv2d_options(), name="c4"))
    return net.model()


def _records(count: int) -> np.ndarray:
    return np.random.default_rng(1).uniform(-1, 1, (count, 1, 8, 8, 3)).astype(np.float32)


def _weights(model: one_cmds.Model) -> dict[str, np.ndarray]:
    return {op.outputs[0].name: np.asarray(op.inputs[1].data) for op in model.main.operators
            if op.opcode in ("CONV_2D", "DEPTHWISE_CONV_2D")}  # fmt: skip


def test_the_float_model_computes_the_same():
    model, equalized = _stack(), _stack()
    assert equalize(equalized) == 3  # c1-dw, dw-(PRELU)-c3, c3-c4
    for record in _records(3):
        want = one_cmds.Interpreter(model).run([record])[0]
        got = one_cmds.Interpreter(equalized).run([record])[0]
        assert np.allclose(got, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())


def test_each_channel_has_one_range_on_both_sides():
    model = _stack()
    equalize(model)
    w = _weights(model)
    first = np.abs(w["c1"]).max(axis=(1, 2, 3))
    second = np.abs(w["dw"]).max(axis=(0, 1, 2))
    assert np.allclose(first, second, rtol=0.05)
    before = np.abs(_weights(_stack())["c1"]).max(axis=(1, 2, 3))
    assert first.max() / first.min() < 0.2 * before.max() / before.min()


def test_a_clamp_between_is_left_alone():
    model = _stack(RELU6)
    assert equalize(model) == 2
    assert np.array_equal(_weights(model)["c4"], _weights(_stack(RELU6))["c4"])


def test_uint8_layer_wise_loses_less(tmp_path):
    np.savez(tmp_path / "r.npz", **{"0": _records(16)})
    options = {"quantized_dtype": "uint8", "granularity": "layer", "input_type": "float32",
               "output_type": "float32", "input_data": str(tmp_path / "r.npz"),
               "input_data_format": "npz"}  # fmt: skip
    test = _records(24)[8:]
    want = [one_cmds.Interpreter(_stack()).run([r])[0] for r in test]

    def error(**extra) -> float:
        q = one_cmds.quantize(_stack(), **options, **extra)
        run = one_cmds.Interpreter(q)
        return float(
            np.mean([np.mean((run.run([r])[0] - w) ** 2) for r, w in zip(test, want, strict=True)])
        )

    assert error(cross_layer_equalization=True) < 0.8 * error()  # measured 0.065 against 0.095


def test_a_config_key_turns_it_on(fixture_path, tmp_path, capsys):
    assert (
        quantize_with_config(
            tmp_path, fixture_path("mobilenet_tiny.tflite"), "cross_layer_equalization=True\n"
        )
        == 0
    )
    assert "cross-layer equalization: " in capsys.readouterr().out
    assert (tmp_path / "q.circle").stat().st_size > 0
