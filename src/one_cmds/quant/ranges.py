"""From per-record minima and maxima to one range (quantization.md §3.2): numpy's linear
percentile, or the moving average of chunk extremes."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .errors import QuantizeError
from .options import CalibrationMode, CalibrationOptions


def percentile(values: Sequence[float], p: float) -> float:
    """numpy's linear-interpolation percentile of ``values`` in float64."""
    if not 0 <= p <= 100:
        raise QuantizeError("Percentile must be ranged from 0 to 100")
    if len(values) == 0:
        raise QuantizeError("no calibration records to take a percentile of")
    return float(np.percentile(np.asarray(values, np.float64), p, method="linear"))


def moving_average(values: Sequence[float], batch: int, const: float, extreme) -> float:
    """``avg = extreme(v[0:B])``, then ``avg = avg·(1 − const) + extreme(chunk)·const`` over the
    following chunks of ``batch`` records (the last one may be shorter)."""
    if batch < 1:
        raise QuantizeError("moving_avg_batch must be a positive integer")
    if not 0 <= const <= 1:
        raise QuantizeError("moving_avg_const must be in [0, 1]")
    if len(values) == 0:
        raise QuantizeError("no calibration records to average")
    v = np.asarray(values, np.float64)
    alpha = 1.0 - const
    average = float(extreme(v[:batch]))
    for start in range(batch, len(v), batch):
        average = average * alpha + float(extreme(v[start : start + batch])) * (1 - alpha)
    return average


def final_range(
    mins: Sequence[float], maxs: Sequence[float], options: CalibrationOptions
) -> tuple[np.float32, np.float32]:
    """The (min, max) of one tensor under the step's ``mode`` and its parameters, as float32.
    Infinite records (an attention mask of -inf) count as float32's lowest or largest value,
    so that the range stays finite for the mask's own handling (``softmax_inputs``)."""
    mins, maxs = _finite(mins), _finite(maxs)
    if options.mode == CalibrationMode.percentile:
        lo = percentile(mins, options.min_percentile)
        hi = percentile(maxs, options.max_percentile)
    else:
        lo = moving_average(mins, options.moving_avg_batch, options.moving_avg_const, np.min)
        hi = moving_average(maxs, options.moving_avg_batch, options.moving_avg_const, np.max)
    return np.float32(lo), np.float32(hi)


def _finite(values: Sequence[float]) -> np.ndarray:
    """``values`` in float64 with ±inf clipped to float32's finite range."""
    limit = float(np.finfo(np.float32).max)
    return np.clip(np.asarray(values, np.float64), -limit, limit)
