"""SQUARE and NEG are written as MUL (quant/integer_forms.py): LiteRT has no integer SQUARE,
and negates int8 values raw, which is wrong for a range starting at zero (zero point -128).
basic-pitch's spectrogram squares and negates; judged by LiteRT's kernels, int16 by the
interpreter (LiteRT has int16 MUL but no int16-weight convolutions)."""

from __future__ import annotations

import numpy as np
import pytest

import one_cmds
from support.litert import BUILTIN, DEFAULT, run_model
from support.passes import Net

SHAPE = [1, 8, 16]


def _model():
    net = Net()
    x = net.input("x", SHAPE)
    squared = net.op("SQUARE", [x], name="squared")
    net.outputs(net.op("NEG", [squared], name="negated"))
    return net.model()


@pytest.mark.parametrize("resolver", [DEFAULT, BUILTIN])
def test_square_and_neg_run_in_litert_int8(tmp_path, resolver):
    model = _model()
    rng = np.random.default_rng(0)
    np.savez(tmp_path / "r.npz", **{"0": rng.uniform(0, 2, (8, *SHAPE)).astype(np.float32)})
    q = one_cmds.quantize(
        model, quantized_dtype="int8", granularity="channel", input_type="float32",
        output_type="float32", input_data=str(tmp_path / "r.npz"), input_data_format="npz",
    )  # fmt: skip
    assert [op.kind for op in q.main.operators] == ["QUANTIZE", "MUL", "MUL", "DEQUANTIZE"]
    square, negate = q.main.operators[1:3]
    assert square.inputs[0] is square.inputs[1]
    minus_one = negate.inputs[1]
    real = (minus_one.data.astype(np.float64) - minus_one.quant.zero_point) * minus_one.quant.scale
    assert minus_one.is_constant and real.tolist() == pytest.approx([-1.0])
    x = rng.uniform(0, 2, SHAPE).astype(np.float32)
    (want,) = one_cmds.Interpreter(model).run([x])
    (got,) = run_model(q, [x], resolver)
    assert np.abs(got - want).max() <= 0.02 * (want.max() - want.min())


def test_int16_neg_is_a_mul_too(tmp_path):
    model = _model()
    rng = np.random.default_rng(1)
    np.savez(tmp_path / "r.npz", **{"0": rng.uniform(0, 2, (8, *SHAPE)).astype(np.float32)})
    q = one_cmds.quantize(
        model, quantized_dtype="int16", granularity="channel", input_type="float32",
        output_type="float32", input_data=str(tmp_path / "r.npz"), input_data_format="npz",
    )  # fmt: skip
    assert [op.kind for op in q.main.operators] == ["QUANTIZE", "MUL", "MUL", "DEQUANTIZE"]
    x = rng.uniform(0, 2, SHAPE).astype(np.float32)
    (want,) = one_cmds.Interpreter(model).run([x])
    (got,) = run_model(q, [x], DEFAULT)
    assert np.abs(got - want).max() <= 0.001 * (want.max() - want.min())
