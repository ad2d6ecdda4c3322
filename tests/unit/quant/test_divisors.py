"""Quantized DIV on real data (quant/divisors.py, quant/float_islands.py).

Magika's LayerNorm divides by ``sqrt(variance + eps)``: calibrated well away from zero, but a
record with a smaller variance made the int8 SQRT write its zero point and LiteRT's integer
DIV aborted the inference (``div.cc: data[i] != zero_point``). A one-signed divisor is now
clamped a step off its zero point; a divisor whose range holds zero, or a constant one close
to zero, makes the DIV compute in float. Judged by LiteRT (default and builtin kernels).
"""

from __future__ import annotations

import numpy as np
import pytest

import one_cmds
from support.litert import BUILTIN, DEFAULT, run_model
from support.passes import Net

SHAPE = [1, 4, 16]


def _normalized(net: Net, x, v):
    """``x / sqrt(v)``."""
    return net.op("DIV", [x, net.op("SQRT", [v], name="root")], name="normalized")


def _quantize(model, tmp_path, records, dtype="int8", granularity="channel"):
    np.savez(tmp_path / "r.npz", **{str(i): r for i, r in enumerate(records)})
    return one_cmds.quantize(
        model, quantized_dtype=dtype, granularity=granularity, input_type="float32",
        output_type="float32", input_data=str(tmp_path / "r.npz"), input_data_format="npz",
    )  # fmt: skip


def _result_step(q) -> float:
    """The scale the float DIV's result is quantized to (its QUANTIZE)."""
    (div,) = [op for op in q.main.operators if op.kind == "DIV"]
    (requantize,) = [op for op in q.main.operators if div.outputs[0] in op.inputs]
    assert requantize.kind == "QUANTIZE"
    return float(requantize.outputs[0].quant.scale[0])


def _calibration(rng, low: float, count: int = 8):
    x = rng.uniform(-1, 1, (count, *SHAPE)).astype(np.float32)
    v = rng.uniform(low, 1.0, (count, *SHAPE)).astype(np.float32)
    return [x, v]


@pytest.mark.parametrize("resolver", [DEFAULT, BUILTIN])
def test_a_divisor_below_its_calibrated_range_no_longer_aborts_litert(tmp_path, resolver):
    net = Net()
    x, v = net.input("x", SHAPE), net.input("v", SHAPE)
    net.outputs(_normalized(net, x, v))
    model = net.model()
    q = _quantize(model, tmp_path, _calibration(np.random.default_rng(0), 0.1))
    kinds = [op.kind for op in q.main.operators]
    assert kinds[kinds.index("DIV") - 1] == "MAXIMUM"
    rng = np.random.default_rng(1)
    x_in = rng.uniform(-0.5, 0.5, SHAPE).astype(np.float32)  # inside the calibrated results
    v_in = rng.uniform(0.1, 1.0, SHAPE).astype(np.float32)
    v_in[0, 0, :4] = 0.0  # below the calibrated range: the SQRT writes its zero point
    (got,) = run_model(q, [x_in, v_in], resolver)
    (want,) = one_cmds.Interpreter(model).run([x_in, v_in])
    finite = np.isfinite(want)
    assert np.all(np.isfinite(got))
    span = want[finite].max() - want[finite].min()
    assert np.abs(got - want)[:, 1:].max() <= 0.05 * span


def test_a_divisor_whose_range_holds_zero_computes_in_float(tmp_path, capsys):
    net = Net()
    x, d = net.input("x", SHAPE), net.input("d", SHAPE)
    net.outputs(net.op("DIV", [x, d], name="ratio"))
    model = net.model()
    rng = np.random.default_rng(2)
    records = [rng.uniform(-1, 1, (8, *SHAPE)).astype(np.float32) for _ in range(2)]
    q = _quantize(model, tmp_path, records)
    (div,) = [op for op in q.main.operators if op.kind == "DIV"]
    assert all(t.dtype == "FLOAT32" for t in [*div.inputs, *div.outputs])
    assert "DIV 'ratio' computes in float: its divisor 'd' reaches its zero point" in (
        capsys.readouterr().err.replace("\n", " ")
    )
    x_in = rng.uniform(-1, 1, SHAPE).astype(np.float32)
    d_in = rng.uniform(0.5, 1, SHAPE).astype(np.float32)
    (got,) = run_model(q, [x_in, d_in], DEFAULT)
    (want,) = one_cmds.Interpreter(model).run([x_in, d_in])
    assert np.abs(got - want).max() <= _result_step(q)


