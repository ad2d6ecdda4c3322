"""Matching helpers shared by the fusion and transform passes (instance norm, PRelu, Gelu,
Mean fusions, Relu6 transforms, Reshape forwarding): operand orders of commutative operators,
plain operators, constant reduction axes, the halving Mul and the custom Erf."""

from __future__ import annotations

from collections.abc import Iterator

from ...ir import Operator, Tensor
from .editor import GraphEditor
from .values import NONE, activation, const_value, is_const_scalar


def operand_orders(op: Operator) -> tuple[tuple[Tensor, Tensor], ...]:
    """Both orders of the two operands of a commutative binary operator."""
    a, b = op.inputs[0], op.inputs[1]
    return ((a, b), (b, a))  # type: ignore[return-value]


def producers(
    g: GraphEditor, op: Operator, first: str, second: str
) -> Iterator[tuple[Operator, Operator]]:
    """For a commutative binary ``op``: each (producer of one operand with opcode ``first``,
    producer of the other with opcode ``second``), both orders tried."""
    for a, b in operand_orders(op):
        pa, pb = g.producer_of(a, first), g.producer_of(b, second)
        if pa is not None and pb is not None:
            yield pa, pb


def plain(*ops: Operator | None) -> bool:
    """Whether every operator is present and has no fused activation."""
    return all(op is not None and activation(op) == NONE for op in ops)


def reduction_axes(t: Tensor | None, rank: int) -> frozenset[int] | None:
    """The axes of a constant INT32 axes operand, made non-negative for ``rank``; None when
    the operand is not such a constant or an axis is out of range."""
    value = const_value(t)
    if value is None or t is None or t.dtype != "INT32" or value.ndim > 1:
        return None
    axes = [int(a) for a in value.reshape(-1)]
    if any(not -rank <= a < rank for a in axes):
        return None
    return frozenset(a % rank for a in axes)


def keep_dims(op: Operator) -> bool:
    return bool(getattr(op.options, "keepDims", False))


def halved_products(g: GraphEditor, mul_half: Operator) -> Iterator[Operator]:
    """For ``mul_half = Mul(product, 0.5)`` (either operand order; 0.5 a one-element FLOAT32
    constant): each Mul producing ``product``, when it and ``mul_half`` are :func:`plain`."""
    for product, half in operand_orders(mul_half):
        mul = g.producer_of(product, "MUL")
        if is_const_scalar(half, 0.5) and plain(mul, mul_half):
            yield mul  # type: ignore[misc]


def single_erf(g: GraphEditor, t: Tensor | None) -> Operator | None:
    """The custom ``Erf`` operator with one input and one output producing ``t``; None when
    ``t`` comes from anything else."""
    erf = g.producer_of(t, "CUSTOM(Erf)")
    if erf is None or len(erf.inputs) != 1 or len(erf.outputs) != 1:
        return None
    return erf
