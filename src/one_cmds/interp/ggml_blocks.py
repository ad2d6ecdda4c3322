"""The GGML block codec: float32 <-> GGML_Q4_0 / GGML_Q8_0 blocks (quantization.md §22.3, §22.4).

A tensor of N elements (C order, last dimension a multiple of 32) is N/32 blocks of 32
consecutive last-dimension elements, written in order without padding. A block is ``d``
(float16, little-endian) followed by the 32 codes: Q4_0 packs ``n_j | n_(j+16) << 4`` in 16
bytes, Q8_0 stores 32 int8. Quantization is ggml's reference arithmetic, bit for bit: every
product and sum in float32 (no float64, no fused multiply-add). Dequantization is exact:
``float32(d16) * (n - 8)`` (Q4_0), ``float32(d16) * q`` (Q8_0).

The codec is pure numpy and lives in the interpreter's room, the lowest that both the
interpreter's kernels and the quantizer may import.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from .fixedpoint import round_half_away

BLOCK = 32
BLOCK_BYTES: dict[str, int] = {"GGML_Q4_0": 18, "GGML_Q8_0": 34}

# One block as a numpy record: the fp16 scale, then the codes.
_LAYOUT = {
    "GGML_Q4_0": np.dtype([("d", "<f2"), ("qs", "u1", (BLOCK // 2,))]),
    "GGML_Q8_0": np.dtype([("d", "<f2"), ("qs", "i1", (BLOCK,))]),
}
# Blocks quantized at a time: bounds the float32 temporaries of a large tensor (8 MiB each).
_STEP = 1 << 16


def ggml_size(dtype: str, shape: tuple[int, ...]) -> int:
    """The byte count of a ``dtype`` tensor of logical ``shape``."""
    if dtype not in BLOCK_BYTES:
        raise ValueError(f"{dtype} is not a GGML block type ({', '.join(BLOCK_BYTES)})")
    last = shape[-1] if len(shape) else 1
    if last % BLOCK:
        raise ValueError(f"last dimension {last} is not a multiple of {BLOCK}")
    return math.prod(shape) // BLOCK * BLOCK_BYTES[dtype]


def quantize_q4_0(x: np.ndarray) -> np.ndarray:
    """GGML_Q4_0 blocks of float32 ``x``: uint8 of shape ``x.shape[:-1] + (C/32*18,)``."""
    return _quantize("GGML_Q4_0", x, _encode_q4_0)


def quantize_q8_0(x: np.ndarray) -> np.ndarray:
    """GGML_Q8_0 blocks of float32 ``x``: uint8 of shape ``x.shape[:-1] + (C/32*34,)``."""
    return _quantize("GGML_Q8_0", x, _encode_q8_0)


def dequantize_q4_0(raw: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """The float32 values of logical ``shape`` that GGML_Q4_0 bytes ``raw`` hold."""
    return dequantize_rows("GGML_Q4_0", raw, shape, slice(None)).reshape(shape)


def dequantize_q8_0(raw: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """The float32 values of logical ``shape`` that GGML_Q8_0 bytes ``raw`` hold."""
    return dequantize_rows("GGML_Q8_0", raw, shape, slice(None)).reshape(shape)


def dequantize_rows(
    dtype: str, raw: np.ndarray, shape: tuple[int, ...], rows: slice | np.ndarray
) -> np.ndarray:
    """The float32 values of ``rows`` of the tensor viewed as ``[prod(shape[:-1]), C]``: only
    the selected rows are decoded. A slice gives ``[k, C]``; an index array of shape S gives
    ``S + (C,)``. ``raw``: the tensor's bytes, flat or as blocked rows."""
    picked = _block_rows(dtype, raw, shape)[rows]
    values = _DECODE[dtype](picked.reshape(-1))
    return values.reshape(*picked.shape[:-1], shape[-1] if len(shape) else 1)


def _block_rows(dtype: str, raw: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """The blocks of a tensor as records of shape [rows, C/32] (a view of ``raw``)."""
    expected = ggml_size(dtype, shape)
    data = np.ascontiguousarray(raw).reshape(-1)
    if data.dtype != np.uint8 or data.size != expected:
        raise ValueError(
            f"{dtype} data of {list(shape)} needs {expected} bytes, got {data.nbytes} "
            f"({data.dtype})"
        )
    last = shape[-1] if len(shape) else 1
    return data.view(_LAYOUT[dtype]).reshape(math.prod(shape[:-1]), last // BLOCK)


def _quantize(
    dtype: str, x: np.ndarray, encode: Callable[[np.ndarray, np.ndarray], None]
) -> np.ndarray:
    values = np.asarray(x, np.float32)
    if values.ndim == 0 or values.shape[-1] % BLOCK:
        last = values.shape[-1] if values.ndim else 1
        raise ValueError(f"last dimension {last} is not a multiple of {BLOCK}")
    blocks = np.ascontiguousarray(values).reshape(-1, BLOCK)
    out = np.empty(len(blocks), _LAYOUT[dtype])
    with np.errstate(over="ignore"):  # a scale beyond float16 is stored as inf, as ggml does
        for start in range(0, len(blocks), _STEP):
            encode(blocks[start : start + _STEP], out[start : start + _STEP])
    row_bytes = values.shape[-1] // BLOCK * BLOCK_BYTES[dtype]
    return out.view(np.uint8).reshape(*values.shape[:-1], row_bytes)


def _inverse(d: np.ndarray) -> np.ndarray:
    """``1 / d`` in float32, 0 where ``d`` is 0."""
    with np.errstate(divide="ignore"):
        return np.where(d == 0, np.float32(0), np.float32(1) / d)


def _encode_q4_0(blocks: np.ndarray, out: np.ndarray) -> None:
    """d = (the element of largest |x|, the first on ties) / -8; n = min(15, trunc(x/d + 8.5))."""
    peak = np.take_along_axis(blocks, np.argmax(np.abs(blocks), axis=1)[:, None], axis=1)
    d = peak / np.float32(-8)
    n = np.minimum(np.trunc(blocks * _inverse(d) + np.float32(8.5)), np.float32(15))
    n = n.astype(np.uint8)
    out["qs"] = n[:, : BLOCK // 2] | (n[:, BLOCK // 2 :] << 4)
    out["d"] = d[:, 0]


def _encode_q8_0(blocks: np.ndarray, out: np.ndarray) -> None:
    """d = max|x| / 127; q = round(x/d), halves away from zero."""
    d = np.max(np.abs(blocks), axis=1, keepdims=True) / np.float32(127)
    # |x * id| <= 127: in float64 the "+ 0.5" of round_half_away is exact for float32 values
    out["qs"] = round_half_away(blocks * _inverse(d)).astype(np.int8)
    out["d"] = d[:, 0]


def _decode_q4_0(blocks: np.ndarray) -> np.ndarray:
    qs = blocks["qs"]
    n = np.concatenate([qs & 0x0F, qs >> 4], axis=1).astype(np.float32) - np.float32(8)
    return blocks["d"].astype(np.float32)[:, None] * n


def _decode_q8_0(blocks: np.ndarray) -> np.ndarray:
    return blocks["d"].astype(np.float32)[:, None] * blocks["qs"].astype(np.float32)


_DECODE: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "GGML_Q4_0": _decode_q4_0,
    "GGML_Q8_0": _decode_q8_0,
}
