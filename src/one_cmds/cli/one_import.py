"""``one-import``: the generic import driver. ``one-import <driver> [-C cfg] <args>`` runs
``one-import-<driver>`` on the remaining arguments (and ``-C``), unparsed, as
``onecc import`` does (cli-and-config.md §2)."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from one_cmds.cli.app import ArgumentParser, Invocation, add_version, run

IMPORT_DRIVERS = ("tflite", "circle", "tf", "onnx", "bcq", "pytorch")


def import_parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog="one-import", description="command line tool to convert various format to circle"
    )
    parser.add_argument("-C", "--config", default=None, help="run with configuation file")
    parser.add_argument(
        "driver", choices=IMPORT_DRIVERS, help=f"driver name to run ({', '.join(IMPORT_DRIVERS)})"
    )
    add_version(parser)
    return parser


def forward(invocation: Invocation, args: list[str]) -> int:
    """Run the driver ``args`` name on the rest; a driver name first hands everything after it
    (``-h`` included) to the driver, else ``-C`` and the name are parsed off ``args``."""
    parser = import_parser()
    invocation.parser = parser
    if args and args[0] in IMPORT_DRIVERS:
        driver, rest = args[0], args[1:]
    else:
        known, rest = parser.parse_known_args(args)
        driver = known.driver
        if known.config is not None:
            rest = ["-C", known.config, *rest]
    from one_cmds.cli.drivers import MAINS  # the drivers' option models load on demand

    return MAINS[f"one-import-{driver}"](rest)


def main(argv: Sequence[str] | None = None) -> int:
    """``one-import``; returns the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    return run("one-import", lambda invocation: forward(invocation, args))
