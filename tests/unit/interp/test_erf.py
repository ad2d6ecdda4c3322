"""The CUSTOM(Erf) kernel against Python's math.erf (LiteRT has no Erf kernel to compare with)."""

import math

import numpy as np
import pytest

from support.single_op import run_ours


def erf(x):
    return run_ours("CUSTOM", [x], custom_code="Erf")[0]


@pytest.mark.parametrize("shape", [(), (7,), (2, 3, 4), (0, 3)])
def test_matches_math_erf(shape):
    x = (np.random.default_rng(3).standard_normal(shape) * 2).astype(np.float32)
    got = erf(x)
    want = np.array([math.erf(float(v)) for v in x.reshape(-1)], np.float64)
    assert got.shape == x.shape
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got.reshape(-1), want.astype(np.float32))


def test_special_values():
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 6.0, -6.0, 1e-30, 1e30], np.float32)
    got = erf(x)
    np.testing.assert_array_equal(got[:4], [0.0, -0.0, 1.0, -1.0])
    assert np.signbit(got[1])
    assert np.isnan(got[4])
    np.testing.assert_array_equal(got[5:], np.float32([1.0, -1.0, math.erf(1e-30), 1.0]))


def test_is_odd_and_bounded():
    x = np.linspace(-5, 5, 101, dtype=np.float32)
    got = erf(x)
    np.testing.assert_array_equal(got, -erf(-x))
    assert np.all(np.abs(got) <= 1)
    assert np.all(np.diff(got) >= 0)
