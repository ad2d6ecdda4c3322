"""Reusing freed memory for the next arrays while the interpreter runs many records.

glibc serves a large allocation with a fresh mapping (above its mmap threshold) and gives
freed heap memory back to the system (above its trim threshold). The interpreter allocates
each operator's result and frees it a few operators later, so on every record it pays page
faults for every 4 KiB of every large result. Inside :func:`reused_heap`, allocations up to
32 MiB (glibc's largest threshold) come from the heap and freed memory stays there for the
next record; on leaving, glibc's defaults are set back and the kept memory is released.
Elsewhere than glibc it does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
from collections.abc import Iterator
from contextlib import contextmanager

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # mallopt parameters (malloc.h)
DEFAULT_THRESHOLD = 128 * 1024
LARGEST_MMAP_THRESHOLD = 32 * 1024 * 1024
KEPT = 1 << 30


@functools.cache
def _glibc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
    except OSError:
        return None
    return libc if libc is not None and hasattr(libc, "mallopt") else None


@contextmanager
def reused_heap() -> Iterator[None]:
    """Keep freed memory for reuse while the block runs (glibc only)."""
    libc = _glibc()
    if libc is None:
        yield
        return
    libc.mallopt(M_MMAP_THRESHOLD, LARGEST_MMAP_THRESHOLD)
    libc.mallopt(M_TRIM_THRESHOLD, KEPT)
    try:
        yield
    finally:
        libc.mallopt(M_MMAP_THRESHOLD, DEFAULT_THRESHOLD)
        libc.mallopt(M_TRIM_THRESHOLD, DEFAULT_THRESHOLD)
        libc.malloc_trim(0)
