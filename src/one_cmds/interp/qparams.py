"""Quantization parameters of tensors as the quantized kernels need them."""

from __future__ import annotations

import numpy as np

from ..ir import Tensor

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
