"""``transform_min_max_to_relu6`` and ``transform_min_relu_to_relu6`` (optimization.md §5.20):
``Maximum(Minimum(x, 6), 0)`` and ``Relu(Minimum(x, 6))`` become ``Relu6(x)``.

Conditions: Maximum and Minimum match in either operand order; 6 and 0 are **rank-0** FLOAT32
constants of exactly those values; the Relu's result is FLOAT32. The Minimum stays for its
other users. The Relu6 result is named ``<maximum name>/Relu6`` (``<relu name>/Relu6``) as in
the reference, except when it is a graph output, which keeps its name.
"""

from __future__ import annotations

from ..ir import Operator, Tensor
from . import graph_pass
from .match_common import operand_orders
from .toolkit import GraphEditor, const_value, is_const_scalar, origin_of


def _rank0(t: Tensor, value: float) -> bool:
    return t.shape == () and is_const_scalar(t, value)


def _clipped_at_six(g: GraphEditor, t: Tensor) -> tuple[Operator, Tensor] | None:
    """``Minimum(x, 6)``: (the Minimum, x)."""
    minimum = g.producer_of(t, "MINIMUM")
    for x, six in operand_orders(minimum) if minimum is not None else ():
        if _rank0(six, 6.0) and const_value(x) is None:
            return minimum, x
    return None


def _relu6(g: GraphEditor, last: Operator, minimum: Operator, x: Tensor) -> None:
    out = last.outputs[0]
    name = f"{out.name}/Relu6"
    new = g.op("RELU6", [x], origin=origin_of(last, minimum), like=out).outputs[0]
    g.replace(out, new)
    if not g.is_output(new):
        new.name = g.unique_name(name)


@graph_pass("transform_min_max_to_relu6")
def transform_min_max_to_relu6(g: GraphEditor) -> int:
    rewrites = 0
    for maximum in g.ops("MAXIMUM"):
        for clipped, zero in operand_orders(maximum):
            found = _clipped_at_six(g, clipped) if _rank0(zero, 0.0) else None
            if found is not None:
                _relu6(g, maximum, *found)
                rewrites += 1
                break
    return rewrites


@graph_pass("transform_min_relu_to_relu6")
def transform_min_relu_to_relu6(g: GraphEditor) -> int:
    rewrites = 0
    for relu in g.ops("RELU"):
        found = _clipped_at_six(g, relu.inputs[0]) if relu.outputs[0].dtype == "FLOAT32" else None
        if found is not None:
            _relu6(g, relu, *found)
            rewrites += 1
    return rewrites
