"""Shape-value inference (resize.md §4): small integer tensors computed from shapes.

When every operand of a shape-arithmetic operator has a known value (a constant, the value
of SHAPE of a fully known tensor, or an earlier result), the interpreter's kernel computes
the result during inference, so that e.g. ``SHAPE -> STRIDED_SLICE -> PACK -> RESHAPE`` gives
RESHAPE a known target. The graph itself is not rewritten.

Values known in part are followed too: SHAPE of ``[?, ?, 32]`` is ``[?, ?, 32]``, and PACK of
two unknown sizes and the constants 4 and 8 is ``[?, ?, 4, 8]``, so that RESHAPE still knows
its last two dims. Operators that only move elements run their kernel on element codes (each
operand element replaced by its index) to learn where each result element comes from;
casts, element-wise arithmetic and comparisons run on the known elements, a result element being
known where its operands are; SELECT knows an element where its condition and the chosen operand do.
Operands that say which elements to take (indices, bounds, the target shape of RESHAPE) must be
fully known.

Small float values are followed too, e.g. ``float(shape[1])`` as the limit of a float RANGE
(rotary angles over the positions); unlike an integer one, a float operand of unknown value does
not take part as a value with no element known.
"""

from __future__ import annotations

import functools

import numpy as np

from ..interp import InterpreterError, RunContext, evaluate, load_kernels
from ..interp.registry import kernel_for
from ..ir import Model, Operator, Tensor, numpy_dtype
from .context import RuleContext
from .partial import Known, PartialValue
from .registry import ShapeError

# Operators whose result elements are copies of elements of the listed operands (None: all).
MOVING: dict[str, tuple[int, ...] | None] = {
    "STRIDED_SLICE": (0,),
    "SLICE": (0,),
    "GATHER": (0,),
    "PACK": None,
    "CONCATENATION": None,
    "RESHAPE": (0,),
    "SQUEEZE": (0,),
    "EXPAND_DIMS": (0,),
    "GATHER_ND": (0,),
    "BROADCAST_TO": (0,),
}
# Operators with BOOL results whose values are followed (masks moved around are not).
COMPARISONS = frozenset(
    {"EQUAL", "NOT_EQUAL", "LESS", "LESS_EQUAL", "GREATER", "GREATER_EQUAL", "LOGICAL_AND",
     "LOGICAL_OR", "LOGICAL_NOT"}
)  # fmt: skip
# Element-wise: ``x.shape[-1] // 2`` as an integer DIV, negative indices wrapped by FLOOR_MOD.
ELEMENTWISE = frozenset(
    {"CAST", "ADD", "SUB", "MUL", "DIV", "FLOOR_DIV", "FLOOR_MOD", "MAXIMUM", "MINIMUM",
     *COMPARISONS}
)  # fmt: skip
SELECTS = frozenset({"SELECT", "SELECT_V2"})  # ``Where(Equal(shape, -1), 1, shape)``
# Evaluated when every operand is known: position ids as ``cumsum(ones) - 1``, their maximum,
# ranges over sizes.
WHOLE_ONLY = frozenset({"REDUCE_PROD", "REDUCE_MAX", "RANGE", "CUMSUM", "FILL"})
EVALUATED = frozenset({*MOVING, *ELEMENTWISE, *SELECTS, *WHOLE_ONLY})

# Values larger than this (elements) are not shape values and are left to the runtime.
MAX_ELEMENTS = 256

# Types of followed values; an operand of an integer type and unknown value still takes part
# as a value with no element known, a float one does not.
_INTEGER_TYPES = ("INT32", "INT64", "BOOL")
_VALUE_TYPES = (*_INTEGER_TYPES, "FLOAT32")


