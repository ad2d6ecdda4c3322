"""Circle-only operators."""

from __future__ import annotations

from ..common import int_list, normalize_axis, option, require_rank, same_as_input, times
from ..registry import ShapeError, rule


@rule("INSTANCE_NORM", "RMS_NORM", "ROPE")
def normalization(op, ctx):
    """Input 0's shape and dtype."""
    return same_as_input(ctx)


def _qbits(ctx, i):
    """Sum of the bit counts of a BCQ clusters operand ([clusters, 2]: size, bits)."""
    clusters = int_list(ctx.value(i))
    return None if clusters is None else sum(clusters[1::2])


@rule("BCQ_FULLY_CONNECTED")
def bcq_fully_connected(op, ctx):
    """Inputs (input, weights_scales, weights_binary, bias, weights_clusters): the input is
    [depth, batch] and the output [sum of cluster bits, batch] (luci's rule)."""
    x = require_rank(ctx, 0, 2)
    return [((_qbits(ctx, 4), x[1]), ctx.dtype(0))]


@rule("BCQ_GATHER")
def bcq_gather(op, ctx):
    """Inputs (input_scales, input_binary, indices, input_clusters): the table is
    [rows of input_binary / cluster bits, columns of input_binary * 32] (luci's rule)."""
    binary = require_rank(ctx, 1, 2)
    indices = ctx.shape(2)
    qbits = _qbits(ctx, 3)
    if qbits == 0:
        raise ShapeError("input_clusters hold no bits")
    rows = None if binary[0] is None or qbits is None else binary[0] // qbits
    table = (rows, times(binary[1], 32))
    axis = normalize_axis(option(op, "axis", 0), 2)
    return [((*table[:axis], *indices, *table[axis + 1 :]), ctx.dtype(0))]
