"""Shapes parsed from an option's shape string, which remember the string as the user gave it
(logs and ``--dry-run`` print it back)."""

from __future__ import annotations

from typing import Any


class _Parsed(tuple):  # type: ignore[type-arg]
    text: str

    def __new__(cls, items: Any, text: str) -> Any:
        parsed = super().__new__(cls, items)
        parsed.text = text
        return parsed

    def __str__(self) -> str:
        return self.text

    def __reduce__(self) -> Any:
        return (type(self), (tuple(self), self.text))


class ShapeList(_Parsed):
    """One shape per input, in order (``[1,3,224,224],[10]``); None marks an unknown dim."""


class NamedShapeList(_Parsed):
    """``(name or None, shape)`` entries of an import shape string (``x[1,3],y[2]``)."""


class TorchShapeList(_Parsed):
    """``one-import-pytorch`` shapes (``batch,3,8,8:batch,10``): per input a tuple of sizes,
    dimension names and None (``-1``)."""


class TorchTypeList(_Parsed):
    """``one-import-pytorch`` input types (``float32,int64``), one per input."""