class ValueEvaluator:
    """Computes known values of operator results for one model."""

    def __init__(self, model: Model) -> None:
        load_kernels()
        self._run_context = RunContext(model)

    def evaluate(self, op: Operator, ctx: RuleContext) -> Known | None:
        """What is known of the value of ``op``'s single output when it is a small integer,
        boolean or float tensor: every element (an array), some of them (a
        :class:`PartialValue`), or nothing (None, also when the interpreter has no kernel).

        Raises :class:`ShapeError` naming the output when the kernel refuses operands it
        needs that are all known (an index out of range, a division by zero): no run of the
        model with these shapes can compute the value either.
        """
        if len(op.outputs) != 1:
            return None
        out = op.outputs[0]
        if out.dtype not in _VALUE_TYPES or not out.is_static:
            return None
        if out.dtype == "BOOL" and op.opcode not in COMPARISONS:
            return None
        if int(np.prod(out.shape)) > MAX_ELEMENTS:
            return None
        if op.opcode == "SHAPE":
            dims = ctx.shape(0)
            data = np.array([1 if d is None else d for d in dims], numpy_dtype(out.dtype))
            return _settled(out, PartialValue(data, np.array([d is not None for d in dims])))
        if op.opcode not in EVALUATED or kernel_for(op) is None:
            return None
        operands = [_operand(t, ctx.known(i)) for i, t in enumerate(op.inputs)]
        if any(t is not None and v is None for t, v in zip(op.inputs, operands, strict=True)):
            return None
        if all(not isinstance(v, PartialValue) for v in operands):
            return _settled(out, PartialValue.of(self._run(op, operands)))
        if op.opcode in ELEMENTWISE:
            return _settled(out, self._elementwise(op, [_partial(v) for v in operands]))
        if op.opcode in SELECTS:
            return _settled(out, self._selected(op, [_partial(v) for v in operands]))
        if op.opcode in MOVING:
            return _settled(out, self._moved(op, operands))
        return None

    def _run(self, op: Operator, args: list[np.ndarray | None]) -> np.ndarray:
        """The kernel's result on ``args``, in the output's dtype."""
        out = op.outputs[0]
        try:
            (value,) = evaluate(op, args, self._run_context)
        except InterpreterError as e:
            raise ShapeError(f"cannot compute the value of {out.name!r}: {e.message}") from None
        return value.astype(numpy_dtype(out.dtype), copy=False)

    def _elementwise(self, op: Operator, operands: list[PartialValue]) -> PartialValue:
        """The kernel on the known elements (1 elsewhere); known where every operand is."""
        data = self._run(op, [v.data for v in operands])
        known = functools.reduce(np.logical_and, (v.known for v in operands))
        return PartialValue(data, np.broadcast_to(known, data.shape))

    def _selected(self, op: Operator, operands: list[PartialValue]) -> PartialValue:
        """The kernel on the known elements; an element is known where the condition is and
        the operand it takes is (the kernel selecting among the operands' known flags)."""
        condition, x, y = operands
        data = self._run(op, [condition.data, x.data, y.data])
        chosen = self._run(op, [condition.data, x.known, y.known])
        known = self._run(op, [condition.known, chosen, np.zeros_like(chosen)])
        return PartialValue(data, known.astype(bool))

    def _moved(self, op: Operator, operands: list[Known | None]) -> PartialValue | None:
        """The kernel on element codes of the moved operands (the others as they are)."""
        moved = MOVING[op.opcode]
        sources: list[PartialValue] = []
        args: list[np.ndarray | None] = []
        for i, v in enumerate(operands):
            if moved is not None and i not in moved:
                if isinstance(v, PartialValue):
                    return None  # which elements to take is not known
                args.append(v)
                continue
            part = _partial(v)
            start = sum(s.data.size for s in sources)
            codes = np.arange(start, start + part.data.size).reshape(part.data.shape)
            args.append(codes.astype(part.data.dtype))
            sources.append(part)
        codes = self._run(op, args)
        data = np.concatenate([s.data.reshape(-1) for s in sources])
        known = np.concatenate([s.known.reshape(-1) for s in sources])
        return PartialValue(data[codes], known[codes])


def _operand(t: Tensor | None, known: Known | None) -> Known | None:
    """What is known of a small operand; an integer operand of unknown value but static shape
    is a value with no element known (a moved operand, or one side of arithmetic)."""
    if t is None:
        return None
    if known is None:
        if t.dtype not in _INTEGER_TYPES or not t.is_static:
            return None
        known = PartialValue.unknown(t.shape, numpy_dtype(t.dtype))
    size = known.data.size if isinstance(known, PartialValue) else np.size(known)
    return known if size <= MAX_ELEMENTS else None


def _partial(value: Known) -> PartialValue:
    return value if isinstance(value, PartialValue) else PartialValue.of(np.asarray(value))


def _settled(out: Tensor, value: PartialValue | None) -> Known | None:
    """``value`` as the output's value: an array when every element is known (an empty one
    too), None when none is (or its shape is not the output's), else the partial value;
    arrays are read-only."""
    if value is None or value.data.shape != out.shape:
        return None
    data = np.asarray(value.data, numpy_dtype(out.dtype))
    data.flags.writeable = False
    if value.known.all():
        return data
    if not value.known.any():
        return None
    known = np.array(value.known)
    known.flags.writeable = False
    return PartialValue(data, known)
