"""The quantized ReLU family (RELU, RELU6, RELU_N1_TO_1), LEAKY_RELU and PRELU, following
LiteRT's reference integer kernels (tensorflow/lite/kernels/activations.cc): they requantize
with fixed-point multipliers and clamp."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...ir import Operator
from ..context import InterpreterError
from ..fixedpoint import (
    multiply_by_quantized_multiplier,
    quantize_multiplier,
    quantize_multipliers,
    round_half_away,
)
from ..qparams import channel_params
from ..registry import Args, quantized_kernel
from .quantized_operands import F32, check_types, tensor_params, unary_operand

_RELU_TYPES = (np.uint8, np.int8, np.int16)


def _requantize(x: np.ndarray, real: float) -> np.ndarray:
    """MultiplyByQuantizedMultiplier by the quantized ``real``."""
    return multiply_by_quantized_multiplier(x, *quantize_multiplier(real))


def _roundf(x: np.float32) -> int:
    return int(round_half_away(np.float64(x)))


def _relu_x(op: Operator, args: Args, low: float, high: float | None, types) -> np.ndarray:
    """QuantizedReluX: requantize to the output scale, clamp to the quantized bounds."""
    x, in_scale, in_zp, out_scale, out_zp = unary_operand(op, args, types)
    info = np.iinfo(x.dtype)
    qmin = max(info.min, out_zp + _roundf(F32(low) / out_scale))
    qmax = info.max if high is None else min(info.max, out_zp + _roundf(F32(high) / out_scale))
    y = out_zp + _requantize(x.astype(np.int64) - in_zp, float(in_scale / out_scale))
    return np.clip(y, qmin, qmax).astype(x.dtype)


@quantized_kernel("RELU")
def relu(op: Operator, args: Args, ctx: Any) -> np.ndarray:
    """Requantize, then clamp below at the output's zero."""
    return _relu_x(op, args, 0.0, None, _RELU_TYPES)


@quantized_kernel("RELU6")
def relu6(op: Operator, args: Args, ctx: Any) -> np.ndarray:
    """Requantize, then clamp to the quantized [0, 6]."""
    return _relu_x(op, args, 0.0, 6.0, _RELU_TYPES)


@quantized_kernel("RELU_N1_TO_1")
def relu_n1_to_1(op: Operator, args: Args, ctx: Any) -> np.ndarray:
    """Requantize, then clamp to the quantized [-1, 1] (8-bit only, as LiteRT)."""
    return _relu_x(op, args, -1.0, 1.0, (np.uint8, np.int8))


@quantized_kernel("LEAKY_RELU")
def leaky_relu(op: Operator, args: Args, ctx: Any) -> np.ndarray:
    """QuantizeLeakyRelu: the identity or the alpha multiplier by the input's sign (a
    negative alpha multiplies by |alpha| and negates)."""
    x, in_scale, in_zp, out_scale, out_zp = unary_operand(op, args, _RELU_TYPES)
    alpha = F32(getattr(op.options, "alpha", 0.0) or 0.0)
    alpha_real = float(in_scale * alpha / out_scale)
    v = x.astype(np.int64) - in_zp
    identity = _requantize(v, float(in_scale / out_scale))
    scaled = _requantize(v, abs(alpha_real))
    negative = -scaled if alpha_real < 0 else scaled
    info = np.iinfo(x.dtype)
    return np.clip(out_zp + np.where(v >= 0, identity, negative), info.min, info.max).astype(
        x.dtype
    )


@quantized_kernel("PRELU")
def prelu(op: Operator, args: Args, ctx: Any) -> np.ndarray:
    """``x >= 0 ? x : x * alpha`` with per-tensor quantized alpha broadcast against x
    (int16 inputs take int8 alpha as in LiteRT). Beyond LiteRT, as the quantizer writes
    them: int16 alpha, and per-channel alpha (a multiplier per channel)."""
    x, alpha = args
    check_types(op, x, _RELU_TYPES)
    expected = (np.int8, np.int16) if x.dtype == np.int16 else (x.dtype,)
    if alpha.dtype not in expected:
        names = " or ".join(str(np.dtype(t)) for t in expected)
        raise InterpreterError(f"{op.kind}: {x.dtype} input needs {names} alpha")
    in_scale, in_zp = tensor_params(op, 0)
    alpha_scale, alpha_zp = channel_params(op.inputs[1], alpha.ndim)
    out_scale, out_zp = tensor_params(op, 0, output=True)
    v = x.astype(np.int64) - in_zp
    a = alpha.astype(np.int64) - alpha_zp
    positive = _requantize(v, float(in_scale / out_scale))
    reals = float(in_scale) * alpha_scale.astype(F32).astype(np.float64) / float(out_scale)
    negative = multiply_by_quantized_multiplier(v * a, *quantize_multipliers(reals))
    y = out_zp + np.where(v >= 0, positive, negative)
    if y.shape != x.shape:
        raise InterpreterError(f"{op.kind}: alpha {list(alpha.shape)} must broadcast to x")
    info = np.iinfo(x.dtype)
    return np.clip(y, info.min, info.max).astype(x.dtype)
