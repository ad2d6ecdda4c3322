"""Constant weights that float kernels read as float32 values (quantization.md §21.3, §22.5).

* Integer and packed 4-bit tensors with quantization parameters mean
  ``float32(q - zero_point[c]) * scale[c]`` (DEQUANTIZE computes exactly that). A *hybrid*
  operator (weights-only quantization) is a FULLY_CONNECTED, CONV_2D or DEPTHWISE_CONV_2D whose
  constant weights are INT8, INT16 or INT4 with a scale while its activation input and its
  results are FLOAT32: it runs the float kernel on those values, as its DEQUANTIZE form does
  (no dynamic input quantization).
* GGML_Q4_0 / GGML_Q8_0 blocks are read by FULLY_CONNECTED (input 1) and GATHER (input 0)
  only; every other operand of a block type is refused.
* Weight values are kept on the run context (``ctx.real_weights``) while they are small and the
  budget lasts; FULLY_CONNECTED weights beyond :data:`CHUNK_BYTES` of float32 are handed over a
  chunk of rows at a time, so a multi-GB weight is never dequantized whole.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ..ir import Operator, Tensor
from .ggml_blocks import BLOCK_BYTES, dequantize_rows

# Tensor types of the circle schema whose parameters live in the data (blocks).
BLOCK_TYPES = frozenset(BLOCK_BYTES) | {"GGML_Q4_1", "GGML_Q8_1", "MXFP4", "MXINT8"}
# Where GGML_Q4_0 / GGML_Q8_0 operands are read: operator kind -> input index.
GGML_OPERANDS = {"FULLY_CONNECTED": 1, "GATHER": 0}
# The weight operand of the operators that run with hybrid (weights-only) weights.
HYBRID_OPERANDS = {"FULLY_CONNECTED": 1, "CONV_2D": 1, "DEPTHWISE_CONV_2D": 1}
HYBRID_TYPES = frozenset({"INT8", "INT16", "INT4"})
NIBBLE_SIGNED = {"INT4": True, "UINT4": False}
# Float32 bytes of weight rows dequantized at a time; larger weights are never kept whole.
CHUNK_BYTES = 16 << 20
# Float32 bytes of weight values one run context keeps.
KEPT_BYTES = 256 << 20


def unsupported_operand(op: Operator) -> str | None:
    """The refusal of the first operand of a block type that ``op`` cannot read
    (``Unsupported tensor type <TYPE> for <OP> input <k>``), None when there is none."""
    for k, t in enumerate(op.inputs):
        if t is None or t.dtype not in BLOCK_TYPES:
            continue
        if t.dtype in BLOCK_BYTES and GGML_OPERANDS.get(op.kind) == k:
            continue
        return f"Unsupported tensor type {t.dtype} for {op.kind} input {k}"
    return None


def is_block(tensor: Tensor | None) -> bool:
    """Whether ``tensor`` holds GGML_Q4_0 / GGML_Q8_0 blocks."""
    return tensor is not None and tensor.dtype in BLOCK_BYTES


def hybrid_index(op: Any) -> int | None:
    """The index of ``op``'s hybrid weight operand (module docstring), None when it has none."""
    index = HYBRID_OPERANDS.get(op.kind)
    if index is None or len(op.inputs) <= index or not op.outputs:
        return None
    w, x = op.inputs[index], op.inputs[0]
    q = None if w is None else w.quant
    if (
        w is None
        or not w.is_constant
        or w.dtype not in HYBRID_TYPES
        or q is None
        or q.scale is None
        or len(q.scale) == 0
    ):
        return None
    floats = x is not None and x.dtype == "FLOAT32"
    return index if floats and all(t.dtype == "FLOAT32" for t in op.outputs) else None


def real_operands(op: Any, args: list[Any], ctx: Any) -> list[Any]:
    """``args`` with ``op``'s hybrid weight operand, if any, as its float32 values."""
    index = hybrid_index(op)
    if index is None:
        return args
    tensor, value = op.inputs[index], args[index]
    real = list(args)
    real[index] = _kept(ctx).value(tensor, lambda: dequantized(tensor, value))
    return real


def is_streamed(op: Any) -> bool:
    """Whether ``op``'s weights (input 1) are read by :func:`weight_rows`: GGML blocks or a
    hybrid weight."""
    return len(op.inputs) > 1 and (is_block(op.inputs[1]) or hybrid_index(op) == 1)


