"""What the two Relu6 transforms share (optimization.md §5.20): ``Minimum(x, 6)`` and the new
``Relu6(x)``.

Conditions: Maximum and Minimum match in either operand order; 6 and 0 are **rank-0** FLOAT32
constants of exactly those values; the Relu's result is FLOAT32. The Minimum stays for its
other users. The Relu6 result is named ``<maximum name>/Relu6`` (``<relu name>/Relu6``) as in
the reference, except when it is a graph output, which keeps its name.
"""

from __future__ import annotations

from ...ir import Operator, Tensor
from ..toolkit import GraphEditor, const_value, is_const_scalar, origin_of
from ..toolkit.match import operand_orders


def rank0(t: Tensor, value: float) -> bool:
    """Whether ``t`` is a rank-0 FLOAT32 constant equal to ``value``."""
    return t.shape == () and is_const_scalar(t, value)


def clipped_at_six(g: GraphEditor, t: Tensor) -> tuple[Operator, Tensor] | None:
    """``Minimum(x, 6)``: (the Minimum, x)."""
    minimum = g.producer_of(t, "MINIMUM")
    for x, six in operand_orders(minimum) if minimum is not None else ():
        if rank0(six, 6.0) and const_value(x) is None:
            return minimum, x
    return None


def relu6(g: GraphEditor, last: Operator, minimum: Operator, x: Tensor) -> None:
    """Replace the result of ``last`` by ``Relu6(x)`` (origin ``last`` ∪ ``minimum``)."""
    out = last.outputs[0]
    name = f"{out.name}/Relu6"
    new = g.replace_with(last, "RELU6", [x], origin=origin_of(last, minimum)).outputs[0]
    if not g.is_output(new):
        new.name = g.unique_name(name)
