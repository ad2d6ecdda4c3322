"""Calibration on LiteRT against the reference interpreter on a corpus model: the per-record
minima and maxima of every observed tensor from both engines, and the largest difference
relative to the tensor's range (float rounding of different kernels: XNNPACK's against
numpy's)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import one_cmds
from one_cmds.quant.calibration import record_minmax

Ranges = dict[str, tuple[np.ndarray, np.ndarray]]


@dataclass
class EngineRanges:
    ranges: Ranges
    seconds: float
    note: str  # which engine ``auto`` chose, and why


def calibration_records(npz: Path) -> list[list[np.ndarray]]:
    """The records of a corpus calibration file, inputs in graph order."""
    data = np.load(npz)
    return [list(x) for x in zip(*(data[k] for k in sorted(data, key=int)), strict=True)]


def engine_ranges(
    model: one_cmds.Model, records: list[list[np.ndarray]], engine: str
) -> EngineRanges:
    notes: list[str] = []
    started = time.perf_counter()
    minmax = record_minmax(model, records, engine=engine, note=notes.append)
    spent = time.perf_counter() - started
    ranges = {
        t.name: (np.array(minmax.mins[k]), np.array(minmax.maxs[k]))
        for k, t in minmax.tensors.items()
    }
    return EngineRanges(ranges, spent, notes[0])


def worst_difference(ours: Ranges, reference: Ranges) -> tuple[float, str]:
    """The largest difference of a recorded minimum or maximum, relative to the tensor's
    range over every record, and the tensor it is in."""
    worst, where = 0.0, ""
    for name, (lo, hi) in reference.items():
        span = max(float(hi.max() - lo.min()), 1e-30)
        o_lo, o_hi = ours[name]
        difference = max(float(np.abs(o_lo - lo).max()), float(np.abs(o_hi - hi).max())) / span
        if difference > worst:
            worst, where = difference, name
    return worst, where
