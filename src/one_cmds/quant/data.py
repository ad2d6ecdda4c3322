"""Calibration records (quantization.md §3.4, §3.5): one array per model input, per record.

Formats: ``h5`` (group ``value``, one subgroup per record, one dataset per input: typed
arrays, or, when the group carries the attribute ``rawData`` as rawdata2hdf5 writes it, each
input's raw bytes), ``list``
(a text file: per line one raw file with every input concatenated, or one raw file per
input), ``dir`` (every regular file, sorted by name, is one record
in the concatenated raw layout), ``npz`` (project addition: one array per input named
``0``, ``1``, … or ``arr_0``, ``arr_1``, … as ``np.savez`` names them, with a leading record
axis) and ``npy`` (project addition: a single-input model's
records stacked on a leading axis). Without data: three seeded random records.
"""

from __future__ import annotations

import math
import os
import zipfile
import zlib
from collections.abc import Iterator, Sequence

import numpy as np

from ..ir import Tensor, numpy_dtype
from .errors import QuantizeError

Record = list[np.ndarray]

RANDOM_RECORDS = 3
HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"


def records(inputs: Sequence[Tensor], path: str | None, fmt: str = "h5") -> Iterator[Record]:
    """The calibration records for a model with graph inputs ``inputs``; ``fmt`` is a format
    name as the option checks normalize it (``h5``, ``list``, ``dir``, ``npz``, ``npy``)."""
    if path is None:
        return _random(inputs)
    reader = _READERS.get(fmt)
    if reader is None:
        raise QuantizeError("Unsupported input data format")
    return _finite(reader(inputs, path), inputs, path)


def _finite(data: Iterator[Record], inputs: Sequence[Tensor], path: str) -> Iterator[Record]:
    """The records, stopping at a float input that holds inf or NaN (it would turn every
    range it reaches into inf or NaN)."""
    number = -1
    for number, record in enumerate(data):
        for t, value in zip(inputs, record, strict=True):
            if value.dtype.kind == "f" and not np.isfinite(value).all():
                kind = "NaN" if np.isnan(value).any() else "inf"
                raise QuantizeError(
                    f"record {number} of {path}: input '{t.name}' holds {kind} values"
                )
        yield record
    if number < 0:
        raise QuantizeError(f"no calibration records in {path}")


def _shape(t: Tensor) -> tuple[int, ...]:
    if any(d is None or d == 0 for d in t.shape):
        raise QuantizeError(f"input '{t.name}' has an unknown or empty dimension: resize it first")
    return tuple(int(d) for d in t.shape)  # type: ignore[arg-type]


def _dtype(t: Tensor) -> np.dtype:
    dtype = numpy_dtype(t.dtype)
    if dtype is None:
        raise QuantizeError(f"input '{t.name}' has type {t.dtype}, which records cannot hold")
    return dtype


def _random(inputs: Sequence[Tensor]) -> Iterator[Record]:
    rng = np.random.default_rng(0)
    for _ in range(RANDOM_RECORDS):
        record = []
        for t in inputs:
            shape = _shape(t)
            if t.dtype == "FLOAT32":
                record.append(rng.uniform(-5, 5, shape).astype(np.float32))
            elif t.dtype in ("INT32", "INT64"):
                record.append(rng.integers(0, 100, shape, endpoint=True).astype(_dtype(t)))
            elif t.dtype == "BOOL":
                record.append(rng.integers(0, 1, shape, endpoint=True).astype(bool))
            else:
                raise QuantizeError(f"input '{t.name}': no random data for type {t.dtype}")
        yield record


def _h5(inputs: Sequence[Tensor], path: str) -> Iterator[Record]:
    import h5py

    if not os.path.isfile(path):  # not "not HDF5": there is no file to be it
        raise QuantizeError(f"Cannot open file: {path} ({_absent(path)})")
    try:
        handle = h5py.File(path, "r")
    except OSError:
        raise QuantizeError(f"Given data file is not HDF5 ({path})") from None
    with handle:
        group = handle.get("value")
        if not isinstance(group, h5py.Group):
            raise QuantizeError(f"{path} has no group 'value' (quantization.md §3.4)")
        # record-minmax reads every dataset as raw bytes when the attribute exists at all
        read = _h5_raw if "rawData" in group.attrs else _h5_input
        for name in sorted(group, key=_numeric):
            record = group[name]
            keys = [str(i) for i in range(len(inputs))]
            if len(record) != len(inputs) or not set(keys) <= set(record):
                raise QuantizeError(
                    f"Wrong number of inputs (record {name} of {path} holds datasets "
                    f"{sorted(record, key=_numeric)}, the model's inputs read {keys})"
                )
            yield [read(record[k], t, name, path) for k, t in zip(keys, inputs, strict=True)]


