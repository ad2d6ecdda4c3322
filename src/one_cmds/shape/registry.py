"""The rule registry: one shape and dtype inference rule per operator, under its opcode name.

A rule is ``fn(op, ctx) -> list[(shape, dtype)]`` with one entry per output of ``op``: the
shape is a tuple with None for an unknown dimension, the dtype a tensor type name
(``"FLOAT32"``). ``ctx`` is a :class:`~one_cmds.shape.context.RuleContext`. A rule raises
:class:`ShapeError` when its inputs are invalid.
"""

from __future__ import annotations

from collections.abc import Callable

from ..ir import Operator
from .context import Output, RuleContext

Rule = Callable[[Operator, RuleContext], list[Output]]

RULES: dict[str, Rule] = {}


class ShapeError(Exception):
    """The inputs of an operator do not allow computing its output shapes (the reason)."""


def rule(*opcodes: str) -> Callable[[Rule], Rule]:
    """Register ``fn`` as the rule of each opcode (``"ADD"``; ``"CUSTOM"`` for every custom op)."""

    def add(fn: Rule) -> Rule:
        for opcode in opcodes:
            if opcode in RULES:
                raise ValueError(f"two shape rules for {opcode}")
            RULES[opcode] = fn
        return fn

    return add
