"""Shape-value inference (resize.md §4): small integer tensors computed from shapes.

When every operand of a shape-arithmetic operator has a known value (a constant, the value
of SHAPE of a fully known tensor, or an earlier result), the interpreter's kernel computes
the result during inference, so that e.g. ``SHAPE -> STRIDED_SLICE -> PACK -> RESHAPE`` gives
RESHAPE a known target. The graph itself is not rewritten.
"""

from __future__ import annotations

import numpy as np

from ..interp import InterpreterError, RunContext, evaluate, load_kernels
from ..ir import Model, Operator, numpy_dtype
from .context import RuleContext

EVALUATED = frozenset(
    {
        "STRIDED_SLICE", "SLICE", "GATHER", "PACK", "CONCATENATION", "RESHAPE", "SQUEEZE",
        "EXPAND_DIMS", "CAST", "ADD", "SUB", "MUL", "FLOOR_DIV", "MAXIMUM", "MINIMUM",
        "REDUCE_PROD",
    }
)  # fmt: skip

# Values larger than this (elements) are not shape values and are left to the runtime.
MAX_ELEMENTS = 256

_INTEGER_TYPES = ("INT32", "INT64")


class ValueEvaluator:
    """Computes known values of operator results for one model."""

    def __init__(self, model: Model) -> None:
        load_kernels()
        self._run_context = RunContext(model)

    def evaluate(self, op: Operator, ctx: RuleContext) -> np.ndarray | None:
        """The value of ``op``'s single output when it is a small integer tensor whose operands
        are all known; None otherwise (including when the interpreter has no kernel)."""
        if len(op.outputs) != 1:
            return None
        out = op.outputs[0]
        if out.dtype not in _INTEGER_TYPES or not out.is_static:
            return None
        if int(np.prod(out.shape)) > MAX_ELEMENTS:
            return None
        dtype = numpy_dtype(out.dtype)
        if op.opcode == "SHAPE":
            dims = ctx.shape(0)
            return None if None in dims else _frozen(np.array(dims, dtype=dtype))
        if op.opcode not in EVALUATED:
            return None
        args = [ctx.value(i) for i in range(ctx.num_inputs)]
        for t, arg in zip(op.inputs, args, strict=True):
            if t is not None and (arg is None or arg.size > MAX_ELEMENTS):
                return None
        try:
            (value,) = evaluate(op, args, self._run_context)
        except InterpreterError:
            return None  # no kernel, or operands it refuses: the value stays unknown
        value = value.astype(dtype, copy=False)
        return _frozen(value) if value.shape == out.shape else None


def _frozen(value: np.ndarray) -> np.ndarray:
    value.flags.writeable = False
    return value
