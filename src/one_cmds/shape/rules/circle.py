"""Circle-only operators."""

from __future__ import annotations

from ..common import int_list, normalize_axis, option, require_rank, same_as_input, times
from ..registry import rule


@rule("INSTANCE_NORM", "RMS_NORM", "ROPE")
def normalization(op, ctx):
    """Input 0's shape and dtype."""
    return same_as_input(ctx)


def _rows(ctx, i):
    """Rows of the matrix a BCQ clusters operand describes: the sum of the cluster sizes
    (the operand is [clusters, 2] of (qbits, size) pairs, as FuseBCQPass packs them)."""
    clusters = int_list(ctx.value(i))
    return None if clusters is None else sum(clusters[1::2])


@rule("BCQ_FULLY_CONNECTED")
def bcq_fully_connected(op, ctx):
    """Inputs (input, weights_scales, weights_binary, bias, weights_clusters): the input is
    [depth, batch] and the output [sum of cluster sizes, batch] (luci's rule)."""
    x = require_rank(ctx, 0, 2)
    return [((_rows(ctx, 4), x[1]), ctx.dtype(0))]


@rule("BCQ_GATHER")
def bcq_gather(op, ctx):
    """Inputs (input_scales, input_binary, indices, input_clusters): the table is [sum of the
    cluster sizes, input_hidden_size] gathered along ``axis``. luci takes the columns as the
    packed words * 32; here ``input_hidden_size`` when set, as the kernels compute (the two
    differ when the hidden size is not a multiple of 32)."""
    binary = require_rank(ctx, 1, 2)
    indices = ctx.shape(2)
    hidden = option(op, "inputHiddenSize", 0)
    table = (_rows(ctx, 3), hidden if hidden > 0 else times(binary[1], 32))
    axis = normalize_axis(option(op, "axis", 0), 2)
    return [((*table[:axis], *indices, *table[axis + 1 :]), ctx.dtype(0))]
