"""Chains of ONNX nodes lowered as one operator (onnx-import.md §6.1).

* ``½·x·(1+erf(x/√2))`` → GELU; ``½·x·(1+tanh(√(2/π)·(x+0.044715·x³)))`` → GELU(approximate),
  with the products and sums in any operand order, ``/c`` for ``·(1/c)``, ``x³`` as
  ``Pow(x, 3)`` or two Muls, constants within 1e−6;
* ``x·HardSigmoid(x)`` with α = 1/6, β = ½ → HARD_SWISH; so does the spelled-out form
  Paddle2ONNX writes, ``x·Clip(x + 3, 0, 6)/6`` (``/6`` before or after the product, as a Div
  or a Mul by 1/6, operands in any order).

The matches are found once per import over the whole graph. Every node of a chain is still
handed to its converter, which first calls :func:`claim`: the chain's last node emits the fused
operator (its origin: every node of the chain), the others emit nothing. A chain matches only
when nothing outside it reads its intermediate values.
"""

from __future__ import annotations

import math
import weakref
from dataclasses import dataclass
from typing import Any

import onnx

from ..lowering import Lowering
from ..node import Node
from .common import clip_bound, options

TOLERANCE = 1e-6
KAPPA = 0.044715


@dataclass(frozen=True)
class Fusion:
    """A matched chain: ``opcode`` applied to the value ``x`` gives the output of ``last``."""

    opcode: str
    x: str
    options: Any
    nodes: frozenset[int]
    last: int


class Uses:
    """Who produces and who reads each value of the graph."""

    def __init__(self, lo: Lowering) -> None:
        self.lo = lo
        self.producer = {name: n for n in lo.nodes for name in n.outputs if name}
        self.readers: dict[str, list[Node]] = {}
        self.escaping = set(lo.graph_outputs)
        for n in lo.nodes:
            for name in dict.fromkeys(n.inputs):
                if name:
                    self.readers.setdefault(name, []).append(n)
            self.escaping.update(_read_by_subgraphs(n.proto))

    def made_by(self, name: str, *op_types: str) -> Node | None:
        """The node computing ``name`` when it is one of ``op_types`` and not folded."""
        n = self.producer.get(name)
        ok = n is not None and n.op_type in op_types and n.index not in self.lo.facts.folded
        return n if ok else None

    def sole_reader(self, name: str, *op_types: str) -> Node | None:
        """The one node reading ``name`` when it is one of ``op_types``."""
        readers = self.readers.get(name, [])
        if len(readers) != 1 or readers[0].op_type not in op_types:
            return None
        return readers[0]

    def scalar(self, name: str, like: str) -> float | None:
        """A numeric constant of one element that broadcasts without changing ``like``'s
        shape."""
        value = self.lo.const(name)
        if value is None or value.size != 1 or value.dtype.kind not in "fiu":
            return None
        shape = self.lo.shape(like)
        if value.ndim > (0 if shape is None else len(shape)):
            return None
        return float(value.reshape(()))

    def scaling(self, n: Node | None, factor: float) -> str | None:
        """The value ``v`` when ``n`` computes ``v·factor`` (Mul either way round, or Div by
        ``1/factor``)."""
        if n is None or n.index in self.lo.facts.folded:
            return None
        a, b = n.input(0), n.input(1)
        if n.op_type == "Div":
            c = self.scalar(b, a)
            return a if c is not None and c != 0 and _near(1 / c, factor) else None
        if n.op_type != "Mul":
            return None
        for v, c in ((a, b), (b, a)):
            k = self.scalar(c, v)
            if k is not None and self.lo.const(v) is None and _near(k, factor):
                return v
        return None

    def closed(self, nodes: list[Node], last: Node) -> bool:
        """Nothing outside ``nodes`` reads a value they compute, except ``last``'s output."""
        inside = {n.index for n in nodes}
        for n in nodes:
            if n is last:
                continue
            for name in n.outputs:
                if name in self.escaping:
                    return False
                if any(r.index not in inside for r in self.readers.get(name, [])):
                    return False
        return True


