"""Moving data between space, depth and batch: DEPTH_TO_SPACE, SPACE_TO_DEPTH,
BATCH_TO_SPACE_ND, SPACE_TO_BATCH_ND. Pure data movement, so any dtype works.
"""

from __future__ import annotations

import numpy as np

from ..registry import kernel
from .conv import options_of


def _block_size(op, x) -> int:
    block = options_of(op).blockSize
    if x.ndim != 4 or block < 1:
        raise ValueError(f"needs a 4-D input and a positive block size, got {block}")
    return block


def _blocks(block_shape, x, pairs, what: str):
    """(block sizes, [M, 2] before/after amounts) of the ND operators, checked."""
    block = [int(v) for v in np.asarray(block_shape).reshape(-1)]
    amounts = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    if (
        min(block, default=1) < 1
        or amounts.min(initial=0) < 0
        or len(amounts) != len(block)
        or x.ndim < len(block) + 1
    ):
        raise ValueError(
            f"block shape {block} and {what} {amounts.tolist()} do not fit an input of "
            f"shape {list(x.shape)}"
        )
    return block, amounts


@kernel("DEPTH_TO_SPACE")
def depth_to_space(op, args, ctx):
    x = args[0]
    b = _block_size(op, x)
    n, h, w, c = x.shape
    if c % (b * b):
        raise ValueError(f"depth {c} is not a multiple of block size squared {b * b}")
    y = x.reshape(n, h, w, b, b, c // (b * b)).transpose(0, 1, 3, 2, 4, 5)
    return y.reshape(n, h * b, w * b, c // (b * b))


@kernel("SPACE_TO_DEPTH")
def space_to_depth(op, args, ctx):
    x = args[0]
    b = _block_size(op, x)
    n, h, w, c = x.shape
    if h % b or w % b:
        raise ValueError(f"height {h} and width {w} must be multiples of block size {b}")
    y = x.reshape(n, h // b, b, w // b, b, c).transpose(0, 1, 3, 2, 4, 5)
    return y.reshape(n, h // b, w // b, b * b * c)


@kernel("BATCH_TO_SPACE_ND")
def batch_to_space_nd(op, args, ctx):
    """Batch [prod(block) * B] to space, block offsets major; then crop."""
    x = args[0]
    block, crops = _blocks(args[1], x, args[2], "crops")
    m, total = len(block), int(np.prod(block))
    if x.shape[0] % total:
        raise ValueError(f"batch {x.shape[0]} is not a multiple of the block count {total}")
    spatial, rest = x.shape[1 : m + 1], x.shape[m + 1 :]
    y = x.reshape(*block, x.shape[0] // total, *spatial, *rest)
    pairs = (a for j in range(m) for a in (m + 1 + j, j))  # (spatial j, block j)
    y = y.transpose(m, *pairs, *range(2 * m + 1, y.ndim))
    y = y.reshape(x.shape[0] // total, *(s * b for s, b in zip(spatial, block, strict=True)), *rest)
    crop = tuple(slice(lo, y.shape[1 + i] - hi) for i, (lo, hi) in enumerate(crops.tolist()))
    return y[(slice(None), *crop)]


@kernel("SPACE_TO_BATCH_ND")
def space_to_batch_nd(op, args, ctx):
    """Pad, then move block offsets of space to the batch axis (block offsets major).

    Quantized tensors are padded with their zero point, as TFLite does.
    """
    x = args[0]
    block, paddings = _blocks(args[1], x, args[2], "paddings")
    m = len(block)
    quant = op.inputs[0].quant
    has_zero = quant is not None and quant.zero_point is not None and len(quant.zero_point)
    zero = quant.zero_point[0] if has_zero else 0
    pads = [(0, 0), *paddings.tolist(), *[(0, 0)] * (x.ndim - m - 1)]
    y = np.pad(x, pads, constant_values=zero)
    spatial, rest = y.shape[1 : m + 1], y.shape[m + 1 :]
    if any(s % b for s, b in zip(spatial, block, strict=True)):
        raise ValueError(f"padded spatial shape {list(spatial)} is not a multiple of {block}")
    y = y.reshape(
        y.shape[0], *(a for s, b in zip(spatial, block, strict=True) for a in (s // b, b)), *rest
    )
    y = y.transpose(*range(2, 2 * m + 1, 2), 0, *range(1, 2 * m, 2), *range(2 * m + 1, y.ndim))
    return y.reshape(-1, *(s // b for s, b in zip(spatial, block, strict=True)), *rest)
