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


def _quantized(model, tmp_path, dtype: str, rng):
    np.savez(tmp_path / "r.npz", **{"0": rng.uniform(0, 2, (8, *SHAPE)).astype(np.float32)})
    q = one_cmds.quantize(
        model, quantized_dtype=dtype, granularity="channel", input_type="float32",
        output_type="float32", input_data=str(tmp_path / "r.npz"), input_data_format="npz",
    )  # fmt: skip
    assert [op.kind for op in q.main.operators] == ["QUANTIZE", "MUL", "MUL", "DEQUANTIZE"]
    return q


def _error(model, q, rng, resolver) -> float:
    """The largest difference from float, over the float result's range."""
    x = rng.uniform(0, 2, SHAPE).astype(np.float32)
    (want,) = one_cmds.Interpreter(model).run([x])
    (got,) = run_model(q, [x], resolver)
    return float(np.abs(got - want).max() / (want.max() - want.min()))


@pytest.mark.parametrize("resolver", [DEFAULT, BUILTIN])
def test_square_and_neg_run_in_litert_int8(tmp_path, resolver):
    model, rng = _model(), np.random.default_rng(0)
    q = _quantized(model, tmp_path, "int8", rng)
    square, negate = q.main.operators[1:3]
    assert square.inputs[0] is square.inputs[1]
    minus_one = negate.inputs[1]
    real = (minus_one.data.astype(np.float64) - minus_one.quant.zero_point) * minus_one.quant.scale
    assert minus_one.is_constant and real.tolist() == pytest.approx([-1.0])
    assert _error(model, q, rng, resolver) <= 0.02


def test_int16_neg_is_a_mul_too(tmp_path):
    model, rng = _model(), np.random.default_rng(1)
    assert _error(model, _quantized(model, tmp_path, "int16", rng), rng, DEFAULT) <= 0.001
