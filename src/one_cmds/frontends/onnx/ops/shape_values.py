"""Shape values (onnx-import.md §8.1). A small integer value computed from shapes is followed
element by element (:func:`shape_value`): an element is an ``int``, a :class:`Sym` (a product
of unknown dims times a constant; equal ``dim_param`` names are equal dims) or None (nothing
known). No constant is ever derived from an unknown dim. Each family module registers the
rules of its own operators with :func:`value_rule`; the rules of Shape, Size, Cast, Identity,
Squeeze, Unsqueeze and integer arithmetic are here.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..errors import Unsupported
from ..lowering import Lowering
from ..node import Node


@dataclass(frozen=True)
class Sym:
    """An unknown size: ``coef`` times the product of the unknown dims ``names`` (sorted,
    repeated for powers)."""

    coef: int
    names: tuple[str, ...]


Dim = int | Sym
Entry = Dim | None  # None: nothing is known of the element
Part = int | tuple[str, tuple[int, ...]]  # a size, or the product of axes of an ONNX value


def _sym(d: Dim) -> Sym:
    return d if isinstance(d, Sym) else Sym(d, ())


def _dim(coef: int, names: Sequence[str]) -> Dim:
    return Sym(coef, tuple(sorted(names))) if names else coef


def mul(a: Entry, b: Entry) -> Entry:
    if a is None or b is None:
        return None
    x, y = _sym(a), _sym(b)
    return _dim(x.coef * y.coef, x.names + y.names)


def div(a: Entry, b: Entry) -> Entry:
    """``a / b`` when it divides exactly, else None."""
    if a is None or b is None:
        return None
    x, y = _sym(a), _sym(b)
    rest = list(x.names)
    for name in y.names:
        if name not in rest:
            return None
        rest.remove(name)
    if y.coef == 0 or x.coef % y.coef:
        return None
    return _dim(x.coef // y.coef, rest)


def product(entries: Sequence[Entry]) -> Entry:
    out: Entry = 1
    for e in entries:
        out = mul(out, e)
    return out


def dims_of(lo: Lowering, name: str) -> list[Dim] | None:
    """The dims of a value: known sizes, and a :class:`Sym` per unknown one (named by its
    ``dim_param``, else by the value and axis)."""
    shape = lo.shape(name)
    if shape is None:
        return None
    params = lo.facts.params.get(name, ())
    return [
        d
        if d is not None
        else Sym(1, ((params[i] if i < len(params) else None) or f"{name}\0{i}",))
        for i, d in enumerate(shape)
    ]


def ranked_dims(lo: Lowering, name: str) -> list[Dim]:
    """:func:`dims_of` a value whose rank must be known."""
    dims = dims_of(lo, name)
    if dims is None:
        raise Unsupported(f"rank of '{name}' must be known")
    return dims


# -- shape values -------------------------------------------------------------------------------
ValueRule = Callable[[Lowering, Node], "list[Entry] | None"]
VALUE_RULES: dict[str, ValueRule] = {}
_CACHE: weakref.WeakKeyDictionary[Lowering, dict] = weakref.WeakKeyDictionary()


def value_rule(*op_types: str) -> Callable[[ValueRule], ValueRule]:
    """Register how an operator's result elements follow from its operands' elements."""

    def add(fn: ValueRule) -> ValueRule:
        for op_type in op_types:
            VALUE_RULES[op_type] = fn
        return fn

    return add


def _state(lo: Lowering) -> dict:
    state = _CACHE.get(lo)
    if state is None:
        producers = {name: n for n in lo.nodes for name in n.outputs if name}
        state = _CACHE[lo] = {"producers": producers, "values": {}}
    return state


def shape_value(lo: Lowering, name: str) -> list[Entry] | None:
    """The elements of a small integer scalar or vector (§8.1), None when not followed."""
    if not name:
        return None
    value = lo.const(name)
    if value is not None:
        small = value.dtype.kind in "iu" and value.ndim <= 1 and value.size <= 64
        return [int(v) for v in value.reshape(-1)] if small else None
    state = _state(lo)
    values = state["values"]
    if name not in values:
        values[name] = None  # a cycle guard; the graph is acyclic
        node = state["producers"].get(name)
        rule = VALUE_RULES.get(node.op_type) if node is not None else None
        try:
            values[name] = rule(lo, node) if rule is not None else None
        except Unsupported:  # an operand the rule needs is not constant
            values[name] = None
    return values[name]


@value_rule("Cast", "Identity", "Squeeze", "Unsqueeze")
def _passed(lo: Lowering, node: Node) -> list[Entry] | None:
    return shape_value(lo, node.input(0))


@value_rule("Shape")
def _shape_elements(lo: Lowering, node: Node) -> list[Entry] | None:
    dims = dims_of(lo, node.input(0))
    if dims is None:
        return None
    start, end = shape_bounds(node, len(dims))
    return list(dims[start:end])


@value_rule("Size")
def _size_elements(lo: Lowering, node: Node) -> list[Entry] | None:
    dims = dims_of(lo, node.input(0))
    return None if dims is None else [product(dims)]


def _int_div(a: Entry, b: Entry) -> Entry:
    """ONNX integer Div (truncating) of known sizes; exact division of unknown ones."""
    if isinstance(a, int) and isinstance(b, int):
        if b == 0:
            return None
        quotient = abs(a) // abs(b)
        return quotient if (a >= 0) == (b > 0) else -quotient
    return div(a, b)


def _known_only(op: Callable[[int, int], int]) -> Callable[[Entry, Entry], Entry]:
    def apply(a: Entry, b: Entry) -> Entry:
        return op(a, b) if isinstance(a, int) and isinstance(b, int) else None

    return apply


ARITHMETIC = {
    "Mul": mul,
    "Div": _int_div,
    "Add": _known_only(lambda a, b: a + b),
    "Sub": _known_only(lambda a, b: a - b),
}


@value_rule(*ARITHMETIC)
def _arithmetic(lo: Lowering, node: Node) -> list[Entry] | None:
    a, b = shape_value(lo, node.input(0)), shape_value(lo, node.input(1))
    if a is None or b is None or (len(a) != len(b) and 1 not in (len(a), len(b))):
        return None
    n = max(len(a), len(b))
    a, b = (v * n if len(v) == 1 else v for v in (a, b))
    return [ARITHMETIC[node.op_type](x, y) for x, y in zip(a, b, strict=True)]


def shape_bounds(node: Node, rank: int) -> tuple[int, int]:
    """Shape's ``start`` and ``end`` (15) made non-negative and clamped."""
    start, end = node.attr("start", 0), node.attr("end", rank)
    return tuple(max(0, min(rank, v + rank if v < 0 else v)) for v in (start, end))  # type: ignore[return-value]