def _read_by_subgraphs(proto: onnx.NodeProto) -> set[str]:
    """The names the subgraphs of a node (If, Loop, Scan) read, at any depth."""
    names: set[str] = set()
    for attr in proto.attribute:
        for graph in (attr.g, *attr.graphs) if attr.HasField("g") else attr.graphs:
            for sub in graph.node:
                names.update(sub.input)
                names |= _read_by_subgraphs(sub)
    return names


def _near(value: float, expected: float) -> bool:
    return abs(value - expected) <= TOLERANCE


def _operands(n: Node) -> list[str]:
    return sorted(n.inputs[:2])


def _half_product(uses: Uses, a: str, x: str) -> list[Node] | None:
    """The nodes computing ``½·x·a`` from ``a`` (the last one last), in any of the three ways
    to multiply three factors."""
    first = uses.sole_reader(a, "Mul", "Div")
    if first is None:
        return None
    if uses.scaling(first, 0.5) == a:  # (½·a)·x
        last = uses.sole_reader(first.outputs[0], "Mul")
        ok = last is not None and _operands(last) == sorted([first.outputs[0], x])
        return [first, last] if ok else None
    if first.op_type != "Mul":
        return None
    if _operands(first) == sorted([a, x]):  # (x·a)·½
        last = uses.sole_reader(first.outputs[0], "Mul", "Div")
        ok = last is not None and uses.scaling(last, 0.5) == first.outputs[0]
        return [first, last] if ok else None
    other = first.input(1) if first.input(0) == a else first.input(0)
    half = uses.made_by(other, "Mul", "Div")  # (½·x)·a
    return [half, first] if uses.scaling(half, 0.5) == x else None


def _gelu_tail(
    uses: Uses, x: str, head: list[Node], function: Node, approximate: bool
) -> Fusion | None:
    """The rest of a GELU chain after ``erf``/``tanh`` (``function``): ``+1``, then ``·½·x``."""
    add = uses.sole_reader(function.outputs[0], "Add")
    if add is None:
        return None
    one = add.input(1) if add.input(0) == function.outputs[0] else add.input(0)
    k = uses.scalar(one, x)
    product = _half_product(uses, add.outputs[0], x) if k is not None and _near(k, 1) else None
    if product is None or uses.lo.dtype(x) != "FLOAT32":
        return None
    nodes = [*head, function, add, *product]
    if not uses.closed(nodes, product[-1]):
        return None
    gelu = options("GeluOptions", approximate=approximate)
    return Fusion("GELU", x, gelu, frozenset(n.index for n in nodes), product[-1].index)


def _erf_gelu(uses: Uses, erf: Node) -> Fusion | None:
    scaled = uses.made_by(erf.input(0), "Mul", "Div")
    x = uses.scaling(scaled, 1 / math.sqrt(2))
    if scaled is None or x is None:
        return None
    return _gelu_tail(uses, x, [scaled], erf, approximate=False)


def _cube(uses: Uses, name: str, x: str) -> list[Node] | None:
    """The nodes computing ``name = x³``: ``Pow(x, 3)`` or ``x·(x·x)`` either way round."""
    power = uses.made_by(name, "Pow")
    if power is not None:
        k = uses.scalar(power.input(1), x)
        return [power] if power.input(0) == x and k is not None and _near(k, 3) else None
    outer = uses.made_by(name, "Mul")
    if outer is None or x not in outer.inputs[:2]:
        return None
    square = uses.made_by(outer.input(1) if outer.input(0) == x else outer.input(0), "Mul")
    if square is None or square.inputs[:2] != [x, x]:
        return None
    return [square, outer]


def _tanh_gelu(uses: Uses, tanh: Node) -> Fusion | None:
    scaled = uses.made_by(tanh.input(0), "Mul", "Div")
    inner = uses.scaling(scaled, math.sqrt(2 / math.pi))
    total = uses.made_by(inner, "Add") if inner is not None else None
    if scaled is None or total is None:
        return None
    for x, term in (total.inputs[:2], total.inputs[1::-1]):
        product = uses.made_by(term, "Mul", "Div")
        cube = uses.scaling(product, KAPPA)
        powers = _cube(uses, cube, x) if cube is not None else None
        if product is not None and powers is not None:
            head = [*powers, product, total, scaled]
            return _gelu_tail(uses, x, head, tanh, approximate=True)
    return None


