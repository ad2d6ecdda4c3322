"""Step logs: an error gets the step's program name, and a logged step writes
``<realpath(output_path)>.log``: its command line, then what it printed (cli §1.3)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from ..errors import OneCmdsError
from ..report import console
from .plan import Step


@contextmanager
def named(step: Step) -> Iterator[None]:
    """An error without a program name gets the step's."""
    try:
        yield
    except OneCmdsError as e:
        if e.prog is None:
            e.prog = step.driver
        raise


@contextmanager
def step_log(step: Step, *, logged: bool) -> Iterator[None]:
    """Name the step's errors and, when ``logged``, write what it printed (and its error) to
    its log at its end."""
    if not logged:
        with named(step):
            yield
        return
    with console.capture() as lines:
        try:
            with named(step):
                yield
        except OneCmdsError as e:
            lines.append(f"{e.prog}: {e.message}")
            raise
        finally:
            _write_log(step, lines)


def _write_log(step: Step, lines: list[str]) -> None:
    options = step.options
    path = getattr(options, "log_path", None) or (
        os.path.realpath(os.path.expanduser(options.output_path)) + ".log"  # type: ignore[union-attr]
    )
    try:
        with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(step.command + "\n")
            f.writelines(line + "\n" for line in lines)
    except OSError:
        pass  # the log is a courtesy; the step's own error (if any) says what is wrong
