"""Finding the custom operators of the TensorFlow flex path that ``resolve_customop_*``
rewrite, with their attribute maps (the flexbuffer custom options)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...interp.kernels.custom import custom_attributes
from ...ir import Operator
from .editor import GraphEditor


def custom_ops(
    g: GraphEditor, code: str, inputs: int, outputs: int | None = None
) -> Iterator[tuple[Operator, dict[str, Any]]]:
    """The live custom operators ``code`` with ``inputs`` operands (none omitted) and
    ``outputs`` results (any number when None), each with its attributes; operators whose
    custom options are unreadable are skipped."""
    for op in g.ops("CUSTOM"):
        if op.custom_code != code or outputs not in (None, len(op.outputs)):
            continue
        if len(op.inputs) != inputs or any(t is None for t in op.inputs):
            continue
        attributes = custom_attributes(op)
        if attributes is not None:
            yield op, attributes
