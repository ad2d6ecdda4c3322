"""Matrix products: FULLY_CONNECTED and BATCH_MATMUL."""

from __future__ import annotations

import numpy as np

from ..context import InterpreterError
from ..registry import kernel
from .conv import finish, float_args


@kernel("FULLY_CONNECTED")
def fully_connected(op, args, ctx):
    """``x @ weights.T + bias`` with weights [units, depth].

    The input is flattened to [size / depth, depth]; ``keepNumDims`` keeps its leading
    dimensions instead (its last dimension must then be ``depth``). Weights in the circle
    format SHUFFLED16x1FLOAT32 are read back in row order first.
    """
    x, w, b = float_args(op, args, 3)
    weights_format = getattr(op.options, "weightsFormat", 0)
    if weights_format == 127:  # SHUFFLED16x1FLOAT32: 16-row blocks stored column by column
        if w.ndim != 2 or w.shape[0] % 16:
            raise ValueError(
                f"SHUFFLED16x1FLOAT32 weights {list(w.shape)}: rows not a multiple of 16"
            )
        w = w.reshape(w.shape[0] // 16, w.shape[1], 16).transpose(0, 2, 1).reshape(w.shape)
    elif weights_format:
        raise InterpreterError(f"{op.kind}: weights format {weights_format} is not supported")
    units, depth = w.shape
    if x.size % depth:
        raise ValueError(f"input of shape {list(x.shape)} does not flatten to rows of {depth}")
    out = finish(ctx.by_record(lambda rows: rows.reshape(-1, depth) @ w.T, x), b, op)
    if getattr(op.options, "keepNumDims", False):
        if x.shape[-1] != depth:
            raise ValueError(f"keep_num_dims needs an input whose last dimension is {depth}")
        return out.reshape(*x.shape[:-1], units)
    return out


@kernel("BATCH_MATMUL")
def batch_matmul(op, args, ctx):
    """Matrix product of the last two axes with broadcast batch axes.

    ``adjointLhs`` / ``adjointRhs`` (TFLite's ``adj_x`` / ``adj_y``) transpose an operand's
    last two axes first.
    """
    x, y = float_args(op, args, 2)
    if x.ndim < 2 or y.ndim < 2:
        raise ValueError("BATCH_MATMUL operands need at least two dimensions")
    if getattr(op.options, "adjointLhs", False):
        x = np.swapaxes(x, -1, -2)
    if getattr(op.options, "adjointRhs", False):
        y = np.swapaxes(y, -1, -2)
    return record_matmul(op, x, y, ctx)


def record_matmul(op, x, y, ctx):
    """``np.matmul(x, y)``, a record at a time in a run of stacked records (``y`` sliced
    too when it is an activation with the records on its first axis)."""
    if y.ndim == x.ndim > 2 and y.shape[0] == x.shape[0] and not op.inputs[1].is_constant:
        return ctx.by_record(np.matmul, x, y)
    return ctx.by_record(lambda rows: np.matmul(rows, y), x)
