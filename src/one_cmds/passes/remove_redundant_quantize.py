"""``remove_redundant_quantize`` (reference RemoveRedundantQuantizePass):

* ``Quantize(Quantize(x))`` becomes ``Quantize(x)`` with the outer operator's output type
  and parameters (origin: a copy of the outer one's; the inner one stays for other users).
  This skips the inner rounding, so it changes results on purpose;
* a Quantize whose input already has its output dtype and the same single scale and zero
  point is replaced by its input (an exact identity).
"""

from __future__ import annotations

from ..ir import Tensor
from . import graph_pass
from .toolkit import GraphEditor


def _per_tensor(t: Tensor) -> tuple[float, int] | None:
    q = t.quant
    if q is None or q.scale is None or q.zero_point is None:
        return None
    if len(q.scale) != 1 or len(q.zero_point) != 1:
        return None
    return float(q.scale[0]), int(q.zero_point[0])


def _same_quantization(a: Tensor, b: Tensor) -> bool:
    params = _per_tensor(a)
    return a.dtype == b.dtype and params is not None and params == _per_tensor(b)


@graph_pass("remove_redundant_quantize", changes_results=True)
def remove_redundant_quantize(g: GraphEditor) -> int:
    rewrites = 0
    for op in g.ops("QUANTIZE"):
        source, out = op.inputs[0], op.outputs[0]
        inner = g.producer_of(source, "QUANTIZE")
        if inner is not None:
            g.replace_with(op, "QUANTIZE", [inner.inputs[0]], op.options, origin=op.origin)
        elif _same_quantization(source, out):
            g.replace(out, source)
        else:
            continue
        rewrites += 1
    return rewrites
