"""``decompose_softmax`` (reference ``DecomposeSoftmaxPass.cpp``): a FLOAT32 ``Softmax(x)`` over
the last axis becomes ``e / Sum(e, -1)`` with ``e = Exp(Sub(x, ReduceMax(x, -1)))``, both
reductions keeping dims and sharing one rank-0 INT32 axis constant; when ``|beta − 1| > 1e−5``
the difference is multiplied by a rank-0 beta before the Exp. Every new operator copies the
Softmax's origin. ``exact=False``: the decomposed arithmetic rounds differently from the
Softmax kernel."""

from __future__ import annotations

from ..ir import Operator, Tensor
from . import graph_pass
from .toolkit import GraphEditor, new_options
from .toolkit.build import axes_const, binary, decompose_each, float_scalar


def _decomposed(g: GraphEditor, softmax: Operator) -> Tensor:
    x, out, origin = softmax.inputs[0], softmax.outputs[0], softmax.origin
    name = f"{out.name}/Softmax"
    axis = axes_const(g, f"{name}/reduction_index", -1)
    keep = new_options("ReducerOptions", keepDims=True)
    peak = g.op("REDUCE_MAX", [x, axis], keep, origin=origin, like=out, name=f"{name}/max")
    shifted = binary(g, "SUB", x, peak.outputs[0], origin=origin, like=out, name=f"{name}/sub")
    beta = float(getattr(softmax.options, "beta", 0.0))  # the schema default without options
    if abs(beta - 1.0) > 1e-5:
        scale = float_scalar(g, f"{name}/beta_const", beta)
        shifted = binary(g, "MUL", shifted, scale, origin=origin, like=out, name=f"{name}/beta_mul")
    exp = g.op("EXP", [shifted], origin=origin, like=out, name=f"{name}/exp").outputs[0]
    total = g.op("SUM", [exp, axis], keep, origin=origin, like=out, name=f"{name}/sum")
    return binary(g, "DIV", exp, total.outputs[0], origin=origin, like=out, name=f"{name}/div")


@graph_pass("decompose_softmax", exact=False)
def decompose_softmax(g: GraphEditor) -> int:
    return decompose_each(g, "SOFTMAX", lambda op: _decomposed(g, op))
