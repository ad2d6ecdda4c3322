"""Matrix products: FULLY_CONNECTED and BATCH_MATMUL."""

from __future__ import annotations

import numpy as np

from ..context import InterpreterError
from ..real_weights import is_streamed, weight_rows
from ..registry import kernel
from .conv import finish, float_args


@kernel("FULLY_CONNECTED")
def fully_connected(op, args, ctx):
    """``x @ weights.T + bias`` with weights [units, depth].

    The input is flattened to [size / depth, depth]; ``keepNumDims`` keeps its leading
    dimensions instead (its last dimension must then be ``depth``). Weights in the circle
    format SHUFFLED16x1FLOAT32 are read back in row order first. GGML and hybrid integer
    weights are read as float32 (:mod:`..real_weights`), a chunk of rows at a time when large.
    """
    weights_format = getattr(op.options, "weightsFormat", 0)
    if weights_format not in (0, 127):
        raise InterpreterError(f"{op.kind}: weights format {weights_format} is not supported")
    if is_streamed(op):
        if weights_format:
            raise InterpreterError(f"{op.kind}: SHUFFLED16x1FLOAT32 weights must be float32")
        x, _, b = float_args(op, [args[0], None, *args[2:3]], 3)
        chunks = weight_rows(op.inputs[1], args[1], ctx)
        units, depth = op.inputs[1].shape
    else:
        x, w, b = float_args(op, args, 3)
        if weights_format:
            w = _unshuffled(w)
        (units, depth), chunks = w.shape, iter([w])
    if x.size % depth:
        raise ValueError(f"input of shape {list(x.shape)} does not flatten to rows of {depth}")
    out = finish(_products(ctx, x, depth, units, chunks), b, op)
    if getattr(op.options, "keepNumDims", False):
        if x.shape[-1] != depth:
            raise ValueError(f"keep_num_dims needs an input whose last dimension is {depth}")
        return out.reshape(*x.shape[:-1], units)
    return out


def _unshuffled(w: np.ndarray) -> np.ndarray:
    """SHUFFLED16x1FLOAT32 weights (16-row blocks stored column by column) in row order."""
    if w.ndim != 2 or w.shape[0] % 16:
        raise ValueError(f"SHUFFLED16x1FLOAT32 weights {list(w.shape)}: rows not a multiple of 16")
    return w.reshape(w.shape[0] // 16, w.shape[1], 16).transpose(0, 2, 1).reshape(w.shape)


def _products(ctx, x, depth, units, chunks) -> np.ndarray:
    """The rows of ``x`` (flattened to ``depth``) times the transposed weights, given as
    ``chunks`` of consecutive weight rows: one product per chunk (record by record)."""
    out = None
    done = 0
    for w in chunks:
        part = ctx.by_record(lambda rows, w=w: rows.reshape(-1, depth) @ w.T, x)
        if len(w) == units:
            return part
        if out is None:
            out = np.empty((len(part), units), part.dtype)
        out[:, done : done + len(w)] = part
        done += len(w)
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
