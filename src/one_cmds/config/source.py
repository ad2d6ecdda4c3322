"""Where option values come from, and the errors that name that place (cli-and-config.md §1.2)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass

from one_cmds.errors import ConfigError, OneCmdsError, UsageError


@dataclass(frozen=True)
class Source:
    """A file and section, a workflow step, or the command line.

    ``usage`` marks a command line without any configuration file: its errors are argument
    errors (exit 2) printed without context, as argparse does.
    """

    file: str | None = None
    section: str | None = None
    place: str | None = None
    usage: bool = False

    def context(self, *, key: str | None = None, hint: str | None = None) -> str:
        """`` (file 'x.cfg', section [s], key 'k', hint)`` or the empty string."""
        parts = []
        if self.file is not None:
            parts.append(f"file '{self.file}'")
        if self.section is not None:
            parts.append(f"section [{self.section}]")
        if self.place:
            parts.append(self.place)
        if key is not None:
            parts.append(f"key '{key}'")
        if hint:
            parts.append(hint)
        return f" ({', '.join(parts)})" if parts else ""

    def error(
        self,
        message: str,
        *,
        key: str | None = None,
        hint: str | None = None,
        kind: type[OneCmdsError] = ConfigError,
    ) -> OneCmdsError:
        """The error to raise for ``message`` found at this place."""
        if self.usage:
            return UsageError(message + (f" ({hint})" if hint else ""))
        return kind(message + self.context(key=key, hint=hint))


COMMAND_LINE = Source(usage=True)


def closest(name: str, valid: Iterable[str]) -> str | None:
    """The closest valid name for a likely typo (``difflib``, cutoff 0.6), or None."""
    matches = difflib.get_close_matches(name, list(valid), n=1, cutoff=0.6)
    return matches[0] if matches else None


def unrecognized(what: str, names: list[str], valid: Iterable[str], source: Source) -> OneCmdsError:
    """``the following <what> are unrecognized: a b`` with did-you-mean hints."""
    valid = list(valid)
    hints = []
    for name in names:
        match = closest(name, valid)
        if match is not None:
            prefix = "" if len(names) == 1 else f"'{name}': "
            hints.append(f"{prefix}did you mean '{match}'?")
    message = f"the following {what} are unrecognized: {' '.join(names)}"
    return source.error(message, hint=", ".join(hints) or None)


def same_option(first: str, second: str, source: Source) -> OneCmdsError:
    """Both names of one option (an alias) were given."""
    names = " and ".join(f"'{name}'" for name in sorted((first, second)))
    return source.error(f"{names} are the same option: give only one")
