"""``fuse_gelu`` (optimization.md §5.15): ``Mul(Mul(x, Add(Erf(Mul(x, c)), 1.0)), 0.5)`` becomes
``Gelu(x, approximate=False)``, Erf being the custom operator with code ``Erf``, one input and
one output.

Conditions: every Mul and the Add match in either operand order; ``|c − sqrt(0.5)| < 1e−5``
with c a one-element FLOAT32 constant; the 1.0 and 0.5 are one-element FLOAT32 constants of
exactly those values; every activation NONE; x (FLOAT32) is the same tensor in both Muls.
``exact=False``: c may differ from sqrt(0.5) within the tolerance and the Gelu kernel computes
on its own.
"""

from __future__ import annotations

import math

from ..ir import Operator, Tensor
from . import graph_pass
from .toolkit import GraphEditor, is_const_scalar, new_options, origin_of, scalar_value
from .toolkit.match import halved_products, operand_orders, plain, single_erf

_SQRT_HALF = math.sqrt(0.5)


def _is_sqrt_half(t: Tensor) -> bool:
    c = scalar_value(t)
    return t.dtype == "FLOAT32" and c is not None and abs(c - _SQRT_HALF) < 1e-5


def _erf_of_scaled(g: GraphEditor, t: Tensor, x: Tensor) -> list[Operator] | None:
    """``Erf(Mul(x, c))``: the Erf and the Mul."""
    erf = single_erf(g, t)
    if erf is None:
        return None
    mul = g.producer_of(erf.inputs[0], "MUL")
    for a, c in operand_orders(mul) if plain(mul) else ():
        if a is x and _is_sqrt_half(c):
            return [erf, mul]
    return None


def _match(g: GraphEditor, mul_half: Operator) -> tuple[Tensor, list[Operator]] | None:
    for mul in halved_products(g, mul_half):
        for x, sum_ in operand_orders(mul):
            add = g.producer_of(sum_, "ADD")
            for erf_out, one in operand_orders(add) if plain(add) and x.dtype == "FLOAT32" else ():
                inner = _erf_of_scaled(g, erf_out, x) if is_const_scalar(one, 1.0) else None
                if inner is not None:
                    return x, [*inner, add, mul, mul_half]
    return None


@graph_pass("fuse_gelu", exact=False)
def fuse_gelu(g: GraphEditor) -> int:
    rewrites = 0
    for mul_half in g.ops("MUL"):
        found = _match(g, mul_half)
        if found is None:
            continue
        x, ops = found
        options = new_options("GeluOptions", approximate=False)
        g.replace_with(mul_half, "GELU", [x], options, origin=origin_of(*ops))
        rewrites += 1
    return rewrites
