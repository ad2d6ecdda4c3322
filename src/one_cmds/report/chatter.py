"""What a foreign library prints while it converts a model (tf-and-pytorch-import.md §2.3):
caught at the file descriptors (its C++ logs and Python log handlers included) and handed to
the step log, and how its exceptions read as one line."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import traceback
from collections.abc import Callable, Iterator

LIMIT = 2000


@contextlib.contextmanager
def caught_output(note: Callable[[str], None]) -> Iterator[None]:
    """Send everything written to stdout and stderr while active to ``note``, line by line."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    with tempfile.TemporaryFile(mode="w+b") as sink:
        os.dup2(sink.fileno(), 1)
        os.dup2(sink.fileno(), 2)
        try:
            yield
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            for fd in saved:
                os.close(fd)
            sink.seek(0)
            for line in sink.read().decode("utf-8", "replace").splitlines():
                if line.strip():
                    note(line.rstrip())


def one_line(error: BaseException) -> str:
    """``<ExcType>: <message lines stripped, empties dropped, joined by ' | '>``, cut at
    2,000 characters."""
    lines = [line.strip() for line in str(error).splitlines()]
    text = f"{type(error).__name__}: {' | '.join(line for line in lines if line)}"
    return text if len(text) <= LIMIT else text[: LIMIT - 1] + "…"


def full_text(error: BaseException) -> list[str]:
    """The exception's traceback and full message, line by line (for ``-V``)."""
    return "".join(traceback.format_exception(error)).splitlines()
