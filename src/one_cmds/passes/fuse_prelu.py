"""``fuse_prelu`` (optimization.md §5.14): ``Add(Relu(x), Mul(Mul(Sub(x, Abs(x)), alpha), 0.5))``
becomes ``PRelu(x, alpha)``, because ``0.5·α·(x − |x|) = α·min(x, 0)``.

Conditions: the Add and both Muls match in either operand order, ``Sub(x, Abs(x))`` in this
order; every activation NONE; the half is a one-element FLOAT32 constant 0.5; alpha is a
FLOAT32 constant; x is FLOAT32. Reference: no condition on alpha's shape; here alpha must also
broadcast to x's shape, so the PRelu result keeps x's shape as its kernels expect.
"""

from __future__ import annotations

from ..ir import Operator, Tensor
from . import graph_pass
from .toolkit import GraphEditor, const_value, origin_of
from .toolkit.match import halved_products, operand_orders, plain, producers


def _alpha_fits(alpha: Tensor, x: Tensor) -> bool:
    value = const_value(alpha)
    if value is None or alpha.dtype != "FLOAT32" or x.dtype != "FLOAT32":
        return False
    if value.ndim > len(x.shape):
        return False
    return all(a == 1 or a == d for a, d in zip(value.shape[::-1], x.shape[::-1], strict=False))


def _match(g: GraphEditor, add: Operator) -> tuple[Tensor, Tensor, list[Operator]] | None:
    for relu, half_mul in producers(g, add, "RELU", "MUL"):
        x = relu.inputs[0]
        for alpha_mul in halved_products(g, half_mul):
            for diff, alpha in operand_orders(alpha_mul):
                sub = g.producer_of(diff, "SUB")
                abs_ = g.producer_of(sub.inputs[1], "ABS") if plain(sub) else None
                if abs_ is None or sub.inputs[0] is not x or abs_.inputs[0] is not x:
                    continue
                if _alpha_fits(alpha, x):
                    return x, alpha, [relu, abs_, sub, alpha_mul, half_mul, add]
    return None


@graph_pass("fuse_prelu")
def fuse_prelu(g: GraphEditor) -> int:
    rewrites = 0
    for add in g.ops("ADD"):
        found = _match(g, add) if plain(add) else None
        if found is None:
            continue
        x, alpha, ops = found
        g.replace_with(add, "PRELU", [x, alpha], origin=origin_of(*ops))
        rewrites += 1
    return rewrites
