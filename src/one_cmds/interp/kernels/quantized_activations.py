"""Quantized activation kernels, following LiteRT's reference integer kernels
(tensorflow/lite/kernels/activations.cc and internal/reference/).

The ReLU family, LEAKY_RELU and PRELU requantize with fixed-point multipliers and clamp;
LOGISTIC, TANH and GELU on 8-bit tensors look their result up in the 256-entry table LiteRT
builds from the float function (float32 arithmetic, as ``LUTPopulate``); int16 LOGISTIC and
TANH interpolate LiteRT's sigmoid table; HARD_SWISH is LiteRT's int16 fixed-point recipe;
SOFTMAX is gemmlowp's fixed-point exp and reciprocal (8-bit inputs) or LiteRT's int16 LUTs.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ...ir import Operator, numpy_dtype
from ..fixedpoint import (
    INT32_MAX,
    multiply_by_quantized_multiplier,
    quantize_multiplier,
    quantize_multipliers,
    round_half_away,
    rounding_divide_by_pot,
    saturating_rounding_doubling_high_mul,
)
from ..interpreter import InterpreterError
from ..qparams import channel_params, per_tensor
from ..registry import Args, quantized_kernel
from .activations import _erfc

F32 = np.float32


def _qparams(op: Operator, index: int, output: bool = False) -> tuple[np.float32, int]:
    """(scale as float32, zero point) of a per-tensor operand or result."""
    tensor = op.outputs[index] if output else op.inputs[index]
    if tensor is None or tensor.quant is None:
        raise InterpreterError(f"{op.kind}: tensor {index} has no quantization parameters")
    scale, zero_point = per_tensor(tensor)
    return F32(scale), zero_point


def _out_dtype(op: Operator) -> np.dtype:
    return np.dtype(numpy_dtype(op.outputs[0].dtype))


def _check_types(op: Operator, x: np.ndarray, allowed: tuple[Any, ...]) -> None:
    if x.dtype not in [np.dtype(a) for a in allowed] or _out_dtype(op) != x.dtype:
        names = ", ".join(np.dtype(a).name for a in allowed)
        raise InterpreterError(
            f"{op.kind}: quantized {x.dtype} -> {_out_dtype(op)} is not supported "
            f"(LiteRT supports {names} with the same output type)"
        )


def _symmetric_int16(op: Operator, zero_points: tuple[int, ...]) -> None:
    if any(z != 0 for z in zero_points):
        raise InterpreterError(f"{op.kind}: int16 tensors need zero point 0 (as in LiteRT)")


def _requantize(x: np.ndarray, real: float) -> np.ndarray:
    """MultiplyByQuantizedMultiplier by the quantized ``real``."""
    return multiply_by_quantized_multiplier(x, *quantize_multiplier(real))


def _roundf(x: np.float32) -> int:
    return int(round_half_away(np.float64(x)))


def _relu_x(op: Operator, args: Args, low: float, high: float | None, types) -> np.ndarray:
    """QuantizedReluX: requantize to the output scale, clamp to the quantized bounds."""
    x = args[0]
    _check_types(op, x, types)
    in_scale, in_zp = _qparams(op, 0)
    out_scale, out_zp = _qparams(op, 0, output=True)
    if x.dtype == np.int16:
        _symmetric_int16(op, (in_zp, out_zp))
    info = np.iinfo(x.dtype)
    qmin = max(info.min, out_zp + _roundf(F32(low) / out_scale))
    qmax = info.max if high is None else min(info.max, out_zp + _roundf(F32(high) / out_scale))
    y = out_zp + _requantize(x.astype(np.int64) - in_zp, float(in_scale / out_scale))
    return np.clip(y, qmin, qmax).astype(x.dtype)


_RELU_TYPES = (np.uint8, np.int8, np.int16)


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
    x = args[0]
    _check_types(op, x, _RELU_TYPES)
    in_scale, in_zp = _qparams(op, 0)
    out_scale, out_zp = _qparams(op, 0, output=True)
    if x.dtype == np.int16:
        _symmetric_int16(op, (in_zp, out_zp))
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
    _check_types(op, x, _RELU_TYPES)
    expected = (np.int8, np.int16) if x.dtype == np.int16 else (x.dtype,)
    if alpha.dtype not in expected:
        names = " or ".join(str(np.dtype(t)) for t in expected)
        raise InterpreterError(f"{op.kind}: {x.dtype} input needs {names} alpha")
    in_scale, in_zp = _qparams(op, 0)
    alpha_scale, alpha_zp = channel_params(op.inputs[1], alpha.ndim)
    out_scale, out_zp = _qparams(op, 0, output=True)
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


# --- 8-bit lookup tables -----------------------------------------------------------------


def _lut8(op: Operator, x: np.ndarray, transform: Callable[[np.ndarray], np.ndarray]):
    """LUTPopulateInt8 and the lookup: every representable input dequantized in float32,
    transformed, scaled by 1/output scale, rounded half away, offset and clamped."""
    in_scale, in_zp = _qparams(op, 0)
    out_scale, out_zp = _qparams(op, 0, output=True)
    info = np.iinfo(x.dtype)
    values = np.arange(info.min, info.max + 1, dtype=np.int64)
    dequantized = in_scale * (values - in_zp).astype(F32)
    with np.errstate(over="ignore", invalid="ignore"):
        transformed = transform(dequantized.astype(F32)).astype(F32)
        rescaled = round_half_away(transformed * (F32(1) / out_scale)).astype(F32)
        shifted = np.nan_to_num((rescaled + F32(out_zp)).astype(np.float64))
    table = np.clip(shifted, info.min, info.max).astype(x.dtype)
    return table[x.astype(np.int64) - info.min]


def float_unary(op: Operator, x: np.ndarray, transform: Callable[[np.ndarray], np.ndarray]):
    """``transform`` of the dequantized values (float32), quantized to the output (rounded
    half away, clamped): for INT16 operators LiteRT has no kernel for (as its 8-bit tables
    compute every entry)."""
    in_scale, in_zp = _qparams(op, 0)
    out_scale, out_zp = _qparams(op, 0, output=True)
    _symmetric_int16(op, (in_zp, out_zp))
    real = in_scale * (x.astype(np.int64) - in_zp).astype(F32)
    with np.errstate(over="ignore", invalid="ignore"):
        scaled = transform(real).astype(F32) * (F32(1) / out_scale)
    q = np.nan_to_num(round_half_away(scaled.astype(np.float64)) + out_zp)
    info = np.iinfo(x.dtype)
    return np.clip(q, info.min, info.max).astype(x.dtype)


def _c_float_function(
    name: str, fallback: Callable[[np.ndarray], np.ndarray]
) -> Callable[[np.ndarray], np.ndarray]:
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
_expf = _c_float_function("expf", np.exp)
_tanhf = _c_float_function("tanhf", np.tanh)
_erfcf = _c_float_function("erfcf", _erfc)


def _sigmoid(v: np.ndarray) -> np.ndarray:
    return F32(1) / (F32(1) + _expf(-v))


def _gelu(v: np.ndarray) -> np.ndarray:
    """GeluTransform: ``0.5f * x * erfcf(x * -sqrt(1/2))``."""
    return F32(0.5) * v * _erfcf(v * F32(-math.sqrt(0.5)))


_SQRT_2_OVER_PI = F32(2 / math.sqrt(math.pi) * math.sqrt(0.5))


def _gelu_approximate(v: np.ndarray) -> np.ndarray:
    """GeluTransformApproximate: ``0.5f*x*(1 + tanhf(sqrt(2/pi)*(x + 0.044715f*x^3)))``."""
    inner = _SQRT_2_OVER_PI * (v + F32(0.044715) * v * v * v)
    return F32(0.5) * v * (F32(1) + _tanhf(inner))


# --- int16 lookup tables (513 entries, interpolated) -----------------------------------------


def _lut16_table(
    transform: Callable[[np.ndarray], np.ndarray],
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


def _lut16_lookup(x: np.ndarray, table: np.ndarray) -> np.ndarray:
    """LUTLookup of int16 values: the top 9 bits index, the low 7 interpolate."""
    x = np.asarray(x, np.int64)
    index = 256 + (x >> 7)
    base = table[index]
    delta = ((table[index + 1] - base) * (x & 0x7F) + 64) >> 7
    return (base + delta).astype(np.int16)


# --- int16 LOGISTIC / TANH (LiteRT's sigmoid table) ----------------------------------------

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


def _checked_log2(x: np.float32) -> tuple[bool, int]:
    """CheckedLog2: (whether ``x`` is a power of two within 1e-3 in log2, rounded log2)."""
    log2 = F32(np.log(F32(x))) * (F32(1) / F32(np.log(F32(2))))
    rounded = F32(round_half_away(np.float64(log2)))
    return bool(abs(log2 - rounded) < F32(1e-3)), int(rounded)


def _int16_lut_input(op: Operator, pot_shifts: tuple[int, ...]) -> tuple[int, int, int]:
    """The int16 LOGISTIC/TANH prologue: the input rescaled to the table's 1/(3*4096)
    scale as ``(x * multiplier + round) >> shift``, checking LiteRT's parameter limits."""
    in_scale, in_zp = _qparams(op, 0)
    out_scale, out_zp = _qparams(op, 0, output=True)
    _symmetric_int16(op, (in_zp, out_zp))
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


