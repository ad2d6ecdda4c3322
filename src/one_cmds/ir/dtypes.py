"""Tensor element types: the schema's type names and their numpy equivalents."""

from __future__ import annotations

import numpy as np

# Types whose elements map one to one onto a numpy dtype (little-endian, as in the file).
_NUMPY: dict[str, np.dtype] = {
    "FLOAT32": np.dtype("<f4"),
    "FLOAT16": np.dtype("<f2"),
    "FLOAT64": np.dtype("<f8"),
    "INT8": np.dtype("i1"),
    "INT16": np.dtype("<i2"),
    "INT32": np.dtype("<i4"),
    "INT64": np.dtype("<i8"),
    "UINT8": np.dtype("u1"),
    "UINT16": np.dtype("<u2"),
    "UINT32": np.dtype("<u4"),
    "UINT64": np.dtype("<u8"),
    "BOOL": np.dtype("?"),
    "COMPLEX64": np.dtype("<c8"),
    "COMPLEX128": np.dtype("<c16"),
}

_FROM_NUMPY = {dt.newbyteorder("="): name for name, dt in _NUMPY.items()}


def numpy_dtype(dtype: str) -> np.dtype | None:
    """The numpy dtype of a tensor type name; None for packed or opaque types (STRING, INT4)."""
    return _NUMPY.get(dtype)


def from_numpy(dtype: np.dtype) -> str:
    """The tensor type name of a numpy dtype; ValueError when there is none."""
    try:
        return _FROM_NUMPY[np.dtype(dtype).newbyteorder("=")]
    except KeyError:
        raise ValueError(f"no tensor type for numpy dtype {np.dtype(dtype)}") from None
