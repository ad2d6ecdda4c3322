"""``fuse_add_with_tconv`` (optimization.md §5.6): ``Add(TransposeConv(s, W, x), addend)``,
commutative, becomes a TransposeConv with ``bias = addend``; a RELU or RELU6 of the Add
follows as its own operator with the Add's origin.

Conditions: TransposeConv without activation and without bias, W constant float32 rank 4
(OHWI); its only consumer is a float32 Add with NONE, RELU or RELU6 whose other operand is a
constant float32 ``[O]`` (O = ``W.shape[0]``) or, adopted beyond §5.6 (rank 1 only there),
``[1, 1, 1, O]``: the bias an NCHW export adds as ``[1, O, 1, 1]`` after the layout pass
(PaddleOCR's DB head), then a rank-1 copy.
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
        values = channel_vector(addend, weights.shape[0], ranks=(1, 4))
        if values is None:
            continue
        bias = addend if len(addend.shape) == 1 else g.const(f"{addend.name}/bias", values)
        replace_by_tconv(g, add, tconv, [shape, w, x, bias], origin_of(tconv, add))
        rewrites += 1
    return rewrites
