"""``fuse_add_with_tconv`` (optimization.md §5.6): ``Add(TransposeConv(s, W, x), addend)``,
commutative, becomes a TransposeConv with ``bias = addend``; a RELU or RELU6 of the Add
follows as its own operator with the Add's origin.

Conditions: TransposeConv without activation and without bias, W constant float32 rank 4
(OHWI); its only consumer is a float32 Add with NONE, RELU or RELU6 whose other operand is a
constant float32 ``[O]`` (rank 1, O = ``W.shape[0]``).
"""

from __future__ import annotations

from . import graph_pass
from .toolkit import (
    NONE,
    GraphEditor,
    activation,
    channel_vector,
    const_value,
    is_float32,
    origin_of,
    other_input,
)
from .toolkit.batchnorm import TCONV_ADD_ACTIVATIONS, replace_by_tconv


@graph_pass("fuse_add_with_tconv")
def fuse_add_with_tconv(g: GraphEditor) -> int:
    rewrites = 0
    for tconv in g.ops("TRANSPOSE_CONV"):
        shape, w, x, *rest = tconv.inputs
        out = tconv.outputs[0]
        add = g.single_consumer(out)
        if add is None or add.opcode != "ADD" or (rest and rest[0] is not None):
            continue
        weights = const_value(w)
        addend = other_input(add, out)
        if weights is None or weights.ndim != 4 or activation(tconv) != NONE:
            continue
        if not is_float32(w, addend, add.outputs[0]):
            continue
        if activation(add) not in TCONV_ADD_ACTIVATIONS:
            continue
        if channel_vector(addend, weights.shape[0], ranks=(1,)) is None:
            continue
        replace_by_tconv(g, add, tconv, [shape, w, x, addend], origin_of(tconv, add))
        rewrites += 1
    return rewrites
