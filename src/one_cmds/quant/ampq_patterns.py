"""``ampq_algorithm=pattern`` (reference circle-mpqsolver ``src/pattern``): subgraphs whose
inner operators need int16 in an otherwise uint8 model.

* ``u8_layernorm_with_s16_variance``, a decomposed layer (or instance) normalization: the
  variance part, ``square`` (``SquaredDifference(x, μ)``, ``Mul(d, d)`` or ``Square(d)`` with
  ``d = Sub(x, μ)``), its ``Mean``, ``Add(·, eps)`` and ``Rsqrt`` (or ``Sqrt``) in int16; ``μ =
  Mean(x)``, ``d`` and the operators applying the root (``Mul``/``Div``) in uint8.
* ``u8_softmax_with_s16_sub_exp``, a decomposed softmax ``Div(e, Sum(e))`` with ``e =
  Exp(Sub(x, ReduceMax(x)))``, both reductions over the last axis with keep_dims: ``Sub`` and
  ``Exp`` in int16; the producer of x, ``ReduceMax``, ``Sum`` and ``Div`` in uint8.

Reference differences (**Adopted**): the reference's layer norm ends in ``Mul(Sub(x, μ),
Rsqrt(...))`` and squares with ``Mul(d, d)`` only; here every form the TFLite converter
and the ONNX importer write is taken (``SquaredDifference``, ``Square``, ``Sqrt`` under a
``Div``, the batch-norm form ``x·s + (β − μ·s)``), both means need the same constant axes
(negative ones normalized), and an operator that one pattern wants in int16 and another in
uint8 is an error, as in the reference.
"""

from __future__ import annotations

from ..ir import Model, Operator, Tensor
from ..passes.toolkit import GraphEditor, const_value, scalar_value
from ..passes.toolkit.match import keep_dims, operand_orders, reduction_axes
from .errors import QuantizeError

INT16, UINT8 = "int16", "uint8"
LAYERNORM = "u8_layernorm_with_s16_variance"
SOFTMAX = "u8_softmax_with_s16_sub_exp"


def resolve(model: Model, patterns: list[str]) -> list[Operator]:
    """The operators of the main graph the ``patterns`` put in int16, in graph order."""
    g = GraphEditor(model, 0)
    chosen: dict[int, tuple[Operator, str]] = {}
    for pattern in patterns:
        matcher = layernorm if pattern == LAYERNORM else _softmax
        for op in list(g.graph.operators):
            found = matcher(g, op)
            if found is None:
                continue
            for dtype, members in zip((INT16, UINT8), found, strict=True):
                for member in members:
                    _choose(chosen, member, dtype)
    order = {id(op): i for i, op in enumerate(g.graph.operators)}
    int16 = [op for op, dtype in chosen.values() if dtype == INT16]
    return sorted(int16, key=lambda op: order[id(op)])


def _choose(chosen: dict[int, tuple[Operator, str]], op: Operator, dtype: str) -> None:
    before = chosen.setdefault(id(op), (op, dtype))[1]
    if before != dtype:
        raise QuantizeError(
            f"ampq: the patterns contradict each other on {op.kind} '{op.outputs[0].name}' "
            f"({before} and {dtype})"
        )


Found = tuple[list[Operator], list[Operator]]  # (int16 operators, uint8 operators)


def layernorm(g: GraphEditor, root: Operator) -> Found | None:
    """The layer norm whose ``Rsqrt``/``Sqrt`` is ``root``."""
    if root.opcode not in ("RSQRT", "SQRT"):
        return None
    add = g.producer_of(root.inputs[0], "ADD")
    for v, eps in operand_orders(add) if add is not None else ():
        if eps.dtype == "FLOAT32" and scalar_value(eps) is not None and const_value(v) is None:
            variance = _variance(g, v)
            if variance is None:
                continue
            square_ops, uint8 = variance
            users = [op for op in g.consumers(root.outputs[0]) if op.opcode in ("MUL", "DIV")]
            if users:
                return [*square_ops, add, root], [*uint8, *users]
    return None


def _variance(g: GraphEditor, t: Tensor) -> tuple[list[Operator], list[Operator]] | None:
    """``Mean(square(x − μ))``, μ = Mean(x) over the same axes: ([square, mean], [μ's Mean,
    the Subs of μ from x])."""
    var = g.producer_of(t, "MEAN")
    square = g.producer_of(var.inputs[0], "SQUARED_DIFFERENCE", "MUL", "SQUARE") if var else None
    if var is None or square is None:
        return None
    if square.opcode == "SQUARED_DIFFERENCE":
        pairs = operand_orders(square)
        sub = None
    else:
        operands = square.inputs if square.opcode == "MUL" else [square.inputs[0]] * 2
        sub = g.producer_of(operands[0], "SUB")
        if operands[0] is not operands[1] or sub is None:
            return None
        pairs = ((sub.inputs[0], sub.inputs[1]),)
    for x, m in pairs:
        mean = g.producer_of(m, "MEAN")
        if mean is not None and mean.inputs[0] is x and _same_axes(mean, var, x):
            subs = [op for op in g.consumers(m) if op.opcode == "SUB" and op.inputs[0] is x]
            return [square, var], [mean, *subs] if sub is None else [mean, sub]
    return None


def _same_axes(a: Operator, b: Operator, x: Tensor) -> bool:
    rank = len(x.shape)
    axes = reduction_axes(a.inputs[1], rank)
    return axes is not None and axes == reduction_axes(b.inputs[1], rank)


def _softmax(g: GraphEditor, div: Operator) -> Found | None:
    """The softmax ending in ``div``."""
    if div.opcode != "DIV":
        return None
    exp = g.producer_of(div.inputs[0], "EXP")
    total = g.producer_of(div.inputs[1], "SUM")
    if exp is None or total is None or total.inputs[0] is not exp.outputs[0]:
        return None
    sub = g.producer_of(exp.inputs[0], "SUB")
    peak = g.producer_of(sub.inputs[1], "REDUCE_MAX") if sub is not None else None
    if sub is None or peak is None or peak.inputs[0] is not sub.inputs[0]:
        return None
    x = sub.inputs[0]
    if not all(keep_dims(op) and _last_axis(op, x) for op in (peak, total)):
        return None
    producer = g.producer(x)
    return [sub, exp], [*([producer] if producer is not None else []), peak, total, div]


def _last_axis(op: Operator, x: Tensor) -> bool:
    """Whether ``op`` reduces over exactly the last axis of ``x``."""
    rank = max(len(x.shape), 1)
    return reduction_axes(op.inputs[1], rank) == frozenset({rank - 1})
