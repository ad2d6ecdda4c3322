"""What every program shares: the argument parser class, the version and the error handling
that turns exceptions into messages and exit codes (cli-and-config.md §1.1, §1.2)."""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import NoReturn

from one_cmds.cli.docs_pages import docs_lines
from one_cmds.config.groups import INVALID_GROUP, available_groups, check_optimization_name
from one_cmds.errors import OneCmdsError, UsageError
from one_cmds.report import console

# the exit code of a program that SIGPIPE ended, as a shell reports it
SIGPIPE_EXIT = 141


class ParserExit(Exception):
    """argparse finished the program (``-h``, ``-v``)."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class ArgumentError(UsageError):
    """An argparse error, with the parser whose usage line is printed."""

    def __init__(self, message: str, parser: argparse.ArgumentParser) -> None:
        super().__init__(message, prog=parser.prog)
        self.parser = parser


class ArgumentParser(argparse.ArgumentParser):
    """An argparse parser that raises instead of exiting, so programs return exit codes."""

    def __init__(self, **kwargs: object) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.docs = docs_lines(self.prog)

    def format_help(self) -> str:
        """argparse's help, then where the documentation is (never wrapped: paths)."""
        return super().format_help() + "".join(f"\n{line}" for line in self.docs) + "\n"

    def error(self, message: str) -> NoReturn:
        raise ArgumentError(message, self)

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        if message:
            sys.stderr.write(message)
        raise ParserExit(status)


def version() -> str:
    """The package version."""
    from one_cmds import __version__

    return __version__


def add_version(parser: argparse.ArgumentParser, extra: str | None = None) -> None:
    """``-v/--version``: ``<prog> version <version>`` (then ``extra`` on its own line), exit 0."""
    text = f"{parser.prog} version {version()}" + (f"\n{extra}" if extra else "")
    parser.add_argument(
        "-v",
        "--version",
        action="version",
        version=text,
        help="show program's version number and exit",
    )


def add_verbose(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-V",
        "--verbose",
        action="store_true",
        default=False,
        help="output additional information to stdout or stderr",
    )


def add_config(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-C", "--config", default=None, help="run with configuation file")


def add_dry_run(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--dry-run",
        action="store_true",
        default=False,
        help="print the resolved plan and exit without reading models or writing files",
    )


def add_optimization(parser: argparse.ArgumentParser, *, hidden: bool = False) -> None:
    """``-O NAME``: the group ``O<NAME>`` (``-O1`` selects ``O1.cfg``)."""
    names = [f"-{name}" for name in available_groups()]
    listed = (
        f"Available optimization options: {', '.join(names)}"
        if names
        else "No available optimization options"
    )
    parser.add_argument(
        "-O",
        dest="O",
        default=None,
        metavar="OPTIMIZATION",
        help=argparse.SUPPRESS if hidden else f"optimization name to use ({listed})",
    )


def optimization_group(value: str | None, *, as_flag: bool = False) -> str | None:
    """The group name selected by ``-O value`` (checked as in §5, exit 2). ``as_flag``: an
    unknown name is reported as argparse reports an unknown flag, as ``onecc`` does, whose
    groups are flags (``-O1``) in the reference (onecc_neg_010)."""
    if value is None:
        return None
    unknown = f"unrecognized arguments: -O{value} ({INVALID_GROUP})" if as_flag else INVALID_GROUP
    check_optimization_name(f"O{value}", unknown)
    return f"O{value}"


def build_parser(
    prog: str, description: str, version_extra: str | None = None, **kwargs: object
) -> ArgumentParser:
    """A parser with the options ``onecc`` and ``one-build`` share: ``-v``, ``-V``, ``-C``,
    ``-O``, ``--dry-run``; ``version_extra`` is a line ``-v`` prints after the version."""
    parser = ArgumentParser(prog=prog, description=description, **kwargs)
    add_version(parser, version_extra)
    add_verbose(parser)
    add_config(parser)
    add_optimization(parser)
    add_dry_run(parser)
    return parser


@dataclass
class Invocation:
    """One program run: its name, the parser in use (for usage lines) and ``-V``."""

    prog: str
    parser: argparse.ArgumentParser | None = None
    verbose: bool = False


def run(prog: str, body: Callable[[Invocation], int]) -> int:
    """Run ``body`` and map what it raises to messages on stderr and an exit code."""
    invocation = Invocation(prog)
    try:
        return body(invocation)
    except ParserExit as done:
        return done.status
    except UsageError as error:
        parser = error.parser if isinstance(error, ArgumentError) else invocation.parser
        if parser is not None:
            sys.stderr.write(parser.format_usage())
        name = parser.prog if parser is not None else prog
        console.error(f"{name}: error: {error.message}")
        return error.exit_code
    except OneCmdsError as error:
        console.error(f"{error.prog or prog}: {error.message}")
        return error.exit_code
    except BrokenPipeError:  # the reader went away (`onecc ... | head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return SIGPIPE_EXIT
    except Exception as error:
        if invocation.verbose:
            traceback.print_exc()
        console.error(f"{prog}: internal error: {type(error).__name__}: {error}")
        return 255
