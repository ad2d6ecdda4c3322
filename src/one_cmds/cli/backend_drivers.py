"""``one-codegen``, ``one-profile`` and ``one-infer`` (backends-and-packaging.md §1.2, §2,
§3): options, the split at ``--`` and a one-step plan of tool calls."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from one_cmds.backends.calls import ToolOptions
from one_cmds.backends.lookup import backend_help
from one_cmds.cli.app import (
    ArgumentParser,
    Invocation,
    add_config,
    add_dry_run,
    add_verbose,
    add_version,
    run,
)
from one_cmds.cli.parsers import driver_parser
from one_cmds.cli.plans import run_plans
from one_cmds.config.backend_steps import (
    CODEGEN,
    PROFILE,
    BackendDriver,
    BackendRequest,
    backend_calls,
    infer_calls,
)
from one_cmds.config.drivers import DRIVERS, step_of
from one_cmds.config.load import plan_from_arguments
from one_cmds.config.reader import read_config
from one_cmds.config.sections import read_environment, read_target
from one_cmds.pipeline import Plan, environment

BACKEND_USAGE = (
    "%(prog)s [-h] [-v] [-C CONFIG] [-b BACKEND] [-T TARGET] [--] [COMMANDS FOR BACKEND]"
)
INFER_USAGE = (
    "%(prog)s [-h] [-v] [-C CONFIG] [-d DRIVER] [--post-process POST_PROCESS] [--] "
    "[COMMANDS FOR BACKEND DRIVER]"
)
INFER_EPILOG = """\
--post-process runs a python script after the inference driver succeeds, for example to
convert the driver's output data to a standard format. Give the script and its arguments
as one string:

  one-infer -d dummy-infer --post-process "script.py arg1 arg2" -- [arguments for dummy-infer]
"""


def split_at_dashes(argv: list[str]) -> tuple[list[str], list[str] | None]:
    """The arguments before the first ``--`` and those after it (None without ``--``)."""
    if "--" not in argv:
        return argv, None
    index = argv.index("--")
    return argv[:index], argv[index + 1 :]


def backend_parser(driver: BackendDriver) -> ArgumentParser:
    parser = ArgumentParser(prog=driver.name, usage=BACKEND_USAGE, description=driver.description)
    add_version(parser)
    add_verbose(parser)
    add_config(parser)
    parser.add_argument("-S", "--section", default=None, help=argparse.SUPPRESS)
    parser.add_argument("-b", "--backend", default=None, help=backend_help(driver.suffix))
    parser.add_argument(
        "-T", "--target", default=None, help="run with specific target of the backend"
    )
    add_dry_run(parser)
    return parser


def _run_backend(invocation: Invocation, driver: BackendDriver, argv: list[str]) -> int:
    parser = backend_parser(driver)
    invocation.parser = parser
    before, after = split_at_dashes(argv)
    if after is None:
        args, unknown = parser.parse_known_args(before)
        after = unknown or None  # without ``--``, unknown arguments are the backend's
    else:
        args = parser.parse_args(before)
    invocation.verbose = args.verbose
    request = BackendRequest(backend=args.backend, target=args.target, after=after)
    plan = Plan()
    section = None
    if args.config is not None:
        config = read_config(os.path.expanduser(args.config))
        section = args.section or driver.name
        if section not in config.sections:
            message = f"configuration file must have '{section}' section"
            raise config.source().error(message)
        request.section = config.sections[section]
        request.source = config.source(section)
        request.config_target = read_target(config)
        plan = Plan(environment=read_environment(config), config_path=config.path)
    with environment(plan.environment):
        calls = backend_calls(driver, request)
    plan.steps.append(step_of(driver.name, ToolOptions(calls), section))
    return run_plans([plan], dry_run=args.dry_run, verbose=args.verbose)


def _run_infer(invocation: Invocation, argv: list[str]) -> int:
    parser = driver_parser(
        DRIVERS["one-infer"],
        usage=INFER_USAGE,
        epilog=INFER_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_dry_run(parser)
    invocation.parser = parser
    before, after = split_at_dashes(argv)
    given = vars(parser.parse_args(before))
    invocation.verbose = given.pop("verbose")
    dry_run = given.pop("dry_run")
    config, section = given.pop("config"), given.pop("section")
    plan = plan_from_arguments("one-infer", given, config=config, section=section)
    step = plan.steps[0]
    step.options = ToolOptions(infer_calls(step.options, after or []))
    if config is not None:
        plan.environment = read_environment(read_config(os.path.expanduser(config)))
    return run_plans([plan], dry_run=dry_run, verbose=invocation.verbose)


def _args(argv: Sequence[str] | None) -> list[str]:
    return list(sys.argv[1:] if argv is None else argv)


def one_codegen(argv: Sequence[str] | None = None) -> int:
    args = _args(argv)
    return run(CODEGEN.name, lambda invocation: _run_backend(invocation, CODEGEN, args))


def one_profile(argv: Sequence[str] | None = None) -> int:
    args = _args(argv)
    return run(PROFILE.name, lambda invocation: _run_backend(invocation, PROFILE, args))


def one_infer(argv: Sequence[str] | None = None) -> int:
    args = _args(argv)
    return run("one-infer", lambda invocation: _run_infer(invocation, args))
