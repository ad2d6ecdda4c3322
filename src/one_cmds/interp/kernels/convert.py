"""Type conversions: CAST, QUANTIZE (float -> integer, or integer requantization) and
DEQUANTIZE (integer, packed 4-bit or float16 -> float)."""

from __future__ import annotations

import math

import numpy as np

from ...ir import Tensor, numpy_dtype
from ..context import InterpreterError
from ..fixedpoint import multiply_by_quantized_multiplier, quantize_multiplier
from ..qparams import channel_params, per_tensor
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
    source = op.inputs[0]
    x = args[0]
    if source.dtype in _NIBBLE_SIGNED:
        x = _unpack_nibbles(x, source)
    if not np.issubdtype(x.dtype, np.integer):
        return x.astype(np.float32)
    scale, zero_point = _dequantize_params(source, x.shape)
    return (x - zero_point).astype(np.float32) * scale


_NIBBLE_SIGNED = {"INT4": True, "UINT4": False}


def _unpack_nibbles(raw: np.ndarray, tensor: Tensor) -> np.ndarray:
    """The elements of a packed INT4/UINT4 tensor (two per byte, low nibble first)."""
    if None in tensor.shape:
        raise ValueError(f"packed {tensor.dtype} tensor {tensor.name!r} needs a static shape")
    count = math.prod(tensor.shape)
    packed = np.ascontiguousarray(raw).reshape(-1).view(np.uint8)
    if 2 * packed.size < count:
        raise ValueError(f"{packed.size} bytes cannot hold {count} {tensor.dtype} elements")
    nibbles = np.stack([packed & 0x0F, packed >> 4], axis=-1).reshape(-1)[:count].astype(np.int8)
    if _NIBBLE_SIGNED[tensor.dtype]:
        nibbles = (nibbles ^ 8) - 8
    return nibbles.reshape(tensor.shape)


def _dequantize_params(tensor: Tensor, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """(float32 scale, int64 zero point) broadcastable against ``shape``; channel c uses pair c,
    or pair 0 when the tensor has no more than c zero points (absent zero points are 0)."""
    q = tensor.quant
    if q is None or q.scale is None or len(q.scale) == 0:
        raise InterpreterError(f"tensor {tensor.name!r} has no quantization parameters")
    scale = np.asarray(q.scale, np.float32).reshape(-1)
    zero_point = np.asarray([] if q.zero_point is None else q.zero_point, np.int64).reshape(-1)
    if zero_point.size == 0:
        zero_point = np.zeros(scale.size, np.int64)
    if not shape:
        return scale[0], zero_point[0]
    dim = q.quantized_dimension
    channel = np.arange(shape[dim])
    channel[channel >= zero_point.size] = 0
    broadcast = [1] * len(shape)
    broadcast[dim] = -1
    return scale[channel].reshape(broadcast), zero_point[channel].reshape(broadcast)


def _requantize(x: np.ndarray, source: tuple[float, int], target: tuple[float, int]) -> np.ndarray:
    """``(x - zp_in) * scale_in / scale_out + zp_out`` in LiteRT's fixed point."""
    multiplier, shift = quantize_multiplier(source[0] / target[0])
    value = np.asarray(x, np.int64) - source[1]
    return multiply_by_quantized_multiplier(value, multiplier, shift) + target[1]
