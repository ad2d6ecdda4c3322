"""``resolve_customop_splitv`` (optimization.md §5.23): Custom(SplitV)(value, size_splits,
split_dim) with a constant rank-1 INT32/INT64 ``size_splits`` and a constant INT32/INT64
``split_dim`` becomes SPLIT_V with ``num_splits = len(size_splits)`` (one result per size),
origin copied. INT64 constants are narrowed to new INT32 constants (not when a value does
not fit), as the reference does.

Reference: pairs the custom operator's results with the new ones in the order of its user
list; here result k replaces result k.
"""

from __future__ import annotations

import numpy as np

from ..ir import Tensor
from . import graph_pass
from .toolkit import GraphEditor, const_value, new_options
from .toolkit.custom import custom_ops

_INT32 = np.iinfo(np.int32)


def _int32_const(g: GraphEditor, t: Tensor) -> Tensor | None:
    """``t`` when it is an INT32 constant, an INT32 copy of an INT64 one whose values fit."""
    value = const_value(t)
    if value is None or t.dtype not in ("INT32", "INT64"):
        return None
    if t.dtype == "INT32":
        return t
    if value.size and (value.min() < _INT32.min or value.max() > _INT32.max):
        return None
    return g.const(t.name, value.astype(np.int32), "INT32")


@graph_pass("resolve_customop_splitv")
def resolve_customop_splitv(g: GraphEditor) -> int:
    rewrites = 0
    for op, _ in custom_ops(g, "SplitV", inputs=3):
        x, sizes, axis = op.inputs
        if len(sizes.shape) != 1 or sizes.shape[0] != len(op.outputs):
            continue
        sizes32, axis32 = _int32_const(g, sizes), _int32_const(g, axis)
        if sizes32 is None or axis32 is None:
            continue
        options = new_options("SplitVOptions", numSplits=len(op.outputs))
        new = g.op("SPLIT_V", [x, sizes32, axis32], options, origin=op.origin, like=op.outputs)
        g.replace_op(op, new)
        rewrites += 1
    return rewrites
