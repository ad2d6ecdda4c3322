"""Reductions (onnx-import.md §6.1): ReduceMean/Sum/Max/Min/Prod → MEAN, SUM, REDUCE_MAX/MIN/PROD;
ReduceL2, ReduceSumSquare and ReduceLogSumExp as decompositions.

Axes come from the attribute, or from a constant input (ReduceSum from 13, the others from
18); no axes means all of them, or nothing at all with ``noop_with_empty_axes``.
"""

from __future__ import annotations

from ....ir import Tensor
from ..lowering import Lowering, converter
from ..node import Node
from .common import options
from .shape_building import axes_operand, int32, normalized_axes, squeeze
from .shape_values import Entry, dims_of, product, shape_value, value_rule

REDUCERS = {"ReduceMean": "MEAN", "ReduceSum": "SUM", "ReduceMax": "REDUCE_MAX",
            "ReduceMin": "REDUCE_MIN", "ReduceProd": "REDUCE_PROD"}  # fmt: skip
AXES_INPUT_SINCE = {"ReduceSum": 13}  # the others: 18


def _axes(node: Node, lo: Lowering) -> list[int] | None:
    """The reduced axes (non-negative, sorted); None when the node is an identity."""
    rank = lo.rank(node.input(0))
    given = axes_operand(node, lo, AXES_INPUT_SINCE.get(node.op_type, 18))
    if not given:
        return None if node.attr("noop_with_empty_axes", 0) else list(range(rank))
    return sorted(set(normalized_axes(given, rank)))


def reduced(lo: Lowering, opcode: str, x: Tensor, axes: list[int], keep: bool) -> Tensor:
    """``opcode`` over ``axes`` of ``x``."""
    return lo.emit(
        opcode, [x, int32(lo, axes, "axes")], options("ReducerOptions", keepDims=keep),
        dtype=x.dtype,
    )  # fmt: skip


def _square(lo: Lowering, x: Tensor) -> Tensor:
    return lo.emit("MUL", [x, x], "MulOptions", dtype=x.dtype)


def _reduce(node: Node, lo: Lowering, lower) -> None:
    """Bind the node's output to ``lower(x, axes, keep)``, or to ``x`` for an identity."""
    x = lo.value(node.input(0))
    axes = _axes(node, lo)
    if axes is None:
        lo.bind(node.outputs[0], x)
        return
    lo.bind(node.outputs[0], lower(x, axes, bool(node.attr("keepdims", 1))))


@converter(*REDUCERS)
def reduce_(node: Node, lo: Lowering) -> None:
    opcode = REDUCERS[node.op_type]
    _reduce(node, lo, lambda x, axes, keep: reduced(lo, opcode, x, axes, keep))


@converter("ReduceSumSquare")
def reduce_sum_square(node: Node, lo: Lowering) -> None:
    """SUM(x·x)."""
    _reduce(node, lo, lambda x, axes, keep: reduced(lo, "SUM", _square(lo, x), axes, keep))


@converter("ReduceL2")
def reduce_l2(node: Node, lo: Lowering) -> None:
    """SQRT(SUM(x·x))."""

    def lower(x: Tensor, axes: list[int], keep: bool) -> Tensor:
        total = reduced(lo, "SUM", _square(lo, x), axes, keep)
        return lo.emit("SQRT", [total], dtype=x.dtype)

    _reduce(node, lo, lower)


@converter("ReduceLogSumExp")
def reduce_log_sum_exp(node: Node, lo: Lowering) -> None:
    """``m + log Σ exp(x − m)`` with ``m`` the maximum over the axes."""
    x_name = node.input(0)

    def lower(x: Tensor, axes: list[int], keep: bool) -> Tensor:
        top = reduced(lo, "REDUCE_MAX", x, axes, True)
        shifted = lo.emit("SUB", [x, top], "SubOptions", dtype=x.dtype)
        exp = lo.emit("EXP", [shifted], "ExpOptions", dtype=x.dtype)
        log = lo.emit("LOG", [reduced(lo, "SUM", exp, axes, True)], dtype=x.dtype)
        y = lo.emit("ADD", [log, top], "AddOptions", dtype=x.dtype)
        if keep:
            return y
        dims = dims_of(lo, x_name)
        return squeeze(lo, y, axes, [d for i, d in enumerate(dims) if i not in axes])  # type: ignore[arg-type]

    _reduce(node, lo, lower)


@value_rule("ReduceProd")
def _product_elements(lo: Lowering, node: Node) -> list[Entry] | None:
    """The product of a whole shape value."""
    values = shape_value(lo, node.input(0))
    axes = _axes(node, lo) if values is not None else None
    return None if values is None or axes != [0] else [product(values)]
