"""Options and output sizes of MediaPipe's custom operators (mediapipe/util/tflite/operations).

Two option layouts occur. The segmentation operators read ``custom_options`` as a raw C
struct of little-endian int32 fields: Convolution2DTransposeBias as TfLiteTransposeConvParams
(padding, stride_w, stride_h, ...), MaxPoolingWithArgmax2D and MaxUnpooling2D as
TfLitePoolParams (padding, stride_w, stride_h, filter_w, filter_h, activation, ...). The
landmark operators read a flexbuffer map. Shape rules use the size functions here too, so the
kernels and shape inference agree.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

import numpy as np
from flatbuffers import flexbuffers

from ...ir import Operator

# TfLitePadding: kTfLitePaddingUnknown, kTfLitePaddingSame, kTfLitePaddingValid.
PADDING_UNKNOWN, PADDING_SAME, PADDING_VALID = 0, 1, 2
# TfLiteFusedActivation values that clamp a float result (CalculateActivationRange).
_ACTIVATION_RANGES = {1: (0.0, np.inf), 2: (-1.0, 1.0), 3: (0.0, 6.0)}


def _int32_fields(op: Operator, count: int, what: str) -> tuple[int, ...]:
    data = bytes(op.custom_options or b"")
    if len(data) < 4 * count:
        raise ValueError(
            f"{what} options need {4 * count} bytes of int32 fields, the operator has {len(data)}"
        )
    return struct.unpack_from(f"<{count}i", data)


@dataclass(frozen=True)
class TransposeConvParams:
    """TfLiteTransposeConvParams as Convolution2DTransposeBias reads it."""

    padding: int
    stride_w: int
    stride_h: int


def transpose_conv_params(op: Operator) -> TransposeConvParams:
    """The struct at the start of the custom options; strides must be positive."""
    padding, stride_w, stride_h = _int32_fields(op, 3, "Convolution2DTransposeBias")
    if stride_w < 1 or stride_h < 1:
        raise ValueError(f"strides ({stride_h}, {stride_w}) must be positive")
    return TransposeConvParams(padding, stride_w, stride_h)


def transpose_conv_padding(size: int, kernel: int, stride: int, padding: int) -> int:
    """Total padding of one axis: ``max(0, k - (size - 1) % s - 1)`` for SAME, else 0."""
    if padding != PADDING_SAME:
        return 0
    return max(0, kernel - (size - 1) % stride - 1)


def transpose_conv_size(size: int, kernel: int, stride: int, padding: int) -> int:
    """Output size of one axis: ``s * (size - 1) + k`` minus the total padding."""
    return stride * (size - 1) + kernel - transpose_conv_padding(size, kernel, stride, padding)


@dataclass(frozen=True)
class PoolParams:
    """TfLitePoolParams as MaxPoolingWithArgmax2D and MaxUnpooling2D read it."""

    padding: int
    stride_w: int
    stride_h: int
    filter_w: int
    filter_h: int
    activation: int

    def clamp(self, values: np.ndarray) -> np.ndarray:
        """The fused activation's clamp (RELU, RELU_N1_TO_1, RELU6; others leave values)."""
        bounds = _ACTIVATION_RANGES.get(self.activation)
        return values if bounds is None else np.clip(values, *bounds).astype(values.dtype)


def pool_params(op: Operator) -> PoolParams:
    """The struct at the start of the custom options; window and strides must be positive."""
    fields = _int32_fields(op, 6, op.custom_code or "pool")
    params = PoolParams(*fields)
    if min(params.stride_w, params.stride_h, params.filter_w, params.filter_h) < 1:
        raise ValueError(
            f"filter ({params.filter_h}, {params.filter_w}) and strides "
            f"({params.stride_h}, {params.stride_w}) must be positive"
        )
    return params


def pool_size(size: int, kernel: int, stride: int, padding: int) -> int:
    """Output size of one axis of MaxPoolingWithArgmax2D (TensorFlow's windowed size)."""
    if padding == PADDING_SAME:
        return (size + stride - 1) // stride
    if padding == PADDING_VALID:
        return (size - kernel + stride) // stride
    raise ValueError(f"padding {padding} is neither SAME (1) nor VALID (2)")


def pool_padding(stride: int, in_size: int, kernel: int, out_size: int) -> int:
    """TFLite's ComputePadding (dilation 1): the leading padding, never negative."""
    return max(0, ((out_size - 1) * stride + kernel - in_size) // 2)


def flex_map(op: Operator) -> dict[str, Any]:
    """The flexbuffer map of the custom options ({} without options)."""
    data = bytes(op.custom_options or b"")
    if not data:
        return {}
    try:
        value = flexbuffers.Loads(data)
    except (ValueError, LookupError, TypeError, struct.error) as e:
        raise ValueError(f"the custom options are not a flexbuffer map ({e})") from None
    if not isinstance(value, dict):
        raise ValueError("the custom options are not a flexbuffer map")
    return value


def flex_int(options: dict[str, Any], key: str, default: int | None = None) -> int:
    """Integer attribute ``key``; missing without a default is an error."""
    value = options.get(key, default)
    if value is None:
        raise ValueError(f"attribute {key!r} is missing")
    return int(value)


def flex_float(options: dict[str, Any], key: str, default: float | None = None) -> float:
    """Float attribute ``key`` (as float32, the C++ attribute type)."""
    value = options.get(key, default)
    if value is None:
        raise ValueError(f"attribute {key!r} is missing")
    return float(np.float32(value))


def flex_pairs(options: dict[str, Any], key: str) -> list[tuple[int, int]]:
    """A flat int vector read as pairs; an odd last entry pairs with itself (as MediaPipe)."""
    flat = [int(v) for v in options.get(key) or []]
    pairs = [(flat[i], flat[i + 1]) for i in range(0, len(flat) - 1, 2)]
    if len(flat) % 2:
        pairs.append((flat[-1], flat[-1]))
    return pairs


def bilinear_output_hw(op: Operator) -> tuple[int, int] | None:
    """(height, width) TransformTensorBilinear's options name: ``output_height`` and
    ``output_width`` (version 2) or ``output_size`` (version 1); None when they do not."""
    options = flex_map(op)
    if "output_height" in options and "output_width" in options:
        return flex_int(options, "output_height"), flex_int(options, "output_width")
    size = options.get("output_size")
    if isinstance(size, list) and len(size) >= 2:
        return int(size[0]), int(size[1])
    return None
