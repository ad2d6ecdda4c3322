"""Optimization passes, one module per pass, registered under its ONE option name."""

from __future__ import annotations

from collections.abc import Callable

from ..ir import Model

Pass = Callable[[Model], bool]
"""A pass rewrites the model in place and returns whether it changed anything."""

PASSES: dict[str, Pass] = {}


def register(name: str) -> Callable[[Pass], Pass]:
    """Decorator registering a pass under its ``one-optimize`` option name."""

    def add(fn: Pass) -> Pass:
        PASSES[name] = fn
        return fn

    return add
