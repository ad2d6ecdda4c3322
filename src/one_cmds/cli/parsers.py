"""Argument parsers of the single-step drivers, built from the option tables of
:mod:`one_cmds.config.tables` (cli-and-config.md §17)."""

from __future__ import annotations

import argparse

from one_cmds.cli.app import (
    ArgumentParser,
    add_config,
    add_optimization,
    add_verbose,
    add_version,
)
from one_cmds.config.options import DriverSpec
from one_cmds.config.values import Kind

_APPENDED = (Kind.STR_LIST, Kind.INT_LIST, Kind.FLOAT_LIST)
# Destinations that are not options of the driver's section.
COMMON_DESTS = ("verbose", "config", "section", "O")


def driver_parser(spec: DriverSpec) -> ArgumentParser:
    """``<driver> [-h] [-v] [-V] [-C CONFIG] <options>``; only given options are set."""
    required = " ".join(
        f"[{o.option_strings[0]} {o.name.upper()}]" for o in spec.options if o.required
    )
    usage = f"%(prog)s [-h] [-v] [-V] [-C CONFIG] {required} [options]"
    parser = ArgumentParser(prog=spec.name, usage=usage, description=spec.description)
    add_version(parser)
    add_verbose(parser)
    add_config(parser)
    parser.add_argument("-S", "--section", default=None, help=argparse.SUPPRESS)
    groups: dict[str, argparse._ArgumentGroup] = {}
    for option in spec.options:
        if not option.cli:
            continue
        if option.name == "O":
            add_optimization(parser, hidden=True)
            continue
        target = parser
        if option.group is not None:
            if option.group not in groups:
                groups[option.group] = parser.add_argument_group(option.group)
            target = groups[option.group]  # type: ignore[assignment]
        action = "store"
        if option.kind is Kind.BOOL:
            action = "store_true"
        elif option.kind in _APPENDED:
            action = "append"
        target.add_argument(
            *option.option_strings,
            dest=option.name,
            action=action,
            default=argparse.SUPPRESS,
            help=argparse.SUPPRESS if option.hidden else option.help,
        )
    return parser