@quantized_kernel("LOGISTIC")
def logistic(op: Operator, args: Args, ctx: Any) -> np.ndarray:
    """8-bit: LiteRT's sigmoid table (output scale 1/256); int16: reference_integer_ops
    Logistic, interpolating the sigmoid table."""
    x = args[0]
    _check_types(op, x, _RELU_TYPES)
    if x.dtype != np.int16:
        out_scale, _ = _qparams(op, 0, output=True)
        if out_scale != F32(1 / 256):
            raise InterpreterError(f"{op.kind}: the output scale must be 1/256 (as in LiteRT)")
        return _lut8(op, x, _sigmoid)
    multiplier, shift, rounding = _int16_lut_input(op, (0,))
    v = (x.astype(np.int64) * multiplier + rounding) >> shift
    magnitude = np.abs(v)
    high = np.minimum(magnitude >> 9, 254)
    low_value, high_value = _SIGMOID_TABLE[high], _SIGMOID_TABLE[high + 1]
    result = (low_value << 9) + (magnitude & 0x1FF) * (high_value - low_value)
    result = np.where((magnitude >> 9) >= 255, 0x7FFF << 10, result)
    result = np.where(v >= 0, result + (1 << 9), (1 << 25) - result + (1 << 9) - 1)
    return (result >> 10).astype(np.int16)


