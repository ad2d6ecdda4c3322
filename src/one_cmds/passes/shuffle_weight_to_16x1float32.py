"""``shuffle_weight_to_16x1float32``: a float32 FULLY_CONNECTED with constant dense weights
[rows, cols] in the DEFAULT format, rows a multiple of 16, gets them in the circle-only
format SHUFFLED16x1FLOAT32 (``weightsFormat`` 127): blocks of 16 rows, each block stored
column by column, ``new[(r·cols + c)·16 + i] = old[r·16 + i, c]``; the shape stays
[rows, cols]. Every FULLY_CONNECTED reading the same weights tensor (and eligible) is
rewritten to read the one shuffled copy, as the reference does. Each rewritten operator is
replaced by a new one with the same origin.
"""

from __future__ import annotations

from ..ir import Operator
from . import graph_pass
from .toolkit import GraphEditor, const_value, is_float32, with_options

SHUFFLED16x1FLOAT32 = 127  # FullyConnectedOptionsWeightsFormat of the circle schema
_BLOCK = 16


def _eligible(fc: Operator) -> bool:
    weights = const_value(fc.inputs[1])
    return (
        fc.options is not None
        and fc.options.weightsFormat == 0
        and is_float32(fc.outputs[0], fc.inputs[1])
        and weights is not None
        and weights.ndim == 2
        and weights.shape[0] % _BLOCK == 0
    )


@graph_pass("shuffle_weight_to_16x1float32")
def shuffle_weight_to_16x1float32(g: GraphEditor) -> int:
    rewrites = 0
    for fc in g.ops("FULLY_CONNECTED"):
        if not _eligible(fc):
            continue
        w = fc.inputs[1]
        rows, cols = w.data.shape
        blocks = w.data.reshape(rows // _BLOCK, _BLOCK, cols).transpose(0, 2, 1)
        shuffled = g.const(f"{w.name}/shuffle_weight", blocks.reshape(rows, cols), w.dtype)
        for user in g.consumers(w):
            if user.opcode != "FULLY_CONNECTED" or user.inputs[1] is not w or not _eligible(user):
                continue
            options = with_options(user.options, weightsFormat=SHUFFLED16x1FLOAT32)
            inputs = [user.inputs[0], shuffled, *user.inputs[2:]]
            new = g.op("FULLY_CONNECTED", inputs, options, origin=user.origin, like=user.outputs)
            g.replace_op(user, new)
            rewrites += 1
    return rewrites
