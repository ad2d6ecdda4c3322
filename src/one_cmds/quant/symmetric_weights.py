"""Symmetric per-slice weight quantization of weights-only mode (quantization.md §6, §21.2):
int8, int16 and int4, one scale per channel (or per block, a block being a row of the
weight reshaped to [O·I/B, B]).

The arithmetic is that of :func:`one_cmds.quant.qparams.symmetric` and
:func:`one_cmds.quant.weights.requantize` (scale in float64 from the float32 range, stored as
float32; ``q = clamp(round(clip(w, ±kMax·s)·float32(1/s)), −kMax, kMax)`` in float32),
computed for every slice at once: an LLM weight has millions of blocks. Weights are read in
row chunks (``weight_chunks``) so a memory-mapped model never becomes resident.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .int4_packing import pack_int4
from .qparams import SYMMETRIC_FLOOR, SYMMETRIC_MAX
from .rounding import round_away
from .weight_chunks import row_chunks

K_MAX = {**SYMMETRIC_MAX, "int4": 7}
SCALE_FLOOR = {**SYMMETRIC_FLOOR, "int4": 1e-5}
# int4 values are held one per int8 until they are packed (int4_packing).
INTEGER_TYPE = {"int8": np.int8, "int16": np.int16, "int4": np.int8}


@dataclass(frozen=True)
class SymmetricWeights:
    """The tensor data of the quantized weight (int8/int16 values in its shape, or int4
    values packed two per byte) and one float32 scale per slice along ``axis``."""

    data: np.ndarray
    scales: np.ndarray
    axis: int


def symmetric_scales(
    minimum: np.ndarray, maximum: np.ndarray, dtype: str
) -> tuple[np.ndarray, np.ndarray]:
    """§6 for each (min, max) pair: the float32 scales and representable bounds ``kMax·s``."""
    k = K_MAX[dtype]
    lo = np.minimum(0.0, minimum.astype(np.float64))
    hi = np.maximum(0.0, maximum.astype(np.float64))
    scale = np.maximum(np.maximum(-lo, hi) / k, SCALE_FLOOR[dtype])
    return scale.astype(np.float32), (k * scale).astype(np.float32)


def symmetric_integers(
    w: np.ndarray, scale: np.ndarray, bound: np.ndarray, dtype: str
) -> np.ndarray:
    """``clamp(round(clip(w, ±bound)·float32(1/scale)), −kMax, kMax)`` in float32, with
    ``scale`` and ``bound`` broadcastable against ``w``."""
    k = K_MAX[dtype]
    inverse = np.float32(1.0) / scale
    q = round_away((np.clip(w, -bound, bound) * inverse).astype(np.float32))
    return np.clip(q, -k, k).astype(INTEGER_TYPE[dtype])


def quantize_channels(w: np.ndarray, axis: int, dtype: str) -> SymmetricWeights:
    """Float32 ``w`` quantized per slice along ``axis``. Along axis 0 the weight is read in
    row chunks (int4 packed chunk by chunk: chunks hold an even number of rows); along
    another axis (depthwise filters, small) at once."""
    packed = dtype == "int4"
    data = (
        np.empty((w.size + 1) // 2, np.uint8) if packed else np.empty(w.shape, INTEGER_TYPE[dtype])
    )
    scales = np.empty(w.shape[axis], np.float32)
    others = tuple(i for i in range(w.ndim) if i != axis)
    broadcast = tuple(-1 if i == axis else 1 for i in range(w.ndim))
    for rows, part in row_chunks(w, whole=axis != 0):
        scale, bound = symmetric_scales(part.min(axis=others), part.max(axis=others), dtype)
        values = symmetric_integers(part, scale.reshape(broadcast), bound.reshape(broadcast), dtype)
        if packed:
            start = rows.start * (w.size // w.shape[0]) // 2
            chunk = pack_int4(values)
            data[start : start + chunk.size] = chunk
        else:
            data[rows] = values
        scales[rows if axis == 0 else slice(None)] = scale
    return SymmetricWeights(data, scales, axis)