@quantized_kernel("TANH")
def tanh(op: Operator, args: Args, ctx: Any) -> np.ndarray:
    """8-bit: LiteRT's tanh table; int16: reference_integer_ops Tanh, interpolating the
    sigmoid table (tanh(x) = 2 sigmoid(2x) - 1)."""
    x = args[0]
    _check_types(op, x, _RELU_TYPES)
    if x.dtype != np.int16:
        return _lut8(op, x, _tanhf)
    multiplier, shift, rounding = _int16_lut_input(op, (0, 1))
    v = (x.astype(np.int64) * multiplier + rounding) >> shift
    magnitude = np.abs(v)
    high = np.minimum(magnitude >> 8, 254)
    low_value, high_value = _SIGMOID_TABLE[high], _SIGMOID_TABLE[high + 1]
    result = (low_value << 8) + (magnitude & 0xFF) * (high_value - low_value)
    result = np.where((magnitude >> 8) >= 255, 0xFFFF << 8, result)
    result = np.where(v >= 0, result - (1 << 23) + (1 << 7), -result + (1 << 23) + (1 << 7) - 1)
    return (result >> 8).astype(np.int16)


@quantized_kernel("GELU")
def gelu(op: Operator, args: Args, ctx: Any) -> np.ndarray:
    """The table LiteRT builds from GeluTransform (or its tanh approximation): 256 entries
    for 8-bit tensors, 513 interpolated ones (float32 LUTPopulateInt16) for int16."""
    x = args[0]
    _check_types(op, x, _RELU_TYPES)
    approximate = bool(getattr(op.options, "approximate", False))
    transform = _gelu_approximate if approximate else _gelu
    if x.dtype != np.int16:
        return _lut8(op, x, transform)
    in_scale, in_zp = _qparams(op, 0)
    out_scale, out_zp = _qparams(op, 0, output=True)
    table = _lut16_table(transform, in_scale, in_zp, out_scale, out_zp, F32)
    return _lut16_lookup(x, table)


# --- HARD_SWISH ------------------------------------------------------------------------------


def _int16_multiplier(real: float) -> tuple[int, int]:
    """QuantizeMultiplier then DownScaleInt32ToInt16Multiplier: (Q15 multiplier, exponent)."""
    multiplier, exponent = quantize_multiplier(real)
    if multiplier >= INT32_MAX - (1 << 15):
        return 32767, exponent
    return (multiplier + (1 << 15)) >> 16, exponent


def _srdhm16(a: np.ndarray, b: np.ndarray | int) -> np.ndarray:
    """gemmlowp's int16 SaturatingRoundingDoublingHighMul."""
    product = a * b
    nudged = product + np.where(product >= 0, 1 << 14, 1 - (1 << 14))
    high = np.where(nudged >= 0, nudged >> 15, -(-nudged >> 15))
    return np.where((a == -32768) & (b == -32768), 32767, high)


def _saturating_left_shift16(x: np.ndarray, amount: int) -> np.ndarray:
    return np.clip(x << amount, -32768, 32767)


