"""Quantized LOGISTIC and TANH as LiteRT computes them: 8-bit tensors look their result up
in the 256-entry table built from the float function; int16 ones interpolate LiteRT's
sigmoid table (reference_integer_ops Logistic and Tanh, tanh(x) = 2 sigmoid(2x) - 1)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...ir import Operator
from ..context import InterpreterError
from ..fixedpoint import round_half_away
from ..registry import Args, quantized_kernel
from .lookup_tables import expf, lut8, tanhf
from .quantized_operands import F32, check_types, symmetric_int16, tensor_params

_TYPES = (np.uint8, np.int8, np.int16)

# sigmoid(i / 24) in 0.16 fixed point, i = 0..255 (common.h sigmoid_table_uint16)
_SIGMOID_TEXT = """
    32768 33451 34133 34813 35493 36169 36843 37513 38180 38841 39498 40149
    40794 41432 42064 42688 43304 43912 44511 45102 45683 46255 46817 47369
    47911 48443 48964 49475 49975 50464 50942 51409 51865 52311 52745 53169
    53581 53983 54374 54755 55125 55485 55834 56174 56503 56823 57133 57433
    57724 58007 58280 58544 58800 59048 59288 59519 59743 59959 60168 60370
    60565 60753 60935 61110 61279 61441 61599 61750 61896 62036 62172 62302
    62428 62549 62666 62778 62886 62990 63090 63186 63279 63368 63454 63536
    63615 63691 63765 63835 63903 63968 64030 64090 64148 64204 64257 64308
    64357 64405 64450 64494 64536 64576 64614 64652 64687 64721 64754 64786
    64816 64845 64873 64900 64926 64950 64974 64997 65019 65039 65060 65079
    65097 65115 65132 65149 65164 65179 65194 65208 65221 65234 65246 65258
    65269 65280 65291 65301 65310 65319 65328 65337 65345 65352 65360 65367
    65374 65381 65387 65393 65399 65404 65410 65415 65420 65425 65429 65433
    65438 65442 65445 65449 65453 65456 65459 65462 65465 65468 65471 65474
    65476 65479 65481 65483 65485 65488 65489 65491 65493 65495 65497 65498
    65500 65501 65503 65504 65505 65507 65508 65509 65510 65511 65512 65513
    65514 65515 65516 65517 65517 65518 65519 65520 65520 65521 65522 65522
    65523 65523 65524 65524 65525 65525 65526 65526 65526 65527 65527 65528
    65528 65528 65529 65529 65529 65529 65530 65530 65530 65530 65531 65531
    65531 65531 65531 65532 65532 65532 65532 65532 65532 65533 65533 65533
    65533 65533 65533 65533 65533 65534 65534 65534 65534 65534 65534 65534
    65534 65534 65534 65535
"""
_SIGMOID_TABLE = np.array(_SIGMOID_TEXT.split(), np.int64)


def _sigmoid(v: np.ndarray) -> np.ndarray:
    return F32(1) / (F32(1) + expf(-v))


def _checked_log2(x: np.float32) -> tuple[bool, int]:
    """CheckedLog2: (whether ``x`` is a power of two within 1e-3 in log2, rounded log2)."""
    log2 = F32(np.log(F32(x))) * (F32(1) / F32(np.log(F32(2))))
    rounded = F32(round_half_away(np.float64(log2)))
    return bool(abs(log2 - rounded) < F32(1e-3)), int(rounded)


def _int16_lut_input(op: Operator, pot_shifts: tuple[int, ...]) -> tuple[int, int, int]:
    """The int16 LOGISTIC/TANH prologue: the input rescaled to the table's 1/(3*4096)
    scale as ``(x * multiplier + round) >> shift``, checking LiteRT's parameter limits."""
    in_scale, in_zp = tensor_params(op, 0)
    out_scale, out_zp = tensor_params(op, 0, output=True)
    symmetric_int16(op, (in_zp, out_zp))
    pot, log2 = _checked_log2(in_scale)
    shift = 12 + log2
    pot = pot and shift in pot_shifts
    if pot:
        multiplier, shift = 3 << shift, 0
    else:
        real = float(in_scale) * 4096.0 * 3.0
        shift = 0
        while real <= 32767.0 / 2.0 and shift <= 30:
            shift += 1
            real *= 2.0
        multiplier = int(real)
    out_pot, out_log2 = _checked_log2(out_scale)
    if not out_pot or out_log2 != -15:
        raise InterpreterError(f"{op.kind}: int16 output scale must be 2**-15 (as in LiteRT)")
    rounding = (1 << (shift - 1)) if shift > 0 else 0
    return multiplier, shift, rounding


def _interpolated_sigmoid(
    op: Operator, x: np.ndarray, pot_shifts: tuple[int, ...], bits: int, saturated: int
) -> tuple[np.ndarray, np.ndarray]:
    """The int16 LOGISTIC/TANH core: the input rescaled (:func:`_int16_lut_input`), and the
    sigmoid table interpolated at its magnitude with ``bits`` fraction bits (``saturated``
    past the table's end). Returns (rescaled input, interpolated value)."""
    multiplier, shift, rounding = _int16_lut_input(op, pot_shifts)
    v = (x.astype(np.int64) * multiplier + rounding) >> shift
    magnitude = np.abs(v)
    high = np.minimum(magnitude >> bits, 254)
    low_value, high_value = _SIGMOID_TABLE[high], _SIGMOID_TABLE[high + 1]
    result = (low_value << bits) + (magnitude & ((1 << bits) - 1)) * (high_value - low_value)
    return v, np.where((magnitude >> bits) >= 255, saturated, result)


@quantized_kernel("LOGISTIC")
def logistic(op: Operator, args: Args, ctx: Any) -> np.ndarray:
    """8-bit: LiteRT's sigmoid table (output scale 1/256); int16: reference_integer_ops
    Logistic, interpolating the sigmoid table."""
    x = args[0]
    check_types(op, x, _TYPES)
    if x.dtype != np.int16:
        out_scale, _ = tensor_params(op, 0, output=True)
        if out_scale != F32(1 / 256):
            raise InterpreterError(f"{op.kind}: the output scale must be 1/256 (as in LiteRT)")
        return lut8(op, x, _sigmoid)
    v, result = _interpolated_sigmoid(op, x, (0,), 9, 0x7FFF << 10)
    result = np.where(v >= 0, result + (1 << 9), (1 << 25) - result + (1 << 9) - 1)
    return (result >> 10).astype(np.int16)


@quantized_kernel("TANH")
def tanh(op: Operator, args: Args, ctx: Any) -> np.ndarray:
    """8-bit: LiteRT's tanh table; int16: reference_integer_ops Tanh, interpolating the
    sigmoid table (tanh(x) = 2 sigmoid(2x) - 1)."""
    x = args[0]
    check_types(op, x, _TYPES)
    if x.dtype != np.int16:
        return lut8(op, x, tanhf)
    v, result = _interpolated_sigmoid(op, x, (0, 1), 8, 0xFFFF << 8)
    result = np.where(v >= 0, result - (1 << 23) + (1 << 7), -result + (1 << 23) + (1 << 7) - 1)
    return (result >> 8).astype(np.int16)
