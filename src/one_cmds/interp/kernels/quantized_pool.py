"""Quantized pools and MEAN, as LiteRT's reference kernels compute them on INT8 / UINT8 /
INT16 tensors.

Pools work on the raw integers (LiteRT requires the input and output parameters to match):
AVERAGE_POOL_2D rounds the window sum over its valid elements half away from zero, MAX_POOL_2D
takes the largest valid element; both clamp to the fused activation's quantized range. MEAN
sums in integers, removes the input zero point and rescales by ``s_in / s_out`` folded with
``1 / count`` into one fixed-point multiplier.
"""

from __future__ import annotations

import numpy as np

from ...ir import Operator
from ..fixedpoint import multiply_by_quantized_multiplier, quantize_multiplier
from ..qparams import activation_range, qparams, type_range
from ..registry import Args, quantized_kernel
from .layout import axes_of
from .pool import _pool_window, _reduce_taps, _valid_counts
from .reduce import _reduce


@quantized_kernel("AVERAGE_POOL_2D")
def quantized_average_pool_2d(op: Operator, args: Args, ctx: object) -> np.ndarray:
    """Window sum / valid count, rounded half away from zero (C division of the sum moved
    by half the count toward its sign), clamped to the activation range."""
    x = np.asarray(args[0], np.int64)
    win = _pool_window(op, x)
    total = _reduce_taps(win, x, 0, np.add)
    count = _valid_counts(win, x.shape).astype(np.int64)
    nudged = total + np.where(total > 0, count // 2, -(count // 2))
    mean = np.sign(nudged) * (np.abs(nudged) // count)  # C division truncates toward zero
    return np.clip(mean, *activation_range(op))


@quantized_kernel("MAX_POOL_2D")
def quantized_max_pool_2d(op: Operator, args: Args, ctx: object) -> np.ndarray:
    """Largest valid element of each window, clamped to the activation range."""
    x = np.asarray(args[0])
    lowest = np.iinfo(x.dtype).min
    out = _reduce_taps(_pool_window(op, x), x, lowest, np.maximum)
    return np.clip(out, *activation_range(op)).astype(x.dtype)


@quantized_kernel("MEAN")
def quantized_mean(op: Operator, args: Args, ctx: object) -> np.ndarray:
    """QuantizedMeanOrSum: ``(sum - zp_in * n)`` times the multiplier of ``s_in / s_out``
    divided by ``n`` (its shift grown by floor(log2 n), at most 32), plus ``zp_out``,
    saturated to the type. An empty input gives zeros."""
    x = np.asarray(args[0])
    (s_in, z_in), (s_out, z_out) = qparams(op, op.inputs[0]), qparams(op, op.outputs[0])
    total = _reduce(op, [x.astype(np.int64), args[1]], np.sum)
    count = int(np.prod([x.shape[a] for a in axes_of(args[1], x.ndim)], dtype=np.int64))
    if x.size == 0 or count == 0:
        return np.zeros(total.shape, np.int64)
    multiplier, shift = quantize_multiplier(s_in / s_out)
    grow = min(count.bit_length() - 1, 32, 31 + shift)
    multiplier = (multiplier << grow) // count
    shifted = (total - z_in * count).astype(np.int32).astype(np.int64)
    result = multiply_by_quantized_multiplier(shifted, multiplier, shift - grow) + z_out
    return np.clip(result, *type_range(op.outputs[0]))
