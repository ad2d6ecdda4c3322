"""FAKE_QUANT: quantize and dequantize in float, as TensorFlow's FakeQuantWithMinMaxArgs.

The range [min, max] is first nudged so that 0 is exactly representable: with
``quant_min = 1 if narrow_range else 0``, ``quant_max = 2**num_bits - 1``,
``scale = (max - min) / (quant_max - quant_min)``, the zero point
``quant_min - min / scale`` is clamped to [quant_min, quant_max] and rounded, and
``nudged_min = (quant_min - zero_point) * scale``, ``nudged_max = (quant_max - zero_point) *
scale``. Each value is then clamped to the nudged range and snapped to the grid:
``round((clamp(x) - nudged_min) / scale) * scale + nudged_min`` (the division as a
multiplication by ``1 / scale``; rounding half away from zero; all in float32, as LiteRT).

LiteRT refuses ``narrow_range`` at runtime; here it follows TensorFlow (quant_min = 1).
"""

from __future__ import annotations

import numpy as np

from ..context import InterpreterError
from ..registry import kernel


@kernel("FAKE_QUANT", real_valued=True)
def fake_quant(op, args, ctx):
    options = op.options
    num_bits = int(options.numBits)
    if not 2 <= num_bits <= 16:
        raise InterpreterError(f"FAKE_QUANT num_bits must be in [2, 16], not {num_bits}")
    low, high = np.float32(options.min), np.float32(options.max)
    if not low < high:
        raise InterpreterError(f"FAKE_QUANT needs min < max, got [{low}, {high}]")
    quant_min = np.float32(1 if options.narrowRange else 0)
    quant_max = np.float32((1 << num_bits) - 1)
    scale = (high - low) / (quant_max - quant_min)
    zero_point_from_min = quant_min - low / scale
    zero_point = np.float32(
        np.floor(float(np.clip(zero_point_from_min, quant_min, quant_max)) + 0.5)
    )
    nudged_min = (quant_min - zero_point) * scale
    nudged_max = (quant_max - zero_point) * scale
    inverse = np.float32(1) / scale
    x = np.asarray(args[0], np.float32)
    # std::min(max, std::max(min, x)): NaN becomes nudged_min, as in LiteRT.
    clamped = np.where(nudged_min < x, x, nudged_min)
    clamped = np.where(clamped < nudged_max, clamped, nudged_max)
    ratio = ((clamped - nudged_min) * inverse).astype(np.float64)
    steps = np.floor(ratio + 0.5).astype(np.float32)
    return (steps * scale + nudged_min).astype(np.float32)