def _hard_swish(v: np.ndarray) -> np.ndarray:
    return v * np.clip(v + F32(3), F32(0), F32(6)) / F32(6)


@quantized_kernel("HARD_SWISH")
def hard_swish(op: Operator, args: Args, ctx: Any) -> np.ndarray:
    """reference_ops::HardSwish: the input on a 2**7-finer scale, a "reluish" factor in
    [0, 1) from relu6(x + 3) / 6 in Q15, their product rescaled to the output, in int16.
    INT16 (beyond LiteRT): ``x * relu6(x + 3) / 6`` in float32 (:func:`float_unary`)."""
    x = args[0]
    _check_types(op, x, (np.uint8, np.int8, np.int16))
    if x.dtype == np.int16:
        return float_unary(op, x, _hard_swish)
    in_scale, in_zp = _qparams(op, 0)
    out_scale, out_zp = _qparams(op, 0, output=True)
    hires_scale = F32(1 / 128) * in_scale
    out_multiplier, out_exponent = _int16_multiplier(float(hires_scale / out_scale))
    if out_exponent > 0:
        raise InterpreterError(f"{op.kind}: the output scale is too small (as in LiteRT)")
    relu_multiplier, relu_exponent = _int16_multiplier(float(hires_scale / F32(3 / 32768)))
    hires = (x.astype(np.int64) - in_zp) * (1 << 7)
    preshift = _srdhm16(hires, out_multiplier)
    reluish = hires
    if relu_exponent > 0:
        reluish = _saturating_left_shift16(reluish, relu_exponent - 1)
    reluish = _srdhm16(reluish, relu_multiplier)
    if relu_exponent > 0:
        reluish = _saturating_left_shift16(reluish, 1)
    if relu_exponent < 0:
        reluish = rounding_divide_by_pot(reluish, -relu_exponent)
    reluish = (reluish + (1 << 15)) >> 1
    product = reluish * preshift  # SaturatingDoublingHighMul: truncating, never saturates here
    product = np.where(product >= 0, product >> 15, -(-product >> 15))
    y = rounding_divide_by_pot(product, -out_exponent) + out_zp
    info = np.iinfo(x.dtype)
    return np.clip(y, info.min, info.max).astype(x.dtype)


# --- SOFTMAX ---------------------------------------------------------------------------------


def _srdhm(a: np.ndarray, b: np.ndarray | int) -> np.ndarray:
    return saturating_rounding_doubling_high_mul(a, b)


def _saturating_shift_left(x: np.ndarray, exponent: int) -> np.ndarray:
    """gemmlowp's SaturatingRoundingMultiplyByPOT for a positive exponent (int32)."""
    threshold = (1 << (31 - exponent)) - 1
    return np.where(
        x > threshold, INT32_MAX, np.where(x < -threshold, -INT32_MAX - 1, x << exponent)
    )


def _exp_on_negative_values(a: np.ndarray) -> np.ndarray:
    """gemmlowp's exp_on_negative_values of Q5.26 raw values: a Q0.31 raw result."""
    fractional_bits = 26
    quarter = 1 << (fractional_bits - 2)
    a_mod_quarter_minus_quarter = (a & (quarter - 1)) - quarter
    # exp on [-1/4, 0): Taylor expansion around -1/8, in Q0.31.
    x = _saturating_shift_left(a_mod_quarter_minus_quarter, 5) + (1 << 28)
    x2 = _srdhm(x, x)
    x3 = _srdhm(x2, x)
    x4 = _srdhm(x2, x2)
    x4_over_4 = rounding_divide_by_pot(x4, 2)
    poly = rounding_divide_by_pot(_srdhm(x4_over_4 + x3, 715827883) + x2, 1)
    constant = 1895147668  # exp(-1/8)
    result = constant + _srdhm(constant, x + poly)
    remainder = a_mod_quarter_minus_quarter - a
    for exponent, multiplier in (
        (-2, 1672461947),
        (-1, 1302514674),
        (0, 790015084),
        (1, 290630308),
        (2, 39332535),
        (3, 720401),
        (4, 242),
    ):
        bit = (remainder & (1 << (fractional_bits + exponent))) != 0
        result = np.where(bit, _srdhm(result, multiplier), result)
    return np.where(a == 0, INT32_MAX, result)


def _one_over_one_plus_x(a: np.ndarray) -> np.ndarray:
    """gemmlowp's one_over_one_plus_x_for_x_in_0_1 of Q0.31 raw values (Newton-Raphson)."""
    total = a + INT32_MAX
    half_denominator = np.where(
        total >= 0, (total + 1) >> 1, -((1 - total) >> 1)
    )  # RoundingHalfSum
    x = 1515870810 + _srdhm(half_denominator, -1010580540)  # 48/17 - 32/17 d, in Q2.29
    for _ in range(3):
        one_minus = (1 << 29) - _srdhm(half_denominator, x)
        x = x + _saturating_shift_left(_srdhm(x, one_minus), 2)
    return _saturating_shift_left(x, 1)


