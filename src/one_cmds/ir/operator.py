"""Operators of a graph."""

from __future__ import annotations

from typing import Any

from .origin import NO_ORIGIN, Origin
from .tensor import Tensor


class Operator:
    """One operator. ``opcode`` is the builtin name (``"CONV_2D"``) or ``"CUSTOM"``.

    ``options`` is the builtin options object of the schema bindings (e.g. ``Conv2DOptionsT``),
    kept as is; ``options2`` the same for the second options union (StableHLO operators).
    ``inputs`` may hold None for an omitted optional input.
    """

    __slots__ = (
        "custom_code",
        "custom_options",
        "custom_options_format",
        "inputs",
        "intermediates",
        "mutating_variable_inputs",
        "opcode",
        "options",
        "options2",
        "origin",
        "outputs",
        "version",
    )

    def __init__(
        self,
        opcode: str,
        inputs: list[Tensor | None],
        outputs: list[Tensor],
        options: Any = None,
        *,
        origin: Origin = NO_ORIGIN,
        custom_code: str | None = None,
        custom_options: bytes | None = None,
        custom_options_format: int = 0,
        version: int = 1,
        options2: Any = None,
        intermediates: list[Tensor] | None = None,
        mutating_variable_inputs: list[bool] | None = None,
    ) -> None:
        self.opcode = opcode
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        self.options = options
        self.options2 = options2
        self.origin = origin
        self.custom_code = custom_code
        self.custom_options = custom_options
        self.custom_options_format = custom_options_format
        self.version = version
        self.intermediates = list(intermediates) if intermediates else []
        self.mutating_variable_inputs = mutating_variable_inputs

    @property
    def kind(self) -> str:
        """The opcode, or ``CUSTOM(<code>)`` for a custom operator."""
        return f"CUSTOM({self.custom_code})" if self.opcode == "CUSTOM" else self.opcode

    def __repr__(self) -> str:
        ins = ", ".join("-" if t is None else t.name for t in self.inputs)
        outs = ", ".join(t.name for t in self.outputs)
        return f"Operator({self.kind}: {ins} -> {outs})"