def test_a_constant_divisor_near_zero_stays_float(tmp_path):
    net = Net()
    x = net.input("x", SHAPE)
    divisor = np.full(SHAPE[-1], 4.0, np.float32)
    divisor[0] = 0.001  # rounds to the zero point of the constant's own range
    net.outputs(net.op("DIV", [x, net.const("c", divisor)], name="scaled"))
    model = net.model()
    rng = np.random.default_rng(3)
    q = _quantize(model, tmp_path, [rng.uniform(-1, 1, (8, *SHAPE)).astype(np.float32)])
    (div,) = [op for op in q.main.operators if op.kind == "DIV"]
    assert div.inputs[1].dtype == "FLOAT32" and div.outputs[0].dtype == "FLOAT32"
    x_in = rng.uniform(-0.5, 0.5, SHAPE).astype(np.float32)  # inside the calibrated results
    (got,) = run_model(q, [x_in], DEFAULT)
    (want,) = one_cmds.Interpreter(model).run([x_in])
    assert np.abs(got - want).max() <= _result_step(q)


@pytest.mark.parametrize("dtype", ["int8", "uint8"])
def test_a_cast_of_booleans_writes_float_then_quantizes(tmp_path, dtype):
    """Magika's one-hot: ``CAST(EQUAL(tokens, iota))`` into a FULLY_CONNECTED."""
    net = Net()
    tokens = net.input("tokens", [1, 6, 1], "INT32")
    iota = net.const("iota", np.arange(8, dtype=np.int32).reshape(1, 1, 8))
    hot = net.op("EQUAL", [tokens, iota], outputs=["BOOL"], name="equal")
    as_float = net.op("CAST", [hot], name="one_hot")
    weights = net.random("w", [4, 8])
    net.outputs(net.op("FULLY_CONNECTED", [as_float, weights, net.random("b", [4])], name="fc"))
    model = net.model()
    records = np.random.default_rng(4).integers(0, 8, (8, 1, 6, 1)).astype(np.int32)
    q = _quantize(model, tmp_path, [records], dtype, "layer" if dtype == "uint8" else "channel")
    (cast,) = [op for op in q.main.operators if op.kind == "CAST"]
    consumer = next(op for op in q.main.operators if cast.outputs[0] in op.inputs)
    assert cast.outputs[0].dtype == "FLOAT32" and consumer.kind == "QUANTIZE"
    t_in = np.array([[[0], [3], [7], [1], [5], [2]]], np.int32)
    (got,) = run_model(q, [t_in], DEFAULT)
    (want,) = one_cmds.Interpreter(model).run([t_in])
    assert np.abs(got - want).max() <= 0.05 * (want.max() - want.min())


@pytest.mark.parametrize("resolver", [DEFAULT, BUILTIN])
def test_div_no_nan_quantizes_and_runs(tmp_path, resolver):
    """basic-pitch's ``div_no_nan``: ``SELECT_V2(EQUAL(d, 0), 0, x / d)``. The comparison's
    constant takes ``d``'s qparams, the SELECT's the result's (LiteRT copies raw values)."""
    net = Net()
    x, d = net.input("x", SHAPE), net.input("d", [1, 1, 1])
    zero = net.const("zero", np.array(0.0, np.float32))
    is_zero = net.op("EQUAL", [d, zero], outputs=["BOOL"], name="is_zero")
    ratio = net.op("DIV", [x, d], name="ratio")
    net.outputs(net.op("SELECT_V2", [is_zero, zero, ratio], name="div_no_nan"))
    model = net.model()
    rng = np.random.default_rng(5)
    records = [
        rng.uniform(0, 1, (8, *SHAPE)).astype(np.float32),
        rng.uniform(0.5, 1, (8, 1, 1, 1)).astype(np.float32),
    ]
    q = _quantize(model, tmp_path, records)
    x_in = rng.uniform(0, 0.5, SHAPE).astype(np.float32)
    d_in = np.array([[[0.8]]], np.float32)
    (got,) = run_model(q, [x_in, d_in], resolver)
    (want,) = one_cmds.Interpreter(model).run([x_in, d_in])
    assert np.abs(got - want).max() <= 0.03 * (want.max() - want.min())