def _numeric(name: str) -> tuple[int, str]:
    return (int(name), "") if name.isdigit() else (math.inf, name)  # type: ignore[return-value]


def _h5_input(dataset, t: Tensor, name: str, path: str) -> np.ndarray:
    data = np.asarray(dataset)
    shape, dtype = _shape(t), _dtype(t)
    if data.size != math.prod(shape):
        raise QuantizeError(
            f"Buffer size does not match (record {name} of {path}, input '{t.name}')"
        )
    if data.dtype != dtype:
        raise QuantizeError(
            f"record {name}, input '{t.name}' holds {data.dtype}, the model expects {dtype} "
            f"(in {path})"
        )
    return data.reshape(shape)


def _h5_raw(dataset, t: Tensor, name: str, path: str) -> np.ndarray:
    """A dataset of the raw layout: its bytes, whatever its type, are the input's values."""
    raw = np.ascontiguousarray(dataset)  # decoded from its buffer, not copied to bytes
    expected = _nbytes(t)
    if raw.nbytes != expected:
        raise QuantizeError(
            f"Buffer size does not match (record {name} of {path}, input '{t.name}': the "
            f"model expects {expected} bytes of {_dtype(t)} {list(_shape(t))}, the dataset "
            f"holds {raw.nbytes})"
        )
    return _decode(raw, t, 0)


def _nbytes(t: Tensor) -> int:
    return math.prod(_shape(t)) * _dtype(t).itemsize


def _decode(raw: bytes | np.ndarray, t: Tensor, offset: int) -> np.ndarray:
    """Input ``t``'s values at ``offset`` of little-endian raw bytes, in native byte order."""
    dtype, shape = _dtype(t), _shape(t)
    values = np.frombuffer(raw, dtype.newbyteorder("<"), math.prod(shape), offset)
    return values.astype(dtype).reshape(shape)


def _split(raw: bytes, inputs: Sequence[Tensor], where: str) -> Record:
    """One record from the concatenated raw layout."""
    sizes = [_nbytes(t) for t in inputs]
    if len(raw) != sum(sizes):
        raise QuantizeError(
            f"Input tensor size mismatches ({where}: {len(raw)} bytes, {sum(sizes)} "
            f"expected for {_inputs(inputs)})"
        )
    offsets = np.cumsum([0, *sizes[:-1]])
    return [_decode(raw, t, int(o)) for t, o in zip(inputs, offsets, strict=True)]


def _inputs(inputs: Sequence[Tensor]) -> str:
    names = ", ".join(f"'{t.name}'" for t in inputs)
    return f"inputs {names}" if len(inputs) > 1 else f"input {names}"


