"""Custom operators the TensorFlow converter leaves for TensorFlow ops without a builtin
(optimization.md §5.23), with TensorFlow's semantics: AddV2, BatchMatMulV2, MatMul,
MaxPoolWithArgmax, SplitV and BroadcastTo.

Their attributes (``adj_x``, ``transpose_a``, ``ksize``, ...) are the custom options: a
flexbuffer map written by the converter, read with :func:`custom_attributes`.
"""

from __future__ import annotations

import struct
from typing import Any

import numpy as np
from flatbuffers import flexbuffers

from ...ir import Operator
from ..registry import kernel
from .conv import SAME, VALID, Window
from .layout import broadcast_to, split_v
from .matmul import record_matmul

_FLEXBUFFERS = 0  # CustomOptionsFormat.FLEXBUFFERS
_PADDINGS = {"SAME": SAME, "VALID": VALID}


def custom_attributes(op: Operator) -> dict[str, Any] | None:
    """The attribute map of a custom operator ({} without options); None when the options
    are not a flexbuffer map."""
    if not op.custom_options:
        return {}
    if op.custom_options_format != _FLEXBUFFERS:
        return None
    try:
        value = flexbuffers.Loads(bytes(op.custom_options))
    except (ValueError, LookupError, TypeError, struct.error):
        return None
    return value if isinstance(value, dict) else None


def _attributes(op: Operator) -> dict[str, Any]:
    attributes = custom_attributes(op)
    if attributes is None:
        raise ValueError("the custom options are not a flexbuffer map")
    return attributes


def pool_window(attributes: dict[str, Any]) -> tuple[int, int, int, int, int] | None:
    """(kh, kw, stride h, stride w, padding) of MaxPoolWithArgmax's ``ksize``, ``strides`` and
    ``padding``; None unless both lists are ``[1, h, w, 1]`` and the padding SAME or VALID."""
    ksize, strides, name = (attributes.get(k) for k in ("ksize", "strides", "padding"))
    padding = _PADDINGS.get(name) if isinstance(name, str) else None
    lists = [v for v in (ksize, strides) if isinstance(v, list) and len(v) == 4]
    if padding is None or len(lists) != 2 or not all(isinstance(i, int) for i in ksize + strides):
        return None
    (b, kh, kw, d), (sb, sh, sw, sd) = ksize, strides
    if (b, d, sb, sd) != (1, 1, 1, 1) or min(kh, kw, sh, sw) < 1:
        return None
    return kh, kw, sh, sw, padding


@kernel("CUSTOM(AddV2)", real_valued=True)
def add_v2(op, args, ctx):
    """``x + y`` with numpy (TensorFlow) broadcasting."""
    x, y = args
    return np.add(x, y)


@kernel("CUSTOM(BatchMatMulV2)", real_valued=True)
def batch_matmul_v2(op, args, ctx):
    """Product of the last two axes with broadcast batch axes; ``adj_x`` / ``adj_y``
    transpose an operand's last two axes first (real types)."""
    x, y = args
    attributes = _attributes(op)
    if x.ndim < 2 or y.ndim < 2:
        raise ValueError("BatchMatMulV2 operands need at least two dimensions")
    if attributes.get("adj_x", False):
        x = np.swapaxes(x, -1, -2)
    if attributes.get("adj_y", False):
        y = np.swapaxes(y, -1, -2)
    return record_matmul(op, x, y, ctx)


@kernel("CUSTOM(MatMul)", real_valued=True)
def mat_mul(op, args, ctx):
    """Product of two matrices; ``transpose_a`` / ``transpose_b`` transpose one first."""
    a, b = args
    attributes = _attributes(op)
    if a.ndim != 2 or b.ndim != 2:
        raise ValueError("MatMul operands must be matrices")
    if attributes.get("transpose_a", False):
        a = a.T
    if attributes.get("transpose_b", False):
        b = b.T
    return a @ b


@kernel("CUSTOM(MaxPoolWithArgmax)", real_valued=True)
def max_pool_with_argmax(op, args, ctx):
    """NHWC max pool and, per output, the flat index of the maximum in the input:
    ``(y * W + x) * C + c``, plus ``b * H * W * C`` when ``include_batch_in_index``.

    As TensorFlow: padded positions never count, and the first maximum of a window in
    row-major order wins a tie.
    """
    (x,) = args
    attributes = _attributes(op)
    window = pool_window(attributes)
    if window is None:
        raise ValueError("ksize/strides must be [1, h, w, 1] and padding SAME or VALID")
    kh, kw, sh, sw, padding = window
    win = Window.over(x.shape, kh, kw, (sh, sw), padding)
    n, h, w, c = x.shape
    rows = np.arange(win.out_h)[:, None] * sh - win.top
    cols = np.arange(win.out_w)[None, :] * sw - win.left
    offset = np.arange(c)
    if attributes.get("include_batch_in_index", False):
        offset = offset + (np.arange(n) * (h * w * c)).reshape(n, 1, 1, 1)
    values = win.taps(x)
    inside = win.taps(np.ones(x.shape, bool), False)
    best = np.zeros((n, win.out_h, win.out_w, c), x.dtype)
    where = np.full(best.shape, -1, np.int64)
    for k, (value, valid) in enumerate(zip(values, inside, strict=True)):
        fy, fx = divmod(k, kw)
        flat = ((rows + fy) * w + cols + fx)[None, :, :, None] * c + offset
        take = valid & ((where < 0) | (value > best))
        best = np.where(take, value, best)
        where = np.where(take, flat, where)
    return best, where


@kernel("CUSTOM(SplitV)")
def split_v_custom(op, args, ctx):
    """Inputs (value, size_splits, split_dim), as the builtin SPLIT_V."""
    return split_v(op, args, ctx)


@kernel("CUSTOM(BroadcastTo)")
def broadcast_to_custom(op, args, ctx):
    """Inputs (value, shape), as the builtin BROADCAST_TO."""
    return broadcast_to(op, args, ctx)
