"""FAKE_QUANT kernel against LiteRT (nudged range, rounding, clamping, special values)."""

import numpy as np
import pytest

from one_cmds.interp import InterpreterError
from support.litert import run_model
from support.single_op import check_against_litert, new_options, op_model, run_ours

RNG = np.random.default_rng(11)


def options(low, high, bits=8, narrow=False):
    return new_options("FakeQuantOptions", min=low, max=high, numBits=bits, narrowRange=narrow)


@pytest.mark.parametrize(
    ("low", "high", "bits"),
    [
        (-1.0, 1.0, 8),  # zero point 127.5 rounds up: the range is nudged
        (-0.3, 2.7, 8),
        (-0.123, 5.77, 7),
        (-6.0, 6.0, 4),
        (-1.0, 1.0, 16),
        (-1.0, 1.0, 2),
        (0.2, 1.0, 8),  # zero below the range: nudged to [0, 0.8]
        (-3.0, -0.5, 8),  # zero above the range: nudged to [-2.5, 0]
    ],
)
def test_matches_litert(low, high, bits):
    x = (RNG.standard_normal((3, 40)) * 3).astype(np.float32)
    check_against_litert("FAKE_QUANT", [x], options(low, high, bits), rtol=0, atol=0)


def test_ties_round_half_away_from_zero_and_special_values():
    x = np.array([0.5, 1.5, 2.5, 254.5, -0.0, np.inf, -np.inf, np.nan, 300.0, -4.0], np.float32)
    got = check_against_litert("FAKE_QUANT", [x], options(0.0, 255.0), rtol=0, atol=0)[0]
    np.testing.assert_array_equal(got, [1, 2, 3, 255, 0, 255, 0, 0, 255, 0])


@pytest.mark.parametrize("shape", [(), (0, 3), (2, 3, 4, 5)])
def test_shapes(shape):
    x = RNG.standard_normal(shape).astype(np.float32)
    check_against_litert("FAKE_QUANT", [x], options(-2.0, 2.0), rtol=0, atol=0)


def test_narrow_range_follows_tensorflow():
    """LiteRT refuses narrow_range; the kernel uses quant_min = 1 as TensorFlow does: the grid
    of [-1, 1] with 8 bits is then the multiples of 1/127."""
    x = np.array([-2.0, -1.0, -0.5, 0.0, 0.3, 1.0, 2.0], np.float32)
    model = op_model("FAKE_QUANT", [x], options(-1.0, 1.0, 8, narrow=True))
    with pytest.raises(RuntimeError):
        run_model(model, [x])
    got = run_ours("FAKE_QUANT", [x], options(-1.0, 1.0, 8, narrow=True))[0]
    scale = np.float32(2.0) / np.float32(254.0)
    want = np.floor((np.clip(x, -1, 1) + 1) / scale + 0.5) * scale - 1  # -0.5 rounds up
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-6)
    assert got[0] == got[1] == np.float32(-127) * scale


@pytest.mark.parametrize(
    ("low", "high", "bits"), [(1.0, 1.0, 8), (2.0, -2.0, 8), (-1, 1, 1), (-1, 1, 17)]
)
def test_invalid_parameters_are_refused(low, high, bits):
    x = np.zeros(3, np.float32)
    with pytest.raises(InterpreterError):
        run_ours("FAKE_QUANT", [x], options(low, high, bits))
