"""Constant folding through the interpreter's kernels: the one implementation of every
operator's arithmetic in the project (optimization.md §5.21)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...interp import InterpreterError, RunContext, evaluate, load_kernels
from ...ir import Operator
from .editor import GraphEditor


def constant_results(g: GraphEditor, op: Operator) -> list[np.ndarray] | None:
    """The results of ``op`` when every input it has is a constant (None when one is not,
    or when the kernel refuses the operands). Constants reach the kernel as the interpreter
    passes them: dense typed arrays, the stored values of sparse ones, the bytes of packed
    types (INT4)."""
    args = []
    for t in op.inputs:
        if t is not None and (not t.is_constant or t.is_variable):
            return None
        args.append(None if t is None else t.data)
    load_kernels()
    try:
        return evaluate(op, args, RunContext(g.model))
    except InterpreterError:
        return None


def fold(g: GraphEditor, op: Operator) -> bool:
    """Replace the results of ``op`` by constants holding their values (with the results'
    quantization parameters); whether it did."""
    results = constant_results(g, op)
    if results is None:
        return False
    for t, value in zip(op.outputs, results, strict=True):
        folded = g.const(t.name, value, t.dtype)
        folded.quant = t.quant
        g.replace(t, folded)
    return True


def fold_all(g: GraphEditor, opcode: str, foldable: Callable[[Operator], bool]) -> int:
    """Fold every operator of kind ``opcode`` that passes ``foldable``; how many folded."""
    return sum(foldable(op) and fold(g, op) for op in g.ops(opcode))
