"""``fold_dequantize`` (optimization.md §5.17), values computed by the DEQUANTIZE kernel.

* ``Dequantize(c)`` where the constant c is FLOAT16, or INT4/UINT4/INT8/UINT8/INT16/INT32/
  INT64 with quantization parameters: replaced by a float32 constant named ``<c>_DQ`` (the
  Dequantize disappears with its origin). A Dequantize result that is a graph output keeps
  its name instead, so the model interface does not change.
* ``Dequantize(Gather(c, indices))`` with c such a constant, the Gather read by the
  Dequantize only, and no FullyConnected among the Dequantize's consumers (hybrid kernels
  read the quantized values): a new ``Gather(<c>_DQ, indices)`` gives the float32 result; it
  absorbs the Dequantize (origin gather ∪ dequantize, as the reference adds it).

Reference: pattern 2 checks the constant's user for FullyConnected (never true for a
Gather); here the Dequantize's consumers are checked, as §5.17 states.
"""

from __future__ import annotations

import numpy as np

from ...ir import Operator, Tensor
from .. import graph_pass
from ..toolkit import GraphEditor, constant_results, origin_of

_QUANTIZED = frozenset({"INT4", "UINT4", "INT8", "UINT8", "INT16", "INT32", "INT64"})


def _foldable(t: Tensor | None) -> bool:
    """A dense constant that DEQUANTIZE turns into float32 values."""
    if t is None or not t.is_constant or t.is_variable or t.sparsity is not None:
        return False
    if t.dtype == "FLOAT16":
        return True
    has_scale = t.quant is not None and t.quant.scale is not None and len(t.quant.scale) > 0
    return t.dtype in _QUANTIZED and has_scale


def _dequantized(g: GraphEditor, t: Tensor) -> np.ndarray | None:
    """The float32 values of the foldable constant ``t``, from the DEQUANTIZE kernel."""
    result = Tensor(f"{t.name}_DQ", "FLOAT32", t.shape)
    values = constant_results(g, Operator("DEQUANTIZE", [t], [result]))
    return None if values is None else values[0]


def _fold_constant(g: GraphEditor, op: Operator) -> bool:
    source, out = op.inputs[0], op.outputs[0]
    value = _dequantized(g, source) if _foldable(source) else None
    if value is None:
        return False
    name = f"{source.name}_DQ"
    if g.is_output(out):
        folded = g.const(name, value, "FLOAT32")  # takes the output's name over
    else:
        folded = Tensor.constant(g.unique_name(name), value, "FLOAT32")
    g.replace(out, folded)
    return True


def _fold_gather_params(g: GraphEditor, op: Operator) -> bool:
    gather = g.producer_of(op.inputs[0], "GATHER")
    if gather is None or not g.only_use_is(gather.outputs[0], op):
        return False
    params, indices = gather.inputs[:2]
    if not _foldable(params):
        return False
    if any(c.opcode == "FULLY_CONNECTED" for c in g.consumers(op.outputs[0])):
        return False
    value = _dequantized(g, params)
    if value is None:
        return False
    float_params = g.const(f"{params.name}_DQ", value, "FLOAT32")
    g.replace_with(
        op, "GATHER", [float_params, indices], gather.options, origin=origin_of(gather, op)
    )
    return True


@graph_pass("fold_dequantize")
def fold_dequantize(g: GraphEditor) -> int:
    return sum(_fold_constant(g, op) or _fold_gather_params(g, op) for op in g.ops("DEQUANTIZE"))
