"""Reading a large constant a part at a time (quantization.md §21, §22): a loaded model's
weights are read-only views into its mapped file, so a weight quantized in row chunks, each
chunk's mapped pages released once read, never brings the whole file into the process's
resident set; what stays resident is the (much smaller) quantized result."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..formats.files import release_pages

CHUNK_BYTES = 4 * 2**20  # float32 bytes read at a time


def row_chunks(w: np.ndarray, *, whole: bool = False) -> Iterator[tuple[slice, np.ndarray]]:
    """(rows, float32 values of those rows) along axis 0 of ``w``: an even number of rows
    (the last chunk excepted) of at most :data:`CHUNK_BYTES`, or two rows when they are
    larger, so that packed int4 chunks start on a byte; the whole array at once with
    ``whole``. A chunk's mapped pages are released when the caller asks for the next one."""
    rows = w.shape[0]
    row_bytes = 4 * max(1, w.size // max(rows, 1))
    step = max(1, rows) if whole else max(2, CHUNK_BYTES // row_bytes // 2 * 2)
    for start in range(0, rows, step):
        part = w[start : start + step]
        yield slice(start, start + len(part)), np.asarray(part, np.float32)
        release_pages(part)