def _count_leading_zeros32(x: np.ndarray) -> np.ndarray:
    """Leading zeros of non-negative int32 values held in int64."""
    return 32 - np.frexp(x.astype(np.float64))[1].astype(np.int64)


def _softmax_8bit(op: Operator, x: np.ndarray, out_dtype: np.dtype) -> np.ndarray:
    """reference_ops::Softmax on 8-bit input: gemmlowp fixed point over the last axis."""
    in_scale, _ = _qparams(op, 0)
    beta = float(F32(getattr(op.options, "beta", 1.0)))
    real = min(beta * float(in_scale) * (1 << (31 - 5)), (1 << 31) - 1.0)
    multiplier, left_shift = quantize_multiplier(real)
    radius = math.floor(31.0 * (1 << 26) / (1 << left_shift))
    diff = x.astype(np.int64) - x.max(axis=-1, keepdims=True)
    valid = diff >= -radius
    scaled = _srdhm(np.where(valid, diff, 0) << left_shift, multiplier)
    exps = _exp_on_negative_values(scaled)
    sum_of_exps = np.where(valid, rounding_divide_by_pot(exps, 12), 0).sum(axis=-1, keepdims=True)
    headroom_plus_one = _count_leading_zeros32(sum_of_exps)
    bits_over_unit = 12 - headroom_plus_one
    shifted_minus_one = ((sum_of_exps << headroom_plus_one) & 0xFFFFFFFF) - (1 << 31)
    shifted_scale = _one_over_one_plus_x(shifted_minus_one)
    exponent = bits_over_unit + 31 - 8 * out_dtype.itemsize
    info = np.iinfo(out_dtype)
    result = rounding_divide_by_pot(_srdhm(shifted_scale, exps), exponent) + info.min
    result = np.where(valid, result, info.min)
    return np.clip(result, info.min, info.max).astype(out_dtype)


def _softmax_int16(op: Operator, x: np.ndarray) -> np.ndarray:
    """reference_ops::SoftmaxInt16: exp and 1/(1+x) from LiteRT's interpolated int16 LUTs."""
    in_scale, in_zp = _qparams(op, 0)
    _, out_zp = _qparams(op, 0, output=True)
    _symmetric_int16(op, (in_zp, out_zp))
    span = 65535
    exp_lut = _lut16_table(np.exp, 10.0 / span, 32767, 2.0 / span, 0, np.float64)
    recip_lut = _lut16_table(
        lambda v: 1.0 / (1.0 + v), 1.0 / span, -32768, 2.0 / span, 0, np.float64
    )
    beta = F32(getattr(op.options, "beta", 1.0))
    real = float(in_scale * beta) / (10.0 / 65535.0)
    diff = x.astype(np.int64) - x.max(axis=-1, keepdims=True)
    scaled = multiply_by_quantized_multiplier(diff, *quantize_multiplier(real))
    exps = _lut16_lookup(np.clip(scaled + 32767, -32768, 32767), exp_lut).astype(np.int64)
    total = exps.sum(axis=-1, keepdims=True)
    headroom_plus_one = _count_leading_zeros32(total)
    shifted = ((total << (headroom_plus_one - 1)) + (1 << 13)) >> 14
    symmetric = np.clip(shifted - (1 << 15) - (1 << 16), -32768, 32767)
    reciprocal = _lut16_lookup(symmetric, recip_lut).astype(np.int64)
    right_shift = 31 - headroom_plus_one
    result = (exps * reciprocal + (np.int64(1) << (right_shift - 1))) >> right_shift
    return np.clip(result, 0, 32767).astype(np.int16)


@quantized_kernel("SOFTMAX")
def softmax(op: Operator, args: Args, ctx: Any) -> np.ndarray:
    """uint8/int8 input (output of the same type or int16): gemmlowp's fixed-point softmax;
    int16: LiteRT's LUT-based SoftmaxInt16."""
    x = args[0]
    out_dtype = _out_dtype(op)
    if x.dtype in (np.uint8, np.int8) and out_dtype in (x.dtype, np.int16):
        return _softmax_8bit(op, x, out_dtype)
    if x.dtype == np.int16 and out_dtype == np.int16:
        return _softmax_int16(op, x)
    raise InterpreterError(f"{op.kind}: quantized {x.dtype} -> {out_dtype} is not supported")
