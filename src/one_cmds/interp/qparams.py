"""Quantization parameters of tensors as the quantized kernels need them."""

from __future__ import annotations

import numpy as np

from ..ir import Operator, Tensor
from .activation import NONE, RELU, RELU6, RELU_N1_TO_1, activation_of
from .fixedpoint import round_half_away

QUANTIZED_TYPES = frozenset({"INT8", "UINT8", "INT16"})


def is_quantized(t: Tensor | None) -> bool:
    """Whether ``t`` is an integer tensor carrying a scale (its values mean
    ``scale * (q - zero_point)``)."""
    q = None if t is None else t.quant
    return (
        t is not None
        and t.dtype in QUANTIZED_TYPES
        and q is not None
        and q.scale is not None
        and len(q.scale) > 0
    )


def channel_params(tensor: Tensor, rank: int) -> tuple[np.ndarray, np.ndarray]:
    """(scale float64, zero point int64) broadcastable against a rank-``rank`` value of the
    tensor: scalars for per-tensor parameters, else shaped along ``quantized_dimension``."""
    q = tensor.quant
    if q is None or q.scale is None or len(q.scale) == 0:
        raise ValueError(f"tensor {tensor.name!r} has no quantization parameters")
    scale = np.asarray(q.scale, np.float64).reshape(-1)
    zero_point = np.zeros(len(scale), np.int64) if q.zero_point is None else q.zero_point
    zero_point = np.asarray(zero_point, np.int64).reshape(-1)
    if zero_point.size == 0:
        zero_point = np.zeros(scale.size, np.int64)
    if len(scale) == 1:
        return scale.reshape(()), zero_point[0].reshape(())
    shape = [1] * rank
    shape[q.quantized_dimension] = len(scale)
    return scale.reshape(shape), zero_point.reshape(shape)


def per_tensor(tensor: Tensor) -> tuple[float, int]:
    """The single (scale, zero point) of a per-tensor quantized tensor."""
    q = tensor.quant
    if q is not None and q.scale is not None and len(q.scale) > 1:
        raise ValueError(f"per-channel tensor {tensor.name!r} needs one scale here")
    scale, zero_point = channel_params(tensor, 0)
    return float(scale), int(zero_point)


_LIMITS = {"INT8": (-128, 127), "UINT8": (0, 255), "INT16": (-32768, 32767)}


def type_range(tensor: Tensor) -> tuple[int, int]:
    """The representable range of a quantized integer tensor's type."""
    if tensor.dtype not in _LIMITS:
        raise ValueError(f"{tensor.dtype} tensor {tensor.name!r} is not a quantized type")
    return _LIMITS[tensor.dtype]


def qparams(op: Operator, tensor: Tensor) -> tuple[float, int]:
    """The per-tensor (scale, zero point) of an operand or result of a quantized kernel."""
    if not is_quantized(tensor):
        raise ValueError(
            f"{op.kind} on quantized tensors needs quantization parameters on {tensor.name!r} too"
        )
    return per_tensor(tensor)


def activation_range(op: Operator, out: Tensor | None = None) -> tuple[int, int]:
    """CalculateActivationRangeQuantized: the fused activation's bounds quantized with the
    output's float32 scale (rounded half away from zero), inside the type's range."""
    out = op.outputs[0] if out is None else out
    qmin, qmax = type_range(out)
    code = activation_of(op)
    if code == NONE:
        return qmin, qmax
    scale, zero_point = qparams(op, out)

    def quantize(value: float) -> int:
        return zero_point + int(round_half_away(np.float32(value) / np.float32(scale)))

    if code == RELU:
        return max(qmin, quantize(0.0)), qmax
    if code == RELU6:
        return max(qmin, quantize(0.0)), min(qmax, quantize(6.0))
    if code == RELU_N1_TO_1:
        return max(qmin, quantize(-1.0)), min(qmax, quantize(1.0))
    raise ValueError(f"fused activation {code} is not supported on quantized tensors")
