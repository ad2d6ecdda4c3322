"""Channel-wise PRELU alpha (one qparam per element, quant/constants.py): the integer run
rounds as the float function of its own inputs does, with no drift.

The reference's one-level alpha (q = 1, s = alpha) made PRELU's twice-rounded multiply
push every negative output half a step down (MediaPipe's hand recrop model lost 6 dB in
its integer run); each element now takes its dtype's full range.
"""

from __future__ import annotations

import numpy as np
import pytest

import one_cmds
from one_cmds.ir import Tensor
from support.single_op import const, op_model

SHAPE = (1, 8, 8, 16)
NUMPY = {"uint8": np.uint8, "int16": np.int16}


def _prelu_model() -> one_cmds.Model:
    rng = np.random.default_rng(3)
    alpha = rng.uniform(-0.4, 0.4, (1, 1, SHAPE[-1])).astype(np.float32)
    alpha[0, 0, :3] = (0.001, -0.002, 0.0)  # tiny and zero slopes
    model = op_model("PRELU", [np.zeros(SHAPE, np.float32), const(alpha)])
    model.main.outputs[0].shape = SHAPE
    return model


def _dequantized(t: Tensor, q: np.ndarray) -> np.ndarray:
    dim = [1] * q.ndim
    dim[t.quant.quantized_dimension if t.quant.scale.size > 1 else 0] = -1
    scale = t.quant.scale.reshape(dim if t.quant.scale.size > 1 else -1)
    zero_point = t.quant.zero_point.reshape(dim if t.quant.scale.size > 1 else -1)
    return (q.astype(np.float64) - zero_point) * scale


@pytest.mark.parametrize("dtype", ["uint8", "int16"])
def test_channel_wise_alpha_rounds_without_drift(tmp_path, dtype):
    rng = np.random.default_rng(7)
    records = rng.normal(-1.0, 2.0, (16, *SHAPE)).astype(np.float32)
    np.savez(tmp_path / "calibration.npz", **{"0": records})
    q = one_cmds.quantize(
        _prelu_model(),
        quantized_dtype=dtype,
        granularity="channel",
        input_data=str(tmp_path / "calibration.npz"),
        input_data_format="npz",
    )
    op = q.main.operators[0]
    x_t, alpha_t, out_t = op.inputs[0], op.inputs[1], op.outputs[0]
    assert alpha_t.quant.scale.size == SHAPE[-1]
    info = np.iinfo(NUMPY[dtype])
    x = rng.integers(info.min, info.max + 1, SHAPE).astype(NUMPY[dtype])
    (got,) = one_cmds.Interpreter(q, engine="reference").run([x])

    real_x = _dequantized(x_t, x)
    real_alpha = _dequantized(alpha_t, alpha_t.data)
    real_y = np.where(real_x >= 0, real_x, real_x * real_alpha)
    scale, zero_point = float(out_t.quant.scale[0]), int(out_t.quant.zero_point[0])
    expected = np.clip(np.round(real_y / scale) + zero_point, info.min, info.max)
    diff = got.astype(np.int64) - expected
    assert np.abs(diff).max() <= 1
    assert np.count_nonzero(diff) <= 0.01 * diff.size
    assert abs(diff.mean()) < 0.005
