"""The lookup tables LiteRT's quantized kernels build from a float function: 256 entries for
8-bit tensors (``LUTPopulateInt8``), 513 interpolated ones for int16 (``LUTPopulateInt16``),
with the C library's float functions as LiteRT calls them; and, for int16 operators LiteRT
has no kernel for, the function on the dequantized values."""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Callable

import numpy as np

from ...ir import Operator
from ..fixedpoint import round_half_away
from .activations import _erfc
from .quantized_operands import F32, symmetric_int16, tensor_params

Transform = Callable[[np.ndarray], np.ndarray]


def lut8(op: Operator, x: np.ndarray, transform: Transform) -> np.ndarray:
    """LUTPopulateInt8 and the lookup: every representable input dequantized in float32,
    transformed, scaled by 1/output scale, rounded half away, offset and clamped."""
    in_scale, in_zp = tensor_params(op, 0)
    out_scale, out_zp = tensor_params(op, 0, output=True)
    info = np.iinfo(x.dtype)
    values = np.arange(info.min, info.max + 1, dtype=np.int64)
    dequantized = in_scale * (values - in_zp).astype(F32)
    with np.errstate(over="ignore", invalid="ignore"):
        transformed = transform(dequantized.astype(F32)).astype(F32)
        rescaled = round_half_away(transformed * (F32(1) / out_scale)).astype(F32)
        shifted = np.nan_to_num((rescaled + F32(out_zp)).astype(np.float64))
    table = np.clip(shifted, info.min, info.max).astype(x.dtype)
    return table[x.astype(np.int64) - info.min]


def float_unary(op: Operator, x: np.ndarray, transform: Transform) -> np.ndarray:
    """``transform`` of the dequantized values (float32), quantized to the output (rounded
    half away, clamped): for INT16 operators LiteRT has no kernel for (as its 8-bit tables
    compute every entry)."""
    in_scale, in_zp = tensor_params(op, 0)
    out_scale, out_zp = tensor_params(op, 0, output=True)
    symmetric_int16(op, (in_zp, out_zp))
    real = in_scale * (x.astype(np.int64) - in_zp).astype(F32)
    with np.errstate(over="ignore", invalid="ignore"):
        scaled = transform(real).astype(F32) * (F32(1) / out_scale)
    q = np.nan_to_num(round_half_away(scaled.astype(np.float64)) + out_zp)
    info = np.iinfo(x.dtype)
    return np.clip(q, info.min, info.max).astype(x.dtype)


def c_float_function(name: str, fallback: Transform) -> Transform:
    """The C library's float function ``name`` (``expf``, ...) over an array, as LiteRT's
    table builders call it: its last-place rounding decides table entries near a tie. Without
    a C library, ``fallback`` in float64 rounded to float32 (rarely 1 LSB apart)."""
    function = getattr(_LIBM, name, None)
    if function is None:
        return lambda v: fallback(np.asarray(v, np.float64)).astype(F32)
    function.restype, function.argtypes = ctypes.c_float, [ctypes.c_float]
    each = np.frompyfunc(function, 1, 1)  # table-sized arrays only (at most 3 x 513 values)
    return lambda v: each(np.asarray(v, F32).astype(np.float64)).astype(F32)


def _load_libm() -> ctypes.CDLL | None:
    try:
        return ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
    except OSError:
        return None


_LIBM = _load_libm()
expf = c_float_function("expf", np.exp)
tanhf = c_float_function("tanhf", np.tanh)
erfcf = c_float_function("erfcf", _erfc)


def lut16_table(
    transform: Transform,
    in_scale: float,
    in_zp: int,
    out_scale: float,
    out_zp: int,
    ftype: type,
) -> np.ndarray:
    """LUTPopulateInt16 in ``ftype`` arithmetic: 512 samples over the input range, each
    corrected by half the midpoint interpolation error, and the end point."""
    fl = ftype
    input_min = fl(in_scale) * fl(-32768 - in_zp)
    input_max = fl(in_scale) * fl(32767 - in_zp)
    output_min = fl(out_scale) * fl(-32768 - out_zp)
    output_max = fl(out_scale) * fl(32767 - out_zp)
    step = (input_max - input_min) / fl(512)
    half_step = step / fl(2)
    inverse = fl(65536) / (output_max - output_min)
    steps = np.arange(513).astype(fl)
    at = input_min + steps * step

    def rnd(v: np.ndarray) -> np.ndarray:
        return round_half_away(v).astype(fl)

    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        val = transform(at[:512]).astype(fl)
        midpoint = transform(at[:512] + half_step).astype(fl)
        following = transform(at[1:]).astype(fl)
        sample = rnd(val * inverse)
        interpolated = rnd((following * inverse + rnd(val * inverse)) / fl(2))
        bias = rnd((interpolated - rnd(midpoint * inverse)) / fl(2))
        last = rnd(transform(np.array([input_max], fl)).astype(fl) * inverse)
    table = np.concatenate([sample - bias, last]).astype(np.float64)
    return np.clip(np.nan_to_num(table), -32768, 32767).astype(np.int64)


def lut16_lookup(x: np.ndarray, table: np.ndarray) -> np.ndarray:
    """LUTLookup of int16 values: the top 9 bits index, the low 7 interpolate."""
    x = np.asarray(x, np.int64)
    index = 256 + (x >> 7)
    base = table[index]
    delta = ((table[index + 1] - base) * (x & 0x7F) + 64) >> 7
    return (base + delta).astype(np.int16)