def weight_rows(tensor: Tensor, value: np.ndarray, ctx: Any) -> Iterator[np.ndarray]:
    """The float32 rows of the [units, depth] weights ``tensor`` (GGML blocks or hybrid
    integers, whose data is ``value``) in order: all at once when they are kept on ``ctx`` or
    small enough to be, else chunks of at most :data:`CHUNK_BYTES`."""
    shape = _static(tensor)
    if len(shape) != 2:
        raise ValueError(f"weights {tensor.name!r} of shape {list(shape)} must be 2-D")
    units, depth = shape
    kept = _kept(ctx)
    if kept.get(tensor) is not None or kept.fits(4 * units * depth):
        return iter([kept.value(tensor, lambda: _rows(tensor, value, slice(None)))])
    step = max(1, CHUNK_BYTES // (4 * depth))
    return (_rows(tensor, value, slice(s, s + step)) for s in range(0, units, step))


def _rows(tensor: Tensor, value: np.ndarray, rows: slice) -> np.ndarray:
    if is_block(tensor):
        return dequantize_rows(tensor.dtype, value, tensor.shape, rows)
    return dequantized(tensor, value, rows)


def dequantized(tensor: Tensor, value: np.ndarray, rows: slice = slice(None)) -> np.ndarray:
    """The real values of ``rows`` (along axis 0) of ``tensor`` holding ``value``: integers
    ``float32(q - zero_point[c]) * scale[c]`` (c the index along ``quantized_dimension``),
    packed INT4/UINT4 unpacked first, float16 widened."""
    if tensor.dtype in NIBBLE_SIGNED:
        shape, q = _static(tensor), unpack_nibbles(value, tensor, rows)
    else:
        shape, q = value.shape, value[rows] if value.ndim else value
    if not np.issubdtype(q.dtype, np.integer):
        return q.astype(np.float32)
    scale, zero_point = dequantize_params(tensor, shape)
    if shape:
        scale = np.broadcast_to(scale, shape)[rows]
        zero_point = np.broadcast_to(zero_point, shape)[rows]
    return (q - zero_point).astype(np.float32) * scale


def unpack_nibbles(raw: np.ndarray, tensor: Tensor, rows: slice = slice(None)) -> np.ndarray:
    """The elements of ``rows`` (along axis 0) of a packed INT4/UINT4 tensor: two per byte,
    low nibble first; only the bytes of those rows are unpacked."""
    shape = _static(tensor)
    packed = np.ascontiguousarray(raw).reshape(-1).view(np.uint8)
    if 2 * packed.size < math.prod(shape):
        raise ValueError(
            f"{packed.size} bytes cannot hold {math.prod(shape)} {tensor.dtype} elements"
        )
    out_shape = (len(range(shape[0])[rows]), *shape[1:]) if shape else ()
    begin = (range(shape[0])[rows].start if shape else 0) * math.prod(shape[1:])
    count = math.prod(out_shape)
    part = packed[begin // 2 : (begin + count + 1) // 2]
    nibbles = np.stack([part & 0x0F, part >> 4], axis=-1).reshape(-1)
    nibbles = nibbles[begin % 2 : begin % 2 + count].astype(np.int8)
    if NIBBLE_SIGNED[tensor.dtype]:
        nibbles = (nibbles ^ 8) - 8
    return nibbles.reshape(out_shape)


def _static(tensor: Tensor) -> tuple[int, ...]:
    """The shape of a tensor whose dimensions must all be known."""
    shape = tuple(d for d in tensor.shape if d is not None)
    if len(shape) != len(tensor.shape):
        raise ValueError(f"{tensor.dtype} tensor {tensor.name!r} needs a static shape")
    return shape


def dequantize_params(tensor: Tensor, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """(float32 scale, int64 zero point) broadcastable against ``shape``; channel c uses pair c,
    or pair 0 when the tensor has no more than c zero points (absent zero points are 0)."""
    q = tensor.quant
    if q is None or q.scale is None or len(q.scale) == 0:
        raise ValueError(f"tensor {tensor.name!r} has no quantization parameters")
    scale = np.asarray(q.scale, np.float32).reshape(-1)
    zero_point = np.asarray([] if q.zero_point is None else q.zero_point, np.int64).reshape(-1)
    if zero_point.size == 0:
        zero_point = np.zeros(scale.size, np.int64)
    if not shape:
        return scale[0], zero_point[0]
    dim = q.quantized_dimension
    channel = np.arange(shape[dim])
    channel[channel >= zero_point.size] = 0
    broadcast = [1] * len(shape)
    broadcast[dim] = -1
    return scale[channel].reshape(broadcast), zero_point[channel].reshape(broadcast)


class _Kept:
    """Weight values one run context keeps, by tensor, up to :data:`KEPT_BYTES` in all; an
    entry holds the tensor's buffer, so a replaced constant is not mistaken for it."""

    def __init__(self) -> None:
        self.entries: dict[int, tuple[Any, np.ndarray]] = {}
        self.spare = KEPT_BYTES

    def get(self, tensor: Tensor) -> np.ndarray | None:
        entry = self.entries.get(id(tensor))
        return entry[1] if entry is not None and entry[0] is tensor.buffer else None

    def fits(self, nbytes: int) -> bool:
        return nbytes <= min(CHUNK_BYTES, self.spare)

    def value(self, tensor: Tensor, compute: Callable[[], np.ndarray]) -> np.ndarray:
        """The kept values of ``tensor``, else ``compute()``, kept when they fit."""
        found = self.get(tensor)
        if found is not None:
            return found
        stale = self.entries.pop(id(tensor), None)
        self.spare += 0 if stale is None else stale[1].nbytes
        values = compute()
        if self.fits(values.nbytes):
            values.flags.writeable = False
            self.entries[id(tensor)] = (tensor.buffer, values)
            self.spare -= values.nbytes
        return values


def _kept(ctx: Any) -> _Kept:
    kept = getattr(ctx, "real_weights", None)
    if kept is None:
        kept = _Kept()
        ctx.real_weights = kept
    return kept
