"""Argument parsers of the single-step drivers, built from the option tables of
:mod:`one_cmds.config.tables` (cli-and-config.md §17), and the plan of a parsed command line."""

from __future__ import annotations

import argparse
from typing import Any

from one_cmds.cli.app import (
    ArgumentParser,
    Invocation,
    add_config,
    add_optimization,
    add_verbose,
    add_version,
    optimization_group,
)
from one_cmds.config.drivers import DriverSpec
from one_cmds.config.load import plan_from_arguments
from one_cmds.config.tables import Option
from one_cmds.config.values import Kind
from one_cmds.pipeline import Plan

_APPENDED = (Kind.STR_LIST, Kind.INT_LIST, Kind.FLOAT_LIST)
# Destinations that are not options of the driver's section.
COMMON_DESTS = ("verbose", "config", "section", "O")


class _Containers:
    """The argument groups (and mutually exclusive groups) of a parser, made on first use."""

    def __init__(self, parser: ArgumentParser) -> None:
        self.parser = parser
        self.groups: dict[str, argparse._ArgumentGroup] = {}
        self.exclusive: dict[str, argparse._MutuallyExclusiveGroup] = {}

    def of(self, option: Option) -> argparse._ActionsContainer:
        """Where ``option`` is added: its help group, and its exclusive group inside that."""
        target: argparse._ActionsContainer = self.parser
        if option.group is not None:
            if option.group not in self.groups:
                self.groups[option.group] = self.parser.add_argument_group(option.group)
            target = self.groups[option.group]
        if option.exclusive is not None:
            if option.exclusive not in self.exclusive:
                self.exclusive[option.exclusive] = target.add_mutually_exclusive_group()
            target = self.exclusive[option.exclusive]
        return target


def _action(option: Option) -> str:
    if option.kind is Kind.BOOL:
        return "store_true"
    return "append" if option.kind in _APPENDED else "store"


def driver_parser(spec: DriverSpec, **kwargs: object) -> ArgumentParser:
    """``<driver> [-h] [-v] [-V] [-C CONFIG] <options>``; only given options are set.
    ``kwargs`` go to the parser (another ``usage``, an ``epilog``)."""
    required = " ".join(
        f"[{o.option_strings[0]} {o.name.upper()}]" for o in spec.options if o.required
    )
    kwargs.setdefault("usage", f"%(prog)s [-h] [-v] [-V] [-C CONFIG] {required} [options]")
    parser = ArgumentParser(prog=spec.name, description=spec.description, **kwargs)
    add_version(parser)
    add_verbose(parser)
    add_config(parser)
    parser.add_argument("-S", "--section", default=None, help=argparse.SUPPRESS)
    containers = _Containers(parser)
    for option in spec.options:
        if not option.cli:
            continue
        if option.name == "O":
            add_optimization(parser, hidden=True)
            continue
        containers.of(option).add_argument(
            *option.option_strings,
            dest=option.name,
            action=_action(option),
            default=argparse.SUPPRESS,
            help=argparse.SUPPRESS if option.hidden else option.help,
        )
    return parser


def driver_plan(invocation: Invocation, driver: str, given: dict[str, Any]) -> Plan:
    """The one-step plan of a single-step driver's parsed command line ``given``."""
    invocation.verbose = given.pop("verbose")
    config, section = given.pop("config"), given.pop("section")
    group = optimization_group(given.pop("O", None))
    return plan_from_arguments(driver, given, config=config, section=section, optimization=group)