def _hard_swish(uses: Uses, hard_sigmoid: Node) -> Fusion | None:
    alpha, beta = hard_sigmoid.attr("alpha", 0.2), hard_sigmoid.attr("beta", 0.5)
    x, h = hard_sigmoid.input(0), hard_sigmoid.outputs[0]
    mul = uses.sole_reader(h, "Mul")
    if not (_near(alpha, 1 / 6) and _near(beta, 0.5)) or mul is None:
        return None
    if _operands(mul) != sorted([x, h]) or uses.lo.dtype(x) != "FLOAT32":
        return None
    if not uses.closed([hard_sigmoid, mul], mul):
        return None
    return Fusion("HARD_SWISH", x, None, frozenset({hard_sigmoid.index, mul.index}), mul.index)


def _shifted_by_three(uses: Uses, name: str) -> tuple[Node, str] | None:
    """(the Add, ``x``) when ``name`` is ``x + 3``."""
    add = uses.made_by(name, "Add")
    if add is None:
        return None
    for x, k in (add.inputs[:2], add.inputs[1::-1]):
        three = uses.scalar(k, x)
        if three is not None and uses.lo.const(x) is None and _near(three, 3):
            return add, x
    return None


def _spelled_hard_swish(uses: Uses, clip: Node) -> Fusion | None:
    low, high = (clip_bound(uses.lo, clip, k, attr) for k, attr in ((1, "min"), (2, "max")))
    shifted = _shifted_by_three(uses, clip.input(0))
    bounds = [b if isinstance(b, float) else None for b in (low, high)]
    if shifted is None or None in bounds or not (_near(bounds[0], 0) and _near(bounds[1], 6)):
        return None
    add, x = shifted
    c = clip.outputs[0]
    first = uses.sole_reader(c, "Mul", "Div")
    if first is None:
        return None
    if uses.scaling(first, 1 / 6) == c:  # x·(clip/6)
        last = uses.sole_reader(first.outputs[0], "Mul")
        ok = last is not None and _operands(last) == sorted([x, first.outputs[0]])
    else:  # (x·clip)/6
        last = uses.sole_reader(first.outputs[0], "Mul", "Div")
        ok = _operands(first) == sorted([x, c]) and last is not None
        ok = ok and uses.scaling(last, 1 / 6) == first.outputs[0]
    nodes = [add, clip, first, last]
    if not ok or uses.lo.dtype(x) != "FLOAT32" or not uses.closed(nodes, last):
        return None
    return Fusion("HARD_SWISH", x, None, frozenset(n.index for n in nodes), last.index)


MATCHERS = {
    "Erf": _erf_gelu,
    "Tanh": _tanh_gelu,
    "HardSigmoid": _hard_swish,
    "Clip": _spelled_hard_swish,
}
_FOUND: weakref.WeakKeyDictionary[Lowering, dict[int, Fusion]] = weakref.WeakKeyDictionary()
_USES: weakref.WeakKeyDictionary[Lowering, Uses] = weakref.WeakKeyDictionary()


def uses_of(lo: Lowering) -> Uses:
    """The producers and readers of this import's values (computed once)."""
    found = _USES.get(lo)
    if found is None:
        found = _USES[lo] = Uses(lo)
    return found


def _fusions(lo: Lowering) -> dict[int, Fusion]:
    """Every matched chain of this import, by the index of each of its nodes."""
    found = _FOUND.get(lo)
    if found is not None:
        return found
    found = {}
    uses = uses_of(lo)
    for n in lo.nodes:
        match = MATCHERS.get(n.op_type)
        if match is None or n.index in lo.facts.folded or n.index in found:
            continue
        fusion = match(uses, n)
        if fusion is not None and not fusion.nodes & found.keys():
            found.update(dict.fromkeys(fusion.nodes, fusion))
    _FOUND[lo] = found
    return found


def claim(node: Node, lo: Lowering) -> bool:
    """True when ``node`` belongs to a matched chain (then it is lowered here: the last node
    emits the fused operator, the others nothing)."""
    fusion = _fusions(lo).get(node.index)
    if fusion is None:
        return False
    if node.index == fusion.last:
        y = lo.emit(fusion.opcode, [lo.value(fusion.x)], fusion.options, dtype="FLOAT32")
        lo.operators[-1].origin = fusion.nodes
        lo.bind(node.outputs[0], y)
    return True
