"""Quantized convolutions (NHWC): CONV_2D, DEPTHWISE_CONV_2D and TRANSPOSE_CONV, as LiteRT's
reference integer kernels compute them, and the integer plumbing the quantized matrix products
share (centered operands, exact accumulation, per-channel requantization, clamping).

The operands are centered (``q - zero_point``) and the float kernels of conv.py run on them in
float64: every product and partial sum is an integer below 2**53 (checked), so the sums are
exact. The int32 (uint8, int8) or int64 (16x8) bias is added to the integer accumulator, which
is rescaled per output channel (LiteRT's fixed-point multiplier; in double for the reference
FULLY_CONNECTED), offset by the output zero point and clamped to the fused activation's
quantized range.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import numpy as np

from ...ir import Operator, Tensor, numpy_dtype
from ..activation import NONE
from ..context import InterpreterError
from ..fixedpoint import (
    multiply_by_quantized_multiplier,
    multiply_by_quantized_multiplier_int64,
    quantize_multipliers,
    round_half_away,
)
from ..qparams import activation_range, channel_params, is_quantized, per_tensor
from ..registry import quantized_kernel
from . import conv

# Integers of magnitude below this are exact in float64, and so is every sum of them.
_EXACT = 2**53


def check_types(op: Operator, x: Tensor, w: Tensor, args: list[Any]) -> bool:
    """Check the operand types LiteRT accepts; True for the 16x8 (int64 accumulator) path.

    Input ``x``, weights ``w`` and the output must all be quantized: uint8 with uint8
    weights, int8 with int8 weights, or int16 with int8 weights (int16 for BATCH_MATMUL).
    """
    out = op.outputs[0]
    if not (is_quantized(x) and is_quantized(w) and is_quantized(out)):
        raise InterpreterError(
            f"{op.kind}: hybrid or partially quantized operands ({x.dtype} input, {w.dtype} "
            f"weights, {out.dtype} output) are not supported"
        )
    allowed = {("UINT8", "UINT8"), ("INT8", "INT8"), ("INT16", "INT8"), ("INT16", "INT16")}
    if (x.dtype, w.dtype) not in allowed or out.dtype != x.dtype:
        raise InterpreterError(
            f"{op.kind}: quantized {x.dtype} input with {w.dtype} weights and {out.dtype} "
            "output is not supported"
        )
    if any(a is not None and not np.issubdtype(a.dtype, np.integer) for a in args):
        raise InterpreterError(f"{op.kind}: quantized operands must be integer arrays")
    return x.dtype == "INT16"


def centered(value: np.ndarray, tensor: Tensor, use_zero_point: bool = True) -> np.ndarray:
    """``q - zero_point`` as int64 (per-channel zero points along ``quantized_dimension``);
    ``use_zero_point=False`` ignores them, as LiteRT's int8/int16 convolutions do for
    weights (which it takes as symmetric)."""
    q = np.asarray(value, np.int64)
    if not use_zero_point:
        return q
    return q - channel_params(tensor, q.ndim)[1]


def exact_float(k: int, *operands: np.ndarray) -> list[np.ndarray]:
    """The integer operands as float64, after checking that sums of ``k`` products of their
    elements stay exact there."""
    bound = k
    for a in operands:
        bound *= int(np.max(np.abs(a), initial=0))
    if bound >= _EXACT:
        raise InterpreterError(
            f"accumulator bound {bound} exceeds 2**53: the product would not be exact"
        )
    return [a.astype(np.float64) for a in operands]


def float_op(op: Operator) -> SimpleNamespace:
    """A stand-in for ``op`` whose options have no fused activation, for the float kernels
    (the quantized kernels clamp in the integer domain instead)."""
    options = copy.copy(op.options)
    if options is not None and hasattr(options, "fusedActivationFunction"):
        options.fusedActivationFunction = NONE
    return SimpleNamespace(kind=op.kind, options=options, inputs=op.inputs, outputs=op.outputs)


def accumulate(total: np.ndarray, bias: np.ndarray | None) -> np.ndarray:
    """The exact float64 sums as int64, plus the integer bias (per output channel)."""
    acc = np.rint(total).astype(np.int64)
    if bias is not None:
        acc += np.asarray(bias, np.int64).reshape(-1)
    return acc


def requantize(
    op: Operator, acc: np.ndarray, real_multiplier: np.ndarray | float, mode: str
) -> np.ndarray:
    """Rescale the accumulator by ``real_multiplier`` (per output channel, the last axis), add
    the output zero point, clamp to the activation range and cast to the output type.

    ``mode`` is LiteRT's rescaling: "int32" (MultiplyByQuantizedMultiplier), "int64" (its
    16x8 variant with the multiplier reduced to 16 bits) or "double" (``round(acc * real)``
    in double, half away from zero: the reference FULLY_CONNECTED).
    """
    out = op.outputs[0]
    real = np.asarray(real_multiplier, np.float64)
    if mode == "double":
        value = round_half_away(acc.astype(np.float64) * real)
    else:
        multiplier, shift = quantize_multipliers(real)
        rescale: Callable[..., np.ndarray] = (
            multiply_by_quantized_multiplier_int64
            if mode == "int64"
            else multiply_by_quantized_multiplier
        )
        value = rescale(acc, multiplier, shift)
    lo, hi = activation_range(op, out)
    value = np.clip(value + per_tensor(out)[1], lo, hi)
    return value.astype(numpy_dtype(out.dtype))


def conv_multiplier(x: Tensor, w: Tensor, out: Tensor) -> np.ndarray:
    """Per output channel ``input_scale * weight_scale / output_scale`` in double, from the
    float32 scales (PopulateConvolutionQuantizationParams): one element for per-tensor
    weights."""
    input_scale = np.float64(np.float32(per_tensor(x)[0]))
    output_scale = np.float64(np.float32(per_tensor(out)[0]))
    weight_scale = np.asarray(w.quant.scale, np.float32).astype(np.float64).reshape(-1)
    return input_scale * weight_scale / output_scale


def operands(args: list[Any], count: int) -> list[Any]:
    """The first ``count`` operands, None for omitted ones."""
    return [*args[:count], *[None] * (count - len(args))]


def _conv_like(
    op: Operator, float_kernel: Any, args: list[Any], ctx: Any, k: int, x_at: int = 0
) -> np.ndarray:
    """Run ``float_kernel`` exactly on the centered input (operand ``x_at``) and weights
    (operand 1, whose zero points only uint8 uses), then requantize per output channel."""
    x_t, w_t = op.inputs[x_at], op.inputs[1]
    x, w, b = args[x_at], args[1], args[-1]
    wide = check_types(op, x_t, w_t, [x, w, b])
    xf, wf = exact_float(k, centered(x, x_t), centered(w, w_t, x_t.dtype == "UINT8"))
    floats = [*args[:-1], None]
    floats[x_at], floats[1] = xf, wf
    acc = accumulate(float_kernel(float_op(op), floats, ctx), b)
    mode = "int64" if wide else "int32"
    return requantize(op, acc, conv_multiplier(x_t, w_t, op.outputs[0]), mode)


@quantized_kernel("CONV_2D")
def quantized_conv_2d(op: Operator, args: list[Any], ctx: Any) -> np.ndarray:
    """Integer CONV_2D (grouped too): uint8, int8 with per-channel weights, 16x8."""
    args = operands(args, 3)
    return _conv_like(op, conv.conv_2d, args, ctx, int(np.prod(np.shape(args[1])[1:])))


@quantized_kernel("DEPTHWISE_CONV_2D")
def quantized_depthwise_conv_2d(op: Operator, args: list[Any], ctx: Any) -> np.ndarray:
    """Integer DEPTHWISE_CONV_2D: uint8, int8 with per-channel weights, 16x8."""
    args = operands(args, 3)
    return _conv_like(op, conv.depthwise_conv_2d, args, ctx, int(np.prod(np.shape(args[1])[1:3])))


@quantized_kernel("TRANSPOSE_CONV")
def quantized_transpose_conv(op: Operator, args: list[Any], ctx: Any) -> np.ndarray:
    """Integer TRANSPOSE_CONV (output shape, filter, input, bias?): uint8, int8 with
    per-channel weights, 16x8."""
    args = operands(args, 4)
    k = int(np.prod(np.shape(args[1])[1:]))
    return _conv_like(op, conv.transpose_conv, args, ctx, k, x_at=2)
