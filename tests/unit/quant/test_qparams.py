"""Scale and zero point derivation, weights and bias (quantization.md §4-§8, §20)."""

import numpy as np
import pytest

import one_cmds
from one_cmds.quant.bias import bias_scales, quantize_bias
from one_cmds.quant.qparams import asymmetric_uint8, symmetric
from one_cmds.quant.rounding import round_away
from one_cmds.quant.weights import fake_quantized, quantize_weights


@pytest.mark.parametrize(
    ("x", "expected"),
    [(0.5, 1.0), (-0.5, -1.0), (1.5, 2.0), (2.5, 3.0), (-2.5, -3.0), (0.49999997, 0.0)],
)
def test_rounding_is_half_away_from_zero(x, expected):
    assert round_away(np.float32(x)) == expected


@pytest.mark.parametrize(
    ("lo", "hi", "scale", "zero_point", "nudged"),
    [
        (-7, 8, 0.05882353, 119, (-7, 8)),
        (-8, 7, 0.05882353, 136, (-8, 7)),
        (0.02271, 0.99116, 0.0038869018, 0, (0, 0.99116)),
        (-2, -1, 0.007843138, 255, (-2, 0)),
        (0, 0, 1e-5, 0, (0, 0.00255)),
        (-1, 1, 0.007843138, 128, (-1.0039216, 0.99607843)),
        (-0.5, 254.5, 1, 1, (-1, 254)),
    ],
)
def test_uint8_table_of_the_spec(lo, hi, scale, zero_point, nudged):
    r = asymmetric_uint8(lo, hi)
    assert r.scale == pytest.approx(scale, rel=1e-6)
    assert r.zero_point == zero_point
    assert (float(r.nudged_min), float(r.nudged_max)) == pytest.approx(nudged, rel=1e-6, abs=1e-9)
    assert r.degenerate == (lo == hi)


def test_int16_symmetric_example():
    r = symmetric(-3, 5, "int16")
    assert r.scale == pytest.approx(1.5259255e-4, rel=1e-6)
    assert r.zero_point == 0 and float(r.nudged_max) == pytest.approx(5)
    q = quantize_weights(np.array([-3, 1, 5], np.float32), "int16", None).values
    assert q.tolist() == [-19660, 6553, 32767] and q.dtype == np.int16


def test_symmetric_floors():
    assert symmetric(0, 0, "int16").scale == np.float32(1e-8)
    assert symmetric(0, 0, "int8").scale == np.float32(1e-5)


def golden_filter():
    """Conv2D_004: two output channels of a [2, 2, 2, 2] OHWI filter."""
    c0 = np.array([1, 2, -3, -4, -5, 6, -7, 8], np.float32)
    c1 = np.array([-8, 7, 1, 2, -1, -2, 3, 4], np.float32)
    return np.stack([c0, c1]).reshape(2, 2, 2, 2)


def test_golden_example_weights_channel_uint8():
    quantized = quantize_weights(golden_filter(), "uint8", axis=0)
    assert quantized.values[0].reshape(-1).tolist() == [136, 153, 68, 51, 34, 221, 0, 255]
    assert [r.zero_point for r in quantized.ranges] == [119, 136]
    assert quantized.ranges[0].scale == np.float32(15 / 255)


def test_golden_example_bias():
    s_in = asymmetric_uint8(0.02271, 0.99116)
    assert s_in.zero_point == 0 and s_in.scale == pytest.approx(0.0038869018, rel=1e-7)
    scales = bias_scales(s_in.scale, np.array([15 / 255, 15 / 255], np.float32))
    assert scales[0] == pytest.approx(2.286413e-4, rel=1e-6)
    q = quantize_bias(np.array([1.0, 2.0], np.float32), scales, "uint8")
    assert q.tolist() == [4374, 8747] and q.dtype == np.int32


def test_int16_bias_is_int64_and_unclamped():
    q = quantize_bias(np.array([1e6], np.float32), np.array([1e-6]), "int16")
    assert q.dtype == np.int64 and q[0] > 2**31


def test_zero_bias_scale_gives_zero():
    assert quantize_bias(np.array([3.0], np.float32), np.array([0.0]), "uint8").tolist() == [0]


def test_fake_quantized_weights_are_on_the_grid():
    w = golden_filter()
    fake, _ = fake_quantized(w, "uint8", axis=0)
    assert fake.dtype == np.float32
    again = quantize_weights(fake, "uint8", axis=0).values
    np.testing.assert_array_equal(again, quantize_weights(w, "uint8", axis=0).values)
    assert float(fake[0].min()) == pytest.approx(-7) and float(fake[0].max()) == pytest.approx(8)


def test_golden_example_through_the_whole_pipeline(tmp_path):
    """§20 end to end: a CONV_2D with the golden filter and biases 1 and 2, calibrated on one
    record spanning [0.02271, 0.99116], quantized uint8 channel-wise."""
    from one_cmds.ir.schema import new_options
    from support.passes import Net

    net = Net()
    x = net.input("x", [1, 3, 3, 2])
    conv = net.op(
        "CONV_2D",
        [x, net.const("w", golden_filter()), net.const("b", [1.0, 2.0])],
        new_options("Conv2DOptions", padding=1, strideH=1, strideW=1),
    )
    net.outputs(conv)
    record = np.linspace(0.02271, 0.99116, 18, dtype=np.float32).reshape(1, 3, 3, 2)
    data = tmp_path / "golden.npz"
    np.savez(data, **{"0": record[None]})
    q = one_cmds.quantize(
        net.model(), input_data=str(data), input_data_format="npz", granularity="channel"
    )
    op = next(op for op in q.main.operators if op.opcode == "CONV_2D")
    x_q, w, b = op.inputs
    assert (x_q.dtype, float(x_q.quant.scale[0]), int(x_q.quant.zero_point[0])) == (
        "UINT8",
        pytest.approx(0.0038869018, rel=1e-6),
        0,
    )
    assert w.dtype == "UINT8" and w.quant.zero_point.tolist() == [119, 136]
    assert w.data[0].reshape(-1).tolist() == [136, 153, 68, 51, 34, 221, 0, 255]
    assert np.float32(w.quant.scale[0]) == np.float32(15 / 255)
    assert b.dtype == "INT32" and b.data.tolist() == [4374, 8747]
    assert b.quant.zero_point.tolist() == [0, 0] and b.quant.quantized_dimension == 0
