"""Always on (optimization.md §4.1 item 25, reference ``XpSepActFromTransposeConv``): a fused
RELU or RELU6 of a float32 TRANSPOSE_CONV becomes an operator of its own after it (other
activations stay fused, as in the reference)."""

from __future__ import annotations

from . import graph_pass
from .toolkit import NONE, RELU, RELU6, GraphEditor, activation, with_options

_OPERATOR = {RELU: "RELU", RELU6: "RELU6"}


@graph_pass("separate_transpose_conv_activation")
def separate_transpose_conv_activation(g: GraphEditor) -> int:
    rewrites = 0
    for tconv in g.ops("TRANSPOSE_CONV"):
        fused = activation(tconv)
        if fused not in _OPERATOR or tconv.outputs[0].dtype != "FLOAT32":
            continue
        out = tconv.outputs[0]
        options = with_options(tconv.options, fusedActivationFunction=NONE)
        bare = g.op("TRANSPOSE_CONV", tconv.inputs, options, origin=tconv.origin, like=out)
        act = g.op(_OPERATOR[fused], [bare.outputs[0]], origin=tconv.origin, like=out)
        g.replace(out, act.outputs[0])
        rewrites += 1
    return rewrites
