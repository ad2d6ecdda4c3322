"""The h5 files of the calibration-data tools (``one-create-quant-dataset``, ``rawdata2hdf5``):
a data list (a text file, one record per non-empty line, one data file per model input on
the line, separated by spaces) packaged as the h5 layout that ``records`` reads
(quantization.md §3.4): group ``value``, one subgroup per record named ``0``, ``1``, … with
the attribute ``desc`` (the line's file names, comma-separated), one dataset per file
named ``0``, ``1``, …

``rawdata`` files become uint8 datasets of their bytes and the group ``value`` carries the
attribute ``rawData = "1"`` (the model's input types and shapes give them meaning when they
are read); ``numpy`` files (``.npy``) become datasets of the array's type and shape.

Relative paths in the list are relative to the current directory, as the reference reads
them. The file is written to a temporary file beside the output and renamed, so a failure
leaves no output file.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import numpy as np

from ..formats.files import temporary_path
from .errors import QuantizeError

RAWDATA = "rawdata"
NUMPY = "numpy"
FORMATS = (RAWDATA, NUMPY)
# numpy kinds an h5 dataset holds and record-minmax reads: bool, integers, floats
STORABLE_KINDS = "biuf"


def package(data_format: str, data_list: str, output_path: str) -> int:
    """Write the h5 file of the records ``data_list`` names; returns how many there are."""
    if data_format not in FORMATS:
        raise QuantizeError(f"Unsupported input data format: {data_format}")
    temporary = _temporary_beside(output_path)
    try:
        records = _data_lines(data_list)
        _write(temporary, records, data_format)
        os.replace(temporary, output_path)
    except OSError as e:
        raise QuantizeError(f"Unable to create file {output_path} ({e.strerror or e})") from None
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)
    return len(records)


def _temporary_beside(output_path: str) -> str:
    """An empty temporary file in the output's folder (first, as the reference creates its
    output before it reads the list)."""
    name = temporary_path(output_path)
    try:
        os.close(os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666))
    except OSError as e:
        # h5py's exception name too: the reference's rawdata2hdf5_neg_004 greps it
        raise QuantizeError(
            f"{type(e).__name__}: Unable to create file {output_path} ({e.strerror})"
        ) from None
    return name


def _data_lines(data_list: str) -> list[list[str]]:
    """The data files of each non-empty line of the list file ``data_list``, every one an
    existing file."""
    if not os.path.isfile(data_list):
        raise QuantizeError(f"No such file. {data_list}")
    try:
        with open(data_list, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except UnicodeDecodeError as e:
        raise QuantizeError(
            f"UnicodeDecodeError: {e} ({data_list} is not a text list of data files)"
        ) from None
    except OSError as e:
        raise QuantizeError(f"Cannot open file: {data_list} ({e.strerror})") from None
    records = []
    for number, line in enumerate(lines, 1):
        files = line.split()
        for name in files:
            if not os.path.isfile(name):
                raise QuantizeError(f"No such file. {name} ({data_list} line {number})")
        if files:
            records.append(files)
    return records


def _write(path: str, records: list[list[str]], data_format: str) -> None:
    import h5py

    with h5py.File(path, "w") as handle:
        group = handle.create_group("value")
        if data_format == RAWDATA:
            group.attrs["rawData"] = "1"
        for number, files in enumerate(records):
            record = group.create_group(str(number))
            for index, array in enumerate(_arrays(files, data_format)):
                record.create_dataset(str(index), data=array)
            record.attrs["desc"] = ",".join(os.path.basename(name) for name in files)


def _arrays(files: list[str], data_format: str) -> Iterator[np.ndarray]:
    for name in files:
        yield _raw(name) if data_format == RAWDATA else _npy(name)


def _raw(name: str) -> np.ndarray:
    try:
        with open(name, "rb") as f:
            return np.frombuffer(f.read(), np.uint8)
    except OSError as e:
        raise QuantizeError(f"Cannot open file: {name} ({e.strerror})") from None


def _npy(name: str) -> np.ndarray:
    try:
        loaded = np.load(name, allow_pickle=False)
    except (OSError, ValueError, EOFError) as e:
        raise QuantizeError(f"{name} is not a numpy .npy file ({e})") from None
    if not isinstance(loaded, np.ndarray):
        loaded.close()
        raise QuantizeError(f"{name} is an .npz archive: the numpy format takes one .npy file")
    if loaded.dtype.kind not in STORABLE_KINDS:
        raise QuantizeError(
            f"{name} holds {loaded.dtype} values: a record holds bool, int or float"
        )
    return loaded
