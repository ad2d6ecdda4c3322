"""Console output of the steps: lines on stdout (rich), warnings on stderr, mirrored as plain
text to the active step log (``<output_path>.log``)."""

from __future__ import annotations

import io
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # rich loads when something is printed, not at start-up
    from rich.console import Console

_log_lines: list[list[str]] = []
_verbose: list[bool] = [False]


def _console(stream: object) -> Console:
    from rich.console import Console

    # Built per call so that a swapped sys.stdout/sys.stderr (tests, capture) is honoured.
    return Console(file=stream, highlight=False, soft_wrap=True, markup=False)  # type: ignore[arg-type]


def _print(stream, line: str, style: str | None = None) -> None:
    """A line through rich on a terminal; written as it is elsewhere (pipes, files: no colour
    or wrapping to apply, and rich not loaded)."""
    isatty = getattr(stream, "isatty", None)
    if isatty is not None and isatty():
        _console(stream).print(line, style=style)
    else:
        stream.write(line + "\n")


def out(line: str, style: str | None = None) -> None:
    """Print one line on stdout and record it in the active step log."""
    _print(sys.stdout, line, style)
    _record(line)


def table(title: str, header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    """Print a rich table on stdout (never wrapped when stdout is not a terminal) and record
    it as plain text lines in the active step log."""
    from rich.table import Table

    grid = Table(title=title, title_justify="left")
    for name in header:
        grid.add_column(name)
    for row in rows:
        grid.add_row(*row)
    console = _console(sys.stdout)
    width = console.measure(grid, options=console.options.update_width(10_000)).maximum
    if not console.is_terminal:
        console.width = max(console.width, width)
    console.print(grid)
    text = io.StringIO()
    from rich.console import Console

    plain = Console(file=text, width=width, no_color=True, highlight=False, markup=False)
    plain.print(grid)
    for line in text.getvalue().splitlines():
        _record(line.rstrip())


def detail(line: str) -> None:
    """A line for the step log, shown on stdout only in verbose mode (``-V``)."""
    if _verbose[-1]:
        _print(sys.stdout, line)
    _record(line)


def is_verbose() -> bool:
    """Whether :func:`detail` lines are shown (``-V``)."""
    return _verbose[-1]


@contextmanager
def verbosity(verbose: bool) -> Iterator[None]:
    """Show :func:`detail` lines on stdout while active when ``verbose``."""
    _verbose.append(verbose)
    try:
        yield
    finally:
        _verbose.pop()


@contextmanager
def progress(label: str, total: int | None) -> Iterator[Callable[[], None]]:
    """A progress bar on a terminal's stdout (record count, and ETA when ``total`` is known);
    nothing when stdout is not a terminal, and never in the step log. Yields ``advance()``."""
    if not sys.stdout.isatty():
        yield lambda: None
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = [TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn()]
    if total is not None:
        columns.append(TimeRemainingColumn())
    with Progress(*columns, console=_console(sys.stdout), transient=True) as bar:
        task = bar.add_task(label, total=total)
        yield lambda: bar.advance(task)


def warn(message: str) -> None:
    """Print ``WARNING: <message>`` on stderr and record it in the active step log."""
    line = f"WARNING: {message}"
    _print(sys.stderr, line, "yellow")
    _record(line)


def notice(line: str) -> None:
    """Print a line on stderr as it is (a reference tool's own warning text) and flush."""
    _print(sys.stderr, line)
    sys.stderr.flush()
    _record(line)


def error(line: str) -> None:
    """Print an error line on stderr (the CLI's ``<prog>: <message>``)."""
    _print(sys.stderr, line, "red")
    _record(line)


def _record(line: str) -> None:
    if _log_lines:
        _log_lines[-1].append(line)


@contextmanager
def capture() -> Iterator[list[str]]:
    """Collect every line printed through this module while active (for the step log)."""
    lines: list[str] = []
    _log_lines.append(lines)
    try:
        yield lines
    finally:
        _log_lines.pop()
