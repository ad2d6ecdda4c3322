"""Binary-coded quantization (circle-only): BCQ_FULLY_CONNECTED and BCQ_GATHER.

A BCQ matrix M [rows, hidden] is stored as three constants:

* ``clusters`` int32 [n, 2]: row c is (qbits_c, size_c), in the order ``fuse_bcq`` (reference
  FuseBCQPass) packs them. The rows of M are split into n consecutive blocks of size_c rows;
  ``rows = Σ size_c`` (the output size luci and onert infer).
* ``scales`` float32 [Σ qbits_c·size_c] and ``binary`` int32 [Σ qbits_c·size_c,
  ceil(hidden / 32)]: one scale and one row of packed signs per (bit, row) code entry.
  Entries run cluster by cluster and, inside a cluster, bit plane by bit plane:
  entry ``offset_c + b·size_c + r`` is bit b of row r of cluster c.
* In a binary row, bit j (least significant first) of word w is the sign of column 32·w + j:
  set = +1, clear = −1; columns from ``hidden`` on are padding.

``M[row] = Σ_b scale[entry(b, row)] · sign[entry(b, row)]``. ONE's public sources fix the
operands' shapes (luci shape inference, onert's shape validation, the circle recipes) but not
the bit order inside them (the runtime kernels are not public); the order above is this
project's definition and ``fuse_bcq`` only moves these constants, so it is self-consistent.
"""

from __future__ import annotations

import numpy as np

from ..registry import kernel
from .conv import finish, float_args, options_of
from .layout import axis_index

_WORD_BITS = 32


def bcq_layout(clusters: np.ndarray, hidden: int) -> tuple[int, int, int]:
    """(rows of M, scales = rows of ``binary``, words per binary row) for ``clusters``."""
    clusters = np.asarray(clusters, np.int64).reshape(-1, 2)
    if np.any(clusters < 0) or hidden < 0:
        raise ValueError(f"negative cluster sizes, bit counts or hidden size {hidden}")
    entries = int(np.sum(clusters[:, 0] * clusters[:, 1]))
    return int(np.sum(clusters[:, 1])), entries, -(-hidden // _WORD_BITS)


def bcq_matrix(scales: np.ndarray, binary: np.ndarray, clusters: np.ndarray, hidden: int):
    """The float32 matrix [Σ size_c, hidden] that the three BCQ constants encode."""
    _, entries, words = bcq_layout(clusters, hidden)
    clusters = np.asarray(clusters).reshape(-1, 2)
    qbits, sizes = clusters[:, 0].astype(np.int64), clusters[:, 1].astype(np.int64)
    if scales.size != entries or binary.shape != (entries, words):
        raise ValueError(
            f"clusters {clusters.tolist()} and hidden size {hidden} need {entries} scales and "
            f"binary codes of shape {[entries, words]}, got {scales.size} and "
            f"{list(binary.shape)}"
        )
    bits = np.unpackbits(
        np.ascontiguousarray(binary, dtype="<i4").view(np.uint8), axis=1, bitorder="little"
    )[:, :hidden]
    signed = np.where(bits == 1, np.float32(1), np.float32(-1)) * scales.reshape(-1, 1)
    blocks, start = [], 0
    for q, size in zip(qbits, sizes, strict=True):
        entry = signed[start : start + q * size].reshape(q, size, hidden)
        blocks.append(entry.sum(axis=0, dtype=np.float32))
        start += q * size
    if not blocks:
        return np.zeros((0, hidden), np.float32)
    return np.concatenate(blocks).astype(np.float32, copy=False)


@kernel("BCQ_FULLY_CONNECTED", real_valued=True)
def bcq_fully_connected(op, args, ctx):
    """Inputs (input [hidden, batch], scales, binary, bias [rows] or omitted, clusters):
    ``M @ input + bias[:, None]`` [rows, batch] with the fused activation."""
    x, scales, bias = float_args(op, [args[0], args[1], args[3]], 3)
    if x.ndim != 2:
        raise ValueError(f"the input has rank {x.ndim}, expected 2 ([hidden, batch])")
    hidden = options_of(op).weightsHiddenSize
    if hidden != x.shape[0]:
        raise ValueError(f"the input has {x.shape[0]} rows, weights_hidden_size is {hidden}")
    weights = bcq_matrix(scales, np.asarray(args[2]), args[4], hidden)
    return finish(weights @ x, None if bias is None else bias.reshape(-1, 1), op)


@kernel("BCQ_GATHER", real_valued=True)
def bcq_gather(op, args, ctx):
    """Inputs (scales, binary, indices, clusters): the rows (``axis`` 0) or columns (``axis``
    1) of M [rows, input_hidden_size] picked by ``indices``."""
    options = options_of(op)
    (scales,) = float_args(op, args[:1], 1)
    table = bcq_matrix(scales, np.asarray(args[1]), args[3], options.inputHiddenSize)
    indices = np.asarray(args[2])
    axis = axis_index(options.axis, 2)
    if np.any(indices < 0) or np.any(indices >= table.shape[axis]):
        raise ValueError(f"gather index out of range [0, {table.shape[axis]})")
    return np.take(table, indices, axis=axis)
