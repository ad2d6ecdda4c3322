"""Calibration ``mode=mse`` (a one-cmds addition): each activation's range is the clip that
minimises the expected squared error of its 8-bit quantization over the calibration data.

The recorded minima and maxima give each tensor its full range; a second pass over the records
fills a histogram of :data:`BINS` bins over that range per tensor (LiteRT hands every observed
tensor out, or the reference interpreter streams them). Then, per tensor, the low and the high
end are shrunk in turn (coordinate descent over :data:`STEPS` fractions of each, twice) to the
pair whose 256-level grid, zero point nudged onto it, gives the least
``Σ count·(dequantize(quantize(centre)) − centre)²``: rounding noise inside the range plus the
clipping error of the tail. A few far outliers (a stem convolution's BatchNorm-folded channel,
a hard-swish peak) no longer set a step that flattens the bulk of the values. Ranges that hold
zero keep it. Tensors whose values no run computes (results of constants) keep their range.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np

from ..ir import Model, QuantParam, Tensor
from .data import Record
from .observe import observe_records

BINS = 4096
STEPS = np.linspace(0.02, 1.0, 50)
LEVELS = 255  # 8 bits: the grid of uint8 and of asymmetric int8 activations
ROUNDS = 2


def clip_ranges(
    model: Model,
    tensors: list[Tensor],
    data: Iterable[Record],
    engine: str,
    note: Callable[[str], None] | None = None,
) -> int:
    """Give each of ``tensors`` (recorded ranges in their quantparams) the clip of least
    squared error over ``data``; returns how many ranges shrank."""
    bounds = {id(t): _bounds(t) for t in tensors}
    counts = {k: np.zeros(BINS, np.int64) for k, (lo, hi) in bounds.items() if hi > lo}
    tensors = [t for t in tensors if id(t) in counts]

    def add(t: Tensor, value: np.ndarray) -> None:
        counts[id(t)] += _binned(np.asarray(value, np.float32).ravel(), *bounds[id(t)])

    seen = observe_records(model, tensors, data, engine, add, note)
    shrunk = 0
    for t in tensors:
        if id(t) not in seen:
            continue
        lo, hi = bounds[id(t)]
        low, high = best_clip(counts[id(t)], lo, hi)
        if (low, high) != (lo, hi):
            t.quant = QuantParam(min=np.array([low], np.float32), max=np.array([high], np.float32))
            shrunk += 1
    return shrunk


def _binned(values: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """The counts of ``values`` in :data:`BINS` equal bins over [lo, hi] (NaN left out;
    np.histogram's result at a sixth of its time)."""
    if np.isnan(values).any():
        values = values[~np.isnan(values)]
    index = (values - np.float32(lo)) * np.float32(BINS / (hi - lo))
    index = np.clip(index, 0, BINS - 1, out=index).astype(np.int32)
    return np.bincount(index, minlength=BINS)


def _bounds(t: Tensor) -> tuple[float, float]:
    """``t``'s recorded range widened to hold zero, in float64."""
    q = t.quant
    assert q is not None and q.min is not None and q.max is not None
    return min(float(q.min[0]), 0.0), max(float(q.max[0]), 0.0)


def best_clip(counts: np.ndarray, lo: float, hi: float) -> tuple[float, float]:
    """The (low, high) within [lo, hi] (``lo <= 0 <= hi``) of least squared 8-bit error for
    the histogram ``counts`` of :data:`BINS` equal bins over [lo, hi]."""
    centres = lo + (np.arange(BINS) + 0.5) * ((hi - lo) / BINS)
    used = counts > 0
    centres, weights = centres[used], counts[used].astype(np.float64)
    a, b = 1.0, 1.0
    for _ in range(ROUNDS):
        a = STEPS[np.argmin(_errors(centres, weights, lo * STEPS, np.full_like(STEPS, hi * b)))]
        b = STEPS[np.argmin(_errors(centres, weights, np.full_like(STEPS, lo * a), hi * STEPS))]
    chosen = _errors(centres, weights, np.array([lo * a]), np.array([hi * b]))[0]
    full = _errors(centres, weights, np.array([lo]), np.array([hi]))[0]
    return (lo * a, hi * b) if chosen < full else (lo, hi)


def _errors(centres: np.ndarray, weights: np.ndarray, lows: np.ndarray, highs: np.ndarray):
    """``Σ weight·(grid(centre) − centre)²`` on the 8-bit grid of each [low, high] (zero
    point nudged to an integer, as the quantizer does); an empty range holds only zero."""
    scale = np.maximum(highs - lows, 1e-30)[:, None] / LEVELS
    zero = np.clip(np.round(-lows[:, None] / scale), 0, LEVELS)
    q = np.clip(np.round(centres / scale) + zero, 0, LEVELS)
    return np.sum(weights * ((q - zero) * scale - centres) ** 2, axis=1)
