"""Tensors, their constant buffers and quantization parameters."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np

from .dtypes import from_numpy, numpy_dtype

Shape = tuple[int | None, ...]

_creation = itertools.count()


class Buffer:
    """The bytes of a constant or a metadata entry.

    ``raw`` is a 1-D uint8 array (a read-only view into the source file for imported models)
    or None for an empty buffer. ``seq`` records creation order: the exporter writes buffers in
    that order, so imported buffers keep their file order and new ones follow.
    Several tensors may share one buffer.
    """

    __slots__ = ("raw", "seq")

    def __init__(self, raw: np.ndarray | None = None) -> None:
        self.raw = raw
        self.seq = next(_creation)

    @classmethod
    def from_array(cls, array: np.ndarray) -> Buffer:
        """A buffer holding the bytes of ``array`` (made contiguous and little-endian)."""
        arr = np.ascontiguousarray(array)
        if arr.dtype.byteorder == ">":
            arr = arr.astype(arr.dtype.newbyteorder("<"))
        raw = arr.reshape(-1).view(np.uint8)
        raw.flags.writeable = False
        return cls(raw)

    @classmethod
    def from_bytes(cls, data: bytes) -> Buffer:
        return cls(np.frombuffer(data, dtype=np.uint8) if data else None)

    @property
    def nbytes(self) -> int:
        return 0 if self.raw is None else int(self.raw.size)

    def tobytes(self) -> bytes:
        return b"" if self.raw is None else self.raw.tobytes()


@dataclass
class QuantParam:
    """Quantization parameters of a tensor; every field may be absent (None)."""

    scale: np.ndarray | None = None
    zero_point: np.ndarray | None = None
    min: np.ndarray | None = None
    max: np.ndarray | None = None
    quantized_dimension: int = 0


class Tensor:
    """A tensor of a graph. ``shape`` uses None for an unknown dimension; () is a scalar."""

    __slots__ = (
        "buffer",
        "dtype",
        "has_rank",
        "is_variable",
        "name",
        "quant",
        "seq",
        "shape",
        "sparsity",
        "variant_tensors",
    )

    def __init__(
        self,
        name: str,
        dtype: str,
        shape: Shape,
        *,
        buffer: Buffer | None = None,
        quant: QuantParam | None = None,
        is_variable: bool = False,
        sparsity: Any = None,
        has_rank: bool = False,
        variant_tensors: Any = None,
    ) -> None:
        self.name = name
        self.dtype = dtype
        self.shape: Shape = tuple(shape)
        self.buffer = buffer
        self.quant = quant
        self.is_variable = is_variable
        self.sparsity = sparsity
        self.has_rank = has_rank
        self.variant_tensors = variant_tensors
        self.seq = next(_creation)

    @classmethod
    def constant(cls, name: str, array: np.ndarray, dtype: str | None = None) -> Tensor:
        """A constant tensor holding ``array`` (dtype taken from the array unless given)."""
        arr = np.asarray(array)
        dtype = dtype or from_numpy(arr.dtype)
        np_dtype = numpy_dtype(dtype)
        if np_dtype is not None:
            arr = arr.astype(np_dtype, copy=False)
        return cls(name, dtype, arr.shape, buffer=Buffer.from_array(arr))

    @property
    def is_constant(self) -> bool:
        return self.buffer is not None and self.buffer.raw is not None

    @property
    def is_static(self) -> bool:
        return all(d is not None for d in self.shape)

    @property
    def data(self) -> np.ndarray | None:
        """The constant's elements as a read-only typed array, or None for a non-constant.

        Dense tensors of a known shape come back in that shape; sparse ones as their stored
        values (flat); packed or opaque types (INT4, STRING, ...) as their raw bytes.
        """
        if self.buffer is None or self.buffer.raw is None:
            return None
        raw = self.buffer.raw
        np_dtype = numpy_dtype(self.dtype)
        if np_dtype is None or raw.size % np_dtype.itemsize:
            return raw
        flat = raw.view(np_dtype)
        if self.sparsity is None and self.is_static and flat.size == _count(self.shape):
            return flat.reshape(self.shape)  # type: ignore[arg-type]
        return flat

    @data.setter
    def data(self, value: np.ndarray | None) -> None:
        if value is None:
            self.buffer = None
            return
        np_dtype = numpy_dtype(self.dtype)
        arr = np.asarray(value) if np_dtype is None else np.asarray(value, dtype=np_dtype)
        self.buffer = Buffer.from_array(arr)

    def __repr__(self) -> str:
        dims = ",".join("?" if d is None else str(d) for d in self.shape)
        return f"Tensor({self.name!r}, {self.dtype}, [{dims}])"


def _count(shape: Shape) -> int:
    n = 1
    for d in shape:
        n *= d  # type: ignore[operator]
    return n
