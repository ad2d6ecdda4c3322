"""What a foreign library prints while it converts a model (tf-and-pytorch-import.md §2.3):
caught at the file descriptors (its C++ logs and Python log handlers included) and handed to
the step log, and how its exceptions read as one line."""

from __future__ import annotations

import contextlib
import logging
import os
import re
import sys
import tempfile
import traceback
from collections.abc import Callable, Iterator

LIMIT = 2000
_FRAMING = re.compile(r"Graph execution error:$|Detected at node\b|\[\[")
_QUOTED = re.compile(r"[A-Za-z_.]*(Error|Exception): ")


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


@contextlib.contextmanager
def logged_exceptions(logger: str) -> Iterator[list[BaseException]]:
    """While active, the exceptions that the Python logger ``logger`` logs with a record are
    collected in the list yielded: a library that logs the real error and raises a vaguer one
    (torch.export.load: "check the warnings above")."""
    caught: list[BaseException] = []

    class Collector(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.exc_info and record.exc_info[1] is not None:
                caught.append(record.exc_info[1])

    collector, target = Collector(logging.WARNING), logging.getLogger(logger)
    target.addHandler(collector)
    try:
        yield caught
    finally:
        target.removeHandler(collector)


def one_line(error: BaseException) -> str:
    """``<ExcType>: <message lines stripped, empties dropped, joined by ' | '>``, cut at
    2,000 characters."""
    lines = [line.strip() for line in str(error).splitlines()]
    text = f"{type(error).__name__}: {' | '.join(line for line in lines if line)}"
    return text if len(text) <= LIMIT else text[: LIMIT - 1] + "…"


def cause_line(error: BaseException) -> str:
    """``<the innermost cause's type>: <its reason>``, the reason being, of its message lines
    that are not TensorFlow's framing (``Graph execution error:``, ``Detected at node ...``,
    ``[[{{node ...}}]]``), the last that quotes an exception (``RuntimeError: ...``: the end
    of a TorchScript traceback), else the first (torch.export, TensorFlow: hints and context
    follow it). Cut at 2,000 characters."""
    while error.__cause__ is not None:
        error = error.__cause__
    kind = type(error).__name__
    lines = [line.strip() for line in str(error).splitlines()]
    reasons = [line for line in lines if line and not _FRAMING.match(line)]
    quoted = [line for line in reasons if _QUOTED.match(line)]
    reason = quoted[-1] if quoted else reasons[0] if reasons else ""
    reason = reason.removeprefix(f"{kind}: ")
    text = f"{kind}: {reason}" if reason else kind
    return text if len(text) <= LIMIT else text[: LIMIT - 1] + "…"


def full_text(error: BaseException) -> list[str]:
    """The exception's traceback and full message, line by line (for ``-V``)."""
    return "".join(traceback.format_exception(error)).splitlines()
