"""Quantized GELU: the table LiteRT builds from GeluTransform (or its tanh approximation)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...ir import Operator
from ..registry import Args, quantized_kernel
from .lookup_tables import erfcf, lut8, lut16_lookup, lut16_table, tanhf
from .quantized_operands import F32, check_types, tensor_params


def _gelu(v: np.ndarray) -> np.ndarray:
    """GeluTransform: ``0.5f * x * erfcf(x * -sqrt(1/2))``."""
    return F32(0.5) * v * erfcf(v * F32(-math.sqrt(0.5)))


_SQRT_2_OVER_PI = F32(2 / math.sqrt(math.pi) * math.sqrt(0.5))


def _gelu_approximate(v: np.ndarray) -> np.ndarray:
    """GeluTransformApproximate: ``0.5f*x*(1 + tanhf(sqrt(2/pi)*(x + 0.044715f*x^3)))``."""
    inner = _SQRT_2_OVER_PI * (v + F32(0.044715) * v * v * v)
    return F32(0.5) * v * (F32(1) + tanhf(inner))


@quantized_kernel("GELU")
def gelu(op: Operator, args: Args, ctx: Any) -> np.ndarray:
    """The table LiteRT builds from GeluTransform (or its tanh approximation): 256 entries
    for 8-bit tensors, 513 interpolated ones (float32 LUTPopulateInt16) for int16."""
    x = args[0]
    check_types(op, x, (np.uint8, np.int8, np.int16))
    approximate = bool(getattr(op.options, "approximate", False))
    transform = _gelu_approximate if approximate else _gelu
    if x.dtype != np.int16:
        return lut8(op, x, transform)
    in_scale, in_zp = tensor_params(op, 0)
    out_scale, out_zp = tensor_params(op, 0, output=True)
    table = lut16_table(transform, in_scale, in_zp, out_scale, out_zp, F32)
    return lut16_lookup(x, table)
