"""Opening model files (mapped, read-only) and writing outputs atomically."""

from __future__ import annotations

import contextlib
import mmap
import os
from collections.abc import Callable
from typing import BinaryIO

from ..errors import ExportError, ModelFileError


def open_model_bytes(path: str) -> memoryview | bytes:
    """The bytes of a model file, memory-mapped read-only (empty files give ``b""``).

    Raises ``Failed to open file: <path>`` for a missing, unreadable or directory path.
    """
    if os.path.isdir(path):
        raise ModelFileError(f"Failed to open file: {path} (is a directory)")
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size == 0:
                return b""
            mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    except OSError as e:
        raise ModelFileError(f"Failed to open file: {path} ({e.strerror})") from None
    return memoryview(mapped)


def write_atomically(path: str, write: Callable[[BinaryIO], None]) -> int:
    """Write a file through ``write`` into a temporary file next to ``path``, then rename it.

    Nothing is left behind on failure. Returns the size of the written file. Errors become
    ``Failed to export: <path> (<reason>)``.
    """
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise ExportError(f"Failed to export: {path} (is a directory)")
    if not os.path.isdir(folder):
        raise ExportError(f"Failed to export: {path} (folder {folder} does not exist)")
    tmp = os.path.join(folder, f".{os.path.basename(path)}.{os.getpid()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    except OSError as e:
        raise ExportError(f"Failed to export: {path} ({e.strerror})") from None
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            size = f.tell()
        os.replace(tmp, path)
    except OSError as e:
        _remove_quietly(tmp)
        raise ExportError(f"Failed to export: {path} ({e.strerror})") from None
    except BaseException:
        _remove_quietly(tmp)
        raise
    return size


def _remove_quietly(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)
