"""The pushable operators of the layout pass (onnx-import.md §5.4): how an operator reading
``t = TRANSPOSE(x, p)`` is rewritten to read ``x``.

A planner returns a :class:`Plan` (the operand positions that carry the layout, the remapped
constant operands and options, each output's permutation ``p'`` with ``f(t) =
transpose(f'(x), p')``) or None for a layout barrier. Beyond the §5.4 table: SQUEEZE and
EXPAND_DIMS count as unit-axis reshapes (f' is a RESHAPE), and REVERSE_V2 is a barrier when its
remapped axes are not contiguous (LiteRT reverses contiguous axes only).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...ir import Operator, Tensor
from ...ir.schema import new_options
from ...passes.toolkit import const_value, with_options
from .layout_edit import Perm, inverse

# (operator, the transposed tensor, p) -> plan or None
Planner = Callable[[Operator, Tensor, Perm], "Plan | None"]
PLANNERS: dict[str, Planner] = {}


@dataclass
class Plan:
    """How to rewrite one consumer of a sunk TRANSPOSE."""

    layout: tuple[int, ...]
    out_perms: list[Perm]
    options: Any
    opcode: str
    params: dict[int, np.ndarray] = field(default_factory=dict)
    strict: bool = False  # a reshape: sink only when the cost falls (rule 3 owns equal cost)


# operators whose planner reads their options
WITH_OPTIONS = frozenset({"CONCATENATION", "GATHER", "STRIDED_SLICE", "FULLY_CONNECTED"})


def plan(op: Operator, t: Tensor, p: Perm) -> Plan | None:
    """The plan for ``op`` reading ``t = TRANSPOSE(x, p)``, None at a layout barrier."""
    planner = PLANNERS.get(op.opcode)
    if planner is None or (op.options is None and op.opcode in WITH_OPTIONS):
        return None
    found = planner(op, t, p)
    if found is None or any(w is t for i, w in enumerate(op.inputs) if i not in found.layout):
        return None
    return found


def _planner(*opcodes: str) -> Callable[[Planner], Planner]:
    def add(fn: Planner) -> Planner:
        PLANNERS.update(dict.fromkeys(opcodes, fn))
        return fn

    return add


def _same(op: Operator, layout: tuple[int, ...], p: Perm, outputs: int = 1) -> Plan:
    return Plan(layout, [p] * outputs, op.options, op.opcode)


def _ints(t: Tensor | None) -> np.ndarray | None:
    """A constant integer operand."""
    value = const_value(t)
    return value if value is not None and value.dtype.kind in "iu" else None


def _axes(t: Tensor | None, r: int) -> list[int] | None:
    value = _ints(t)
    if value is None or any(not -r <= a < r for a in value.reshape(-1)):
        return None
    return [int(a) % r for a in value.reshape(-1)]


def _remapped_axes(t: Tensor, axes: list[int], p: Perm) -> np.ndarray:
    """The axes operand ``t`` with each axis ``a`` of the transposed value now ``p[a]``."""
    return np.asarray([p[a] for a in axes], _ints(t).dtype).reshape(_ints(t).shape)


@_planner(
    "RELU", "RELU6", "RELU_N1_TO_1", "LEAKY_RELU", "ELU", "LOGISTIC", "TANH", "GELU",
    "HARD_SWISH", "ABS", "NEG", "EXP", "LOG", "SQRT", "RSQRT", "SQUARE", "FLOOR", "CEIL",
    "ROUND", "SIN", "COS", "CAST", "LOGICAL_NOT",
)  # fmt: skip
def _unary(op: Operator, t: Tensor, p: Perm) -> Plan | None:
    return _same(op, (0,), p)


@_planner(
    "ADD", "SUB", "MUL", "DIV", "POW", "MAXIMUM", "MINIMUM", "SQUARED_DIFFERENCE", "FLOOR_MOD",
    "FLOOR_DIV", "LESS", "LESS_EQUAL", "GREATER", "GREATER_EQUAL", "EQUAL", "NOT_EQUAL",
    "LOGICAL_AND", "LOGICAL_OR", "SELECT_V2", "PRELU",
)  # fmt: skip
def _broadcasting(op: Operator, t: Tensor, p: Perm) -> Plan | None:
    """Every operand carries the layout: a non-constant one must have the full rank."""
    r = len(p)
    if len(op.outputs[0].shape) != r:
        return None
    for w in op.inputs:
        if w is None or len(w.shape) > r or (const_value(w) is None and len(w.shape) != r):
            return None
    return _same(op, tuple(range(len(op.inputs))), p)


def _reduced_perm(p: Perm, reduced: set[int]) -> Perm:
    """The output permutation of a reduction without keep_dims: ``p`` on the kept axes."""
    kept = [i for i in range(len(p)) if i not in reduced]
    kept_x = sorted(p[i] for i in kept)
    return tuple(kept_x.index(p[i]) for i in kept)


@_planner("MEAN", "SUM", "REDUCE_MAX", "REDUCE_MIN", "REDUCE_PROD", "ARG_MAX", "ARG_MIN")
def _reduction(op: Operator, t: Tensor, p: Perm) -> Plan | None:
    axes = _axes(op.inputs[1], len(p))
    if axes is None:
        return None
    keep = bool(getattr(op.options, "keepDims", False))
    out = p if keep else _reduced_perm(p, set(axes))
    params = {1: _remapped_axes(op.inputs[1], axes, p)}
    return Plan((0,), [out], op.options, op.opcode, params)


@_planner("CONCATENATION")
def _concatenation(op: Operator, t: Tensor, p: Perm) -> Plan | None:
    r = len(p)
    if any(len(w.shape) != r for w in op.inputs) or not -r <= op.options.axis < r:
        return None
    options = with_options(op.options, axis=p[op.options.axis % r])
    return Plan(tuple(range(len(op.inputs))), [p], options, op.opcode)


# operator -> (position of the data, position of the axis operand)
AXIS_OPERAND = {"SPLIT": (1, 0), "SPLIT_V": (0, 2), "CUMSUM": (0, 1), "REVERSE_V2": (0, 1)}


@_planner(*AXIS_OPERAND)
def _axis_operand(op: Operator, t: Tensor, p: Perm) -> Plan | None:
    data, position = AXIS_OPERAND[op.opcode]
    axes = _axes(op.inputs[position], len(p))
    if axes is None or op.inputs[data] is not t:
        return None
    params = {position: _remapped_axes(op.inputs[position], axes, p)}
    moved = sorted(p[a] for a in axes)
    if op.opcode == "REVERSE_V2" and moved != list(range(moved[0], moved[0] + len(moved))):
        return None  # LiteRT reverses contiguous axes only
    return Plan((data,), [p] * len(op.outputs), op.options, op.opcode, params)


@_planner("GATHER")
def _gather(op: Operator, t: Tensor, p: Perm) -> Plan | None:
    """The indices' axes replace axis ``a`` of the output: they sit at ``p[a]`` of f'."""
    r, k = len(p), len(op.inputs[1].shape)
    a = op.options.axis
    if op.options.batchDims or not -r <= a < r:
        return None
    a %= r

    def position(m: int) -> int:  # where x's axis m lands in the output of f'
        return m if m < p[a] else m + k - 1

    out = (
        [position(p[i]) for i in range(a)]
        + [p[a] + j for j in range(k)]
        + [position(p[i]) for i in range(a + 1, r)]
    )
    return Plan((0,), [tuple(out)], with_options(op.options, axis=p[a]), op.opcode)


# operator -> the operand positions holding one entry (or row) per axis
PER_AXIS = {
    "PAD": (1,), "PADV2": (1,), "MIRROR_PAD": (1,), "SLICE": (1, 2), "STRIDED_SLICE": (1, 2, 3),
    "TILE": (1,), "BROADCAST_TO": (1,),
}  # fmt: skip


@_planner(*PER_AXIS)
def _per_axis(op: Operator, t: Tensor, p: Perm) -> Plan | None:
    r, q = len(p), list(inverse(p))
    params = {}
    for position in PER_AXIS[op.opcode]:
        value = _ints(op.inputs[position])
        if value is None or value.ndim == 0 or value.shape[0] != r:
            return None
        params[position] = value[q]
    options = op.options
    if op.opcode == "STRIDED_SLICE":
        options = _strided_slice_options(options, p)
        if options is None:
            return None
    return Plan((0,), [p], options, op.opcode, params)


def _strided_slice_options(options: Any, p: Perm) -> Any:
    """Begin and end mask bits moved with their axes; None with the masks that add or
    remove axes."""
    if options.ellipsisMask or options.newAxisMask or options.shrinkAxisMask or options.offset:
        return None

    def moved(mask: int) -> int:
        return sum(1 << p[i] for i in range(len(p)) if mask >> i & 1)

    return with_options(options, beginMask=moved(options.beginMask), endMask=moved(options.endMask))


@_planner("SOFTMAX", "LOG_SOFTMAX", "TOPK_V2", "L2_NORMALIZATION", "FULLY_CONNECTED")
def _last_axis(op: Operator, t: Tensor, p: Perm) -> Plan | None:
    r = len(p)
    if p[r - 1] != r - 1 or op.inputs[0] is not t:
        return None
    if op.opcode == "FULLY_CONNECTED" and not op.options.keepNumDims:
        return None
    return _same(op, (0,), p, len(op.outputs))


@_planner("RESHAPE", "SQUEEZE", "EXPAND_DIMS")
def _unit_axis_reshape(op: Operator, t: Tensor, p: Perm) -> Plan | None:
    """A reshape that adds or removes only axes of size 1: f' is a RESHAPE of ``x`` whose
    non-unit axes keep ``x``'s order; ``p'`` puts them where the original output has them."""
    s, o = t.shape, op.outputs[0].shape
    in_axes = [i for i, d in enumerate(s) if d != 1]
    out_axes = [j for j, d in enumerate(o) if d != 1]
    if op.inputs[0] is not t or [s[i] for i in in_axes] != [o[j] for j in out_axes]:
        return None
    if sum(d is None for d in o) > 1:
        return None
    order = sorted(range(len(in_axes)), key=lambda m: p[in_axes[m]])  # x order of the axes
    new_shape = list(o)
    for position, m in zip(out_axes, order, strict=True):
        new_shape[position] = s[in_axes[m]]
    out = list(range(len(o)))
    for m, j in enumerate(out_axes):
        out[j] = out_axes[order.index(m)]
    target = np.asarray([-1 if d is None else d for d in new_shape], np.int32)
    options = new_options("ReshapeOptions", newShape=[int(d) for d in target])
    return Plan((0,), [tuple(out)], options, "RESHAPE", {1: target}, strict=True)
