"""Optimization passes, one module per pass, registered under its ONE option name."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from typing import Any

from ..ir import Model

Pass = Callable[[Model, Any], bool]
"""A pass rewrites the model in place (given the step's options); returns whether it changed
anything."""

PASSES: dict[str, Pass] = {}


def register(name: str) -> Callable[[Pass], Pass]:
    """Decorator registering a pass under its ``one-optimize`` option name."""

    def add(fn: Pass) -> Pass:
        if name in PASSES:
            raise ValueError(f"two passes named {name}")
        PASSES[name] = fn
        return fn

    return add


def load_passes() -> dict[str, Pass]:
    """Import every pass module (each registers itself) and return the registry."""
    for module in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{module.name}")
    return PASSES
