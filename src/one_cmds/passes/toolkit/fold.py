"""Constant folding through the interpreter's kernels: the one implementation of every
operator's arithmetic in the project (optimization.md §5.21)."""

from __future__ import annotations

import numpy as np

from ...interp import InterpreterError, RunContext, evaluate, load_kernels
from ...ir import Operator
from .editor import GraphEditor
from .values import const_value


def constant_results(g: GraphEditor, op: Operator) -> list[np.ndarray] | None:
    """The results of ``op`` when every input it has is a constant (None when one is not,
    or when the kernel refuses the operands)."""
    args = []
    for t in op.inputs:
        if t is None:
            args.append(None)
            continue
        value = const_value(t) if t.sparsity is None else t.data
        if value is None:
            return None
        args.append(value)
    load_kernels()
    try:
        return evaluate(op, args, RunContext(g.model))
    except InterpreterError:
        return None


def fold(g: GraphEditor, op: Operator) -> bool:
    """Replace the results of ``op`` by constants holding their values; whether it did."""
    results = constant_results(g, op)
    if results is None:
        return False
    for t, value in zip(op.outputs, results, strict=True):
        g.replace(t, g.const(t.name, value, t.dtype))
    return True
