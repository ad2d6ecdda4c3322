"""Matrix products: fully connected, batched matmul, and the recurrent cells built on them."""

from __future__ import annotations

from ..common import broadcast, option, product, require_rank
from ..registry import ShapeError, rule


@rule("FULLY_CONNECTED")
def fully_connected(op, ctx):
    """Weights [units, depth]. ``keep_num_dims``: leading dims + [units]; otherwise
    [elements / depth, units], unknown when an input dim is unknown."""
    x = ctx.shape(0)
    units, depth = require_rank(ctx, 1, 2)
    if option(op, "keepNumDims", False):
        return [((*x[:-1], units), ctx.dtype(0))]
    count = product(x)
    if count is None or depth is None:
        return [((None, units), ctx.dtype(0))]
    if depth == 0 or count % depth:
        raise ShapeError(f"{count} input elements are not a multiple of the weights' {depth}")
    return [((count // depth, units), ctx.dtype(0))]


@rule("BATCH_MATMUL")
def batch_matmul(op, ctx):
    """Batch dims broadcast; rows from lhs, columns from rhs (after the adjoint options)."""
    lhs, rhs = ctx.shape(0), ctx.shape(1)
    for i, s in enumerate((lhs, rhs)):
        if len(s) < 2:
            raise ShapeError(f"input {i} rank {len(s)}, expected at least 2")
    rows, inner = (lhs[-1], lhs[-2]) if option(op, "adjointLhs", False) else lhs[-2:]
    inner_rhs, cols = (rhs[-1], rhs[-2]) if option(op, "adjointRhs", False) else rhs[-2:]
    if inner is not None and inner_rhs is not None and inner != inner_rhs:
        raise ShapeError(f"inner dimensions differ: {inner} and {inner_rhs}")
    return [((*broadcast(lhs[:-2], rhs[:-2]), rows, cols), ctx.dtype(0))]


@rule("SVDF")
def svdf(op, ctx):
    """Input [batch, input_size], weights_feature [filters, input_size]: [batch, filters/rank]."""
    batch = require_rank(ctx, 0, 2)[0]
    filters = require_rank(ctx, 1, 2)[0]
    rank = option(op, "rank", 1)
    if rank <= 0 or (filters is not None and filters % rank):
        raise ShapeError(f"{filters} filters are not a multiple of rank {rank}")
    return [((batch, None if filters is None else filters // rank), ctx.dtype(0))]


@rule("UNIDIRECTIONAL_SEQUENCE_LSTM")
def unidirectional_sequence_lstm(op, ctx):
    """Input [time, batch, n] or [batch, time, n]: the last dim becomes the output size, the
    second dim of recurrent_to_output_weights (input 8)."""
    x = require_rank(ctx, 0, 3)
    n_output = require_rank(ctx, 8, 2)[1]
    return [((*x[:-1], n_output), ctx.dtype(0))]


@rule("UNIDIRECTIONAL_SEQUENCE_RNN")
def unidirectional_sequence_rnn(op, ctx):
    """Input [time, batch, n] or [batch, time, n]: the last dim becomes the number of units,
    the first dim of input_weights (input 1)."""
    x = require_rank(ctx, 0, 3)
    units = require_rank(ctx, 1, 2)[0]
    return [((*x[:-1], units), ctx.dtype(0))]
