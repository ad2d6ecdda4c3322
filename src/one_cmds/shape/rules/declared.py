"""Operators whose outputs keep their declared shapes: custom operators and resource variables."""

from __future__ import annotations

from ..registry import rule


@rule("CUSTOM", "VAR_HANDLE", "READ_VARIABLE")
def declared(op, ctx):
    """Nothing in the operands tells the result's shape: keep the stored shapes and dtypes."""
    return [(ctx.output_shape(k), ctx.output_dtype(k)) for k in range(len(op.outputs))]


@rule("ASSIGN_VARIABLE")
def assign_variable(op, ctx):
    """No results."""
    return []
