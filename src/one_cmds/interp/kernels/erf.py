"""The custom operator ``Erf`` (TensorFlow's ``tf.math.erf``, left by the converter as CUSTOM
with code ``Erf``; ``fuse_gelu`` matches it): the Gauss error function, element-wise, computed
with Python's ``math.erf`` (the C library's) in float64 and returned in the input's dtype.

Quantized (LiteRT has no such kernel): 8-bit tensors look it up in a 256-entry table built
as LiteRT builds its quantized GELU's; INT16 ones compute it on the dequantized values.
"""

from __future__ import annotations

import math

import numpy as np

from ..registry import kernel, quantized_kernel
from .lookup_tables import float_unary, lut8
from .quantized_operands import F32, check_types

_ERF = np.frompyfunc(math.erf, 1, 1)


@kernel("CUSTOM(Erf)", real_valued=True)
def erf(op, args, ctx):
    x = np.asarray(args[0])
    return np.asarray(_ERF(x.astype(np.float64)), dtype=np.float64).astype(x.dtype)


def _erf32(v: np.ndarray) -> np.ndarray:
    return np.asarray(_ERF(np.asarray(v, np.float64)), np.float64).astype(F32)


@quantized_kernel("CUSTOM(Erf)")
def quantized_erf(op, args, ctx):
    x = args[0]
    check_types(op, x, (np.uint8, np.int8, np.int16))
    return lut8(op, x, _erf32) if x.dtype != np.int16 else float_unary(op, x, _erf32)
