"""The project's error hierarchy. Every failure a user can cause is one of these.

The CLI prints ``<prog>: <message>`` and exits with ``exit_code`` (255, or 2 for command-line
argument errors). Messages reproduce the reference tool's text where scripts grep for it;
context (file, section, key, closest name) may follow in parentheses.
"""

from __future__ import annotations


class OneCmdsError(Exception):
    """Base of every user-facing error."""

    exit_code = 255

    def __init__(self, message: str, *, prog: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.prog = prog

    def __str__(self) -> str:
        return self.message


class UsageError(OneCmdsError):
    """A command-line argument error, found before any file is read (exit 2)."""

    exit_code = 2


class ConfigError(OneCmdsError):
    """A configuration file, group file or workflow file is wrong."""


class ModelFileError(OneCmdsError):
    """A model file cannot be opened or is not a valid TFLite/circle model."""


class ExportError(OneCmdsError):
    """A model cannot be written."""


class StageError(OneCmdsError):
    """A step failed while working on a model."""


class UnsupportedError(OneCmdsError):
    """A step, driver or feature that this project does not run."""


class MissingExtraError(OneCmdsError):
    """An optional dependency a step needs (``one-cmds[tf]``, ``one-cmds[pytorch]``) is not
    installed, or is too old."""
