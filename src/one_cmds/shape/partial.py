"""Small integer tensors whose elements are known only in part, e.g. ``[batch, seq, 4, 8]``
packed from two unknown sizes and two constants."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class PartialValue:
    """``data`` holds the known elements (1 where unknown), ``known`` says which are known."""

    data: np.ndarray
    known: np.ndarray

    @classmethod
    def unknown(cls, shape: tuple[int, ...], dtype: np.dtype) -> PartialValue:
        """A value of this shape with no element known."""
        return cls(np.ones(shape, dtype), np.zeros(shape, bool))

    @classmethod
    def of(cls, value: np.ndarray) -> PartialValue:
        """A fully known value."""
        return cls(value, np.ones(value.shape, bool))

    def entries(self) -> list[int | None]:
        """The elements in order, None for an unknown one."""
        pairs = zip(self.data.reshape(-1).tolist(), self.known.reshape(-1).tolist(), strict=True)
        return [int(v) if k else None for v, k in pairs]


# A value known during inference: every element, or some of them.
Known = np.ndarray | PartialValue
