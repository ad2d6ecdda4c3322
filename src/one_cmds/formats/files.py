"""Model files: mapped read-only on input, written atomically and streamed on output.

A loaded model's weights are views into the read-only mapping of its file. Each mapping is
registered with a descriptor of the file, so the exporter can find where an unchanged
weight lives and copy it file to file (:meth:`Output.copy_from`) and the md5 of the source can
be computed by reading the file (:func:`source_md5`), neither touching the mapping: a
multi-GB model then never becomes resident in the process.
"""

from __future__ import annotations

import contextlib
import hashlib
import mmap
import os
import weakref
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..errors import ExportError, ModelFileError

CHUNK = 8 * 2**20  # bytes per read when a file is read or copied in user space


@dataclass(frozen=True)
class SourceFile:
    """An open, mapped model file: a descriptor of its own and the mapping's address."""

    path: str
    fd: int
    address: int
    size: int


_SOURCES: weakref.WeakKeyDictionary[mmap.mmap, SourceFile] = weakref.WeakKeyDictionary()


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
            fd = os.dup(f.fileno())
    except OSError as e:
        raise ModelFileError(f"Failed to open file: {path} ({e.strerror})") from None
    address = np.frombuffer(mapped, np.uint8).ctypes.data
    _SOURCES[mapped] = SourceFile(path, fd, address, size)
    weakref.finalize(mapped, os.close, fd)
    return memoryview(mapped)


def _mapping_of(data: object) -> mmap.mmap | None:
    base = data
    while isinstance(base, np.ndarray):
        base = base.base
    if isinstance(base, memoryview):
        base = base.obj
    return base if isinstance(base, mmap.mmap) and base in _SOURCES else None


def source_of(data: object) -> SourceFile | None:
    """The mapped file ``data`` (a memoryview of a mapping, or an array viewing one) lies in."""
    mapping = _mapping_of(data)
    return None if mapping is None else _SOURCES[mapping]


def release_pages(array: np.ndarray) -> None:
    """Let the pages of a mapped file that ``array`` views leave the process's resident set
    (they are read again from the file if touched later): a step that reads every weight of
    a multi-GB model once, such as weight quantization, calls it after each part it has
    read. Nothing happens for an array that is not a view of a mapped model file."""
    mapping = _mapping_of(array)
    if mapping is None or not hasattr(mmap, "MADV_DONTNEED"):
        return
    source = _SOURCES[mapping]
    start = array.ctypes.data - source.address
    end = start + array.nbytes
    first = start - start % mmap.PAGESIZE
    if 0 <= first < end <= source.size:
        mapping.madvise(mmap.MADV_DONTNEED, first, end - first)


def file_span(raw: np.ndarray) -> tuple[SourceFile, int] | None:
    """(source file, offset) of the bytes of ``raw`` when they are a view of a mapped file."""
    source = source_of(raw)
    if source is None:
        return None
    offset = raw.ctypes.data - source.address
    if offset < 0 or offset + raw.nbytes > source.size:
        return None
    return source, offset


def source_md5(data: memoryview | bytes) -> str:
    """The md5 of a model file's bytes: read from the file in chunks when ``data`` is its
    mapping (so the mapping is not brought into memory), else hashed directly."""
    source = source_of(data)
    if source is None:
        return hashlib.md5(data).hexdigest()
    digest = hashlib.md5()
    chunk = bytearray(CHUNK)
    view = memoryview(chunk)
    offset = 0
    while offset < source.size:
        n = os.preadv(source.fd, [view[: min(CHUNK, source.size - offset)]], offset)
        if n <= 0:
            raise OSError(f"{source.path} ended at byte {offset} of {source.size}")
        digest.update(view[:n])
        offset += n
    return digest.hexdigest()


class Output:
    """The unbuffered temporary file an export writes: bytes, zero padding, and ranges
    copied from another file by the kernel (``os.copy_file_range``), or in chunks through
    user space where the kernel cannot."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.position = 0
        self._kernel_copy = hasattr(os, "copy_file_range")

    def write(self, data: bytes | bytearray | memoryview) -> None:
        view = memoryview(data).cast("B")
        while view:
            n = os.pwrite(self.fd, view, self.position)
            view = view[n:]
            self.position += n

    def write_at(self, position: int, data: bytes) -> None:
        """Overwrite bytes already written (the position stays at the end)."""
        if position + len(data) > self.position:
            raise ValueError("write_at beyond the written bytes")
        os.pwrite(self.fd, data, position)

    def pad_to(self, position: int) -> None:
        """Zero bytes up to ``position``."""
        self.write(bytes(position - self.position))

    def copy_from(self, source: SourceFile, offset: int, count: int) -> None:
        """Append ``count`` bytes of ``source`` from ``offset``."""
        while count and self._kernel_copy:
            try:
                n = os.copy_file_range(source.fd, self.fd, count, offset, self.position)
            except OSError:  # another file system, or a kernel without it
                self._kernel_copy = False
                break
            if n == 0:
                raise OSError(f"{source.path} ended at byte {offset} of {source.size}")
            offset, count, self.position = offset + n, count - n, self.position + n
        if count:
            self._copy_in_chunks(source, offset, count)

    def _copy_in_chunks(self, source: SourceFile, offset: int, count: int) -> None:
        chunk = memoryview(bytearray(min(CHUNK, count)))
        while count:
            n = os.preadv(source.fd, [chunk[: min(len(chunk), count)]], offset)
            if n <= 0:
                raise OSError(f"{source.path} ended at byte {offset} of {source.size}")
            self.write(chunk[:n])
            offset, count = offset + n, count - n


# The reference's importers say this of an output they cannot write (one-import_neg_009); its
# other tools say EXPORT (one-quantize_neg_004).
WRITE_CIRCLE = "Failed to write circle"
EXPORT = "Failed to export"


def check_output_path(path: str, failed: str = WRITE_CIRCLE) -> str:
    """The folder of ``path``; ``<failed>: <path> (<reason>)`` when the file cannot be written
    there (a directory, or a folder that does not exist)."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise ExportError(f"{failed}: {path} (is a directory)")
    if not os.path.isdir(folder):
        raise ExportError(f"{failed}: {path} (folder {folder} does not exist)")
    return folder


def temporary_path(path: str, pid: int | None = None) -> str:
    """The temporary file process ``pid`` (default: this one) writes ``path`` through."""
    folder, name = os.path.split(os.path.abspath(path))
    return os.path.join(folder, f".{name}.{os.getpid() if pid is None else pid}.tmp")


def write_atomically(path: str, write: Callable[[Output], None], failed: str = EXPORT) -> int:
    """Write a file through ``write`` into a temporary file next to ``path``, then rename it.

    Nothing is left behind on failure. Returns the size of the written file. Errors become
    ``<failed>: <path> (<reason>)``.
    """
    check_output_path(path, failed)
    tmp = temporary_path(path)
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    except OSError as e:
        raise ExportError(f"{failed}: {path} ({e.strerror})") from None
    try:
        try:
            output = Output(fd)
            write(output)
            size = output.position
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except OSError as e:
        _remove_quietly(tmp)
        raise ExportError(f"{failed}: {path} ({e.strerror or e})") from None
    except BaseException:
        _remove_quietly(tmp)
        raise
    return size


def _remove_quietly(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)
