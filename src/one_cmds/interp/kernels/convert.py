"""Type conversions: CAST, QUANTIZE (float -> integer, or integer requantization) and
DEQUANTIZE (integer, packed 4-bit or float16 -> float)."""

from __future__ import annotations

import numpy as np

from ...ir import numpy_dtype
from ..fixedpoint import multiply_by_quantized_multiplier, quantize_multiplier
from ..qparams import channel_params, per_tensor
from ..real_weights import dequantized
from ..registry import kernel


@kernel("CAST")
def cast(op, args, ctx):
    """C conversion: float -> int truncates toward zero, complex -> real keeps the real part."""
    x = args[0]
    dtype = numpy_dtype(op.outputs[0].dtype)
    if np.iscomplexobj(x) and not np.issubdtype(dtype, np.complexfloating):
        x = x.real
    return x.astype(dtype)


@kernel("QUANTIZE")
def quantize(op, args, ctx):
    """Float input: ``round(x / scale) + zero_point`` (the division in float32, rounding half
    away from zero), clamped to the output type. Integer input: requantization with LiteRT's
    fixed-point multiplier."""
    x = args[0]
    out = op.outputs[0]
    info = np.iinfo(numpy_dtype(out.dtype))
    if np.issubdtype(x.dtype, np.integer):
        q = _requantize(x, per_tensor(op.inputs[0]), per_tensor(out))
    else:
        scale, zero_point = channel_params(out, x.ndim)
        r = (x.astype(np.float32) / scale.astype(np.float32)).astype(np.float64)
        q = np.sign(r) * np.floor(np.abs(r) + 0.5) + zero_point
    return np.clip(q, info.min, info.max).astype(info.dtype)


@kernel("DEQUANTIZE")
def dequantize(op, args, ctx):
    """``float32(q - zero_point[c]) * scale[c]`` (optimization.md §5.17), c the index along
    ``quantized_dimension`` (0 past the last zero point, so one pair serves the whole tensor);
    float16 is widened. INT4/UINT4 arrive packed two to a byte, low nibble first."""
    return dequantized(op.inputs[0], args[0])


def _requantize(x: np.ndarray, source: tuple[float, int], target: tuple[float, int]) -> np.ndarray:
    """``(x - zp_in) * scale_in / scale_out + zp_out`` in LiteRT's fixed point."""
    multiplier, shift = quantize_multiplier(source[0] / target[0])
    value = np.asarray(x, np.int64) - source[1]
    return multiply_by_quantized_multiplier(value, multiplier, shift) + target[1]