def _read(path: str, where: str = "") -> bytes:
    """The bytes of a raw record file; ``where`` names the list line that gave it."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        reason = ", ".join(filter(None, [where, e.strerror]))
        raise QuantizeError(f"Cannot open file: {path} ({reason})") from None


def _list(inputs: Sequence[Tensor], path: str) -> Iterator[Record]:
    try:
        with open(path, encoding="utf-8") as f:
            lines = [line.split() for line in f if line.strip()]
    except (OSError, UnicodeDecodeError):
        raise QuantizeError(f"Cannot open file: {path}") from None
    for number, files in enumerate(lines, 1):
        line = f"{path} line {number}"
        if len(files) == len(inputs):  # one file per input (record-minmax checks this first)
            yield [
                _split(_read(f, line), [t], f"{f}, {line}")[0]
                for f, t in zip(files, inputs, strict=True)
            ]
        elif len(files) == 1:
            yield _split(_read(files[0], line), inputs, f"{files[0]}, {line}")
        else:
            raise QuantizeError(
                f"Wrong number of inputs ({path} line {number} names {len(files)} files: one "
                f"per input of the model's {len(inputs)}, or one holding them all)"
            )


def _dir(inputs: Sequence[Tensor], path: str) -> Iterator[Record]:
    if not os.path.isdir(path):
        raise QuantizeError(f"Cannot open directory: {path}")
    for name in sorted(os.listdir(path)):
        full = os.path.join(path, name)
        if os.path.isfile(full):
            yield _split(_read(full), inputs, full)


def _load(path: str):
    try:
        return np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as e:
        raise _unreadable(path, e) from None


def _unreadable(path: str, error: Exception) -> QuantizeError:
    """``Cannot open file: <path> (<why>)``: missing, a directory, or not what numpy reads."""
    if not os.path.isfile(path):
        return QuantizeError(f"Cannot open file: {path} ({_absent(path)})")
    with open(path, "rb") as f:
        if f.read(len(HDF5_SIGNATURE)) == HDF5_SIGNATURE:  # numpy would talk of pickles
            return QuantizeError(f"Cannot open file: {path} (an HDF5 file: input_data_format h5)")
    return QuantizeError(
        f"Cannot open file: {path} (not a numpy file: {type(error).__name__}: {error})"
    )


def _absent(path: str) -> str:
    return "is a directory" if os.path.isdir(path) else "No such file or directory"


def _stacked(arrays: Sequence[np.ndarray], inputs: Sequence[Tensor], path: str):
    for t, a in zip(inputs, arrays, strict=True):
        if a.shape[1:] != _shape(t):
            raise QuantizeError(
                f"Input tensor size mismatches ({path}: input '{t.name}' records have shape "
                f"{list(a.shape[1:])}, the model expects {list(_shape(t))})"
            )
    count = len(arrays[0]) if arrays else 0
    for i in range(count):
        yield [a[i].astype(_dtype(t)) for a, t in zip(arrays, inputs, strict=True)]


def _npz(inputs: Sequence[Tensor], path: str) -> Iterator[Record]:
    """Input ``i`` reads the array named ``i``, or ``arr_i`` as ``np.savez(path, *arrays)``
    names them (a file holds one naming or the other)."""
    try:
        return _npz_arrays(inputs, path)
    except (OSError, EOFError, zipfile.BadZipFile, zlib.error) as e:  # a member read
        raise _unreadable(path, e) from None


def _npz_arrays(inputs: Sequence[Tensor], path: str) -> Iterator[Record]:
    with _load(path) as archive:
        n = len(inputs)
        names = [str(i) for i in range(n)]
        if not set(names) & set(archive.files) and "arr_0" in archive.files:
            names = [f"arr_{i}" for i in range(n)]
        expected = _expected_arrays(names)
        missing = [name for name in names if name not in archive]
        if missing:
            raise QuantizeError(
                f"Wrong number of inputs ({path} has no array '{missing[0]}'; {expected})"
            )
        extra = sorted(set(archive.files) - set(names))
        if extra:
            listed = ", ".join(f"'{name}'" for name in extra)
            raise QuantizeError(
                f"Wrong number of inputs ({path} has arrays the model has no input for: "
                f"{listed}; {expected})"
            )
        arrays = [archive[name] for name in names]
    return _stacked(arrays, inputs, path)


def _expected_arrays(names: list[str]) -> str:
    if len(names) > 1:
        return f"the model's {len(names)} inputs read arrays '{names[0]}'..'{names[-1]}'"
    return f"the model's input reads array '{names[0]}'" if names else "the model has no inputs"


def _npy(inputs: Sequence[Tensor], path: str) -> Iterator[Record]:
    if len(inputs) != 1:
        raise QuantizeError(f"Wrong number of inputs (an .npy file feeds one input: {path})")
    return _stacked([_load(path)], inputs, path)


_READERS = {"h5": _h5, "list": _list, "dir": _dir, "npz": _npz, "npy": _npy}


def count(path: str | None, fmt: str = "h5") -> int | None:
    """How many records ``records`` will give, when it is cheap to know (None otherwise)."""
    if path is None:
        return RANDOM_RECORDS
    try:
        if fmt == "h5":
            import h5py

            with h5py.File(path, "r") as handle:
                return len(handle["value"])
        if fmt == "list":
            with open(path, encoding="utf-8") as f:
                return sum(1 for line in f if line.strip())
        if fmt == "dir":
            return sum(os.path.isfile(os.path.join(path, n)) for n in os.listdir(path))
    except (OSError, KeyError, UnicodeDecodeError):
        return None  # records() reports the problem with its own message
    return None
