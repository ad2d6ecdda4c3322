"""What a tool step runs: tool calls resolved to argv lists, and running them
(backends-and-packaging.md §1.3): no shell, the current environment and directory, stdin
inherited, stdout passed through, each stderr line prefixed as it arrives."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass, field

from one_cmds.backends.lookup import find_tool, searched
from one_cmds.errors import StageError


@dataclass(frozen=True)
class ToolCall:
    """One child process: the tool looked up by name (or, with ``python``, a script run by
    this interpreter), its arguments and the prefix of its stderr lines."""

    tool: str
    args: tuple[str, ...] = ()
    prefix: str | None = None
    python: bool = False

    def argv(self) -> list[str] | None:
        """The argv to run, or None when the tool is not found."""
        if self.python:
            return [sys.executable, self.tool, *self.args]
        path = find_tool(self.tool)
        return None if path is None else [path, *self.args]

    def resolved(self) -> list[str]:
        """The argv; ``FileNotFoundError: <tool> not found`` when the tool is missing."""
        argv = self.argv()
        if argv is None:
            raise StageError(f"FileNotFoundError: {self.tool} not found ({searched()})")
        return argv

    def describe(self) -> str:
        """The argv joined by spaces, or ``<tool> (not found)`` (``--dry-run``)."""
        argv = self.argv()
        return f"{self.tool} (not found)" if argv is None else " ".join(argv)


@dataclass
class ToolOptions:
    """The options of a codegen, profile or infer step: the calls it makes, in order."""

    calls: list[ToolCall] = field(default_factory=list)


def run_call(call: ToolCall, argv: list[str]) -> None:
    """Run ``argv``; a non-zero exit is ``<tool> exited with code <N>``."""
    prefix = call.prefix or os.path.basename(argv[0])
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        child = subprocess.Popen(argv, stderr=subprocess.PIPE)
    except OSError as error:
        raise StageError(f"cannot run {argv[0]}: {error.strerror}") from None
    with child:
        assert child.stderr is not None
        for raw in child.stderr:
            line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
            sys.stderr.write(f"{prefix}: {line}\n")
            sys.stderr.flush()
    if child.returncode != 0:
        raise StageError(f"{call.tool} exited with code {child.returncode}")


def run_calls(calls: list[ToolCall]) -> None:
    """Resolve every call first (a missing tool stops before anything runs), then run them
    in order; the first failure stops."""
    argvs = [call.resolved() for call in calls]
    for call, argv in zip(calls, argvs, strict=True):
        run_call(call, argv)
