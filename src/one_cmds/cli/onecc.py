"""``onecc``: run a configuration (``-C``) or a workflow (``-W``), or dispatch a sub-command
(cli-and-config.md §2-§6)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import NamedTuple

from one_cmds.backends.lookup import backend_listing
from one_cmds.cli.app import (
    ArgumentParser,
    Invocation,
    build_parser,
    optimization_group,
    run,
)
from one_cmds.cli.one_import import forward
from one_cmds.errors import UsageError
from one_cmds.report.console import warn


class Subcommand(NamedTuple):
    group: str
    help: str
    program: str


COMPILE = "compile to circle model"
BACKEND_TOOLS = "run backend tools"
SUBCOMMANDS = {
    "import": Subcommand(COMPILE, "Convert given model to circle", "one-import"),
    "optimize": Subcommand(COMPILE, "Optimize circle model", "one-optimize"),
    "quantize": Subcommand(COMPILE, "Quantize circle model", "one-quantize"),
    "resize": Subcommand(COMPILE, "Resize inputs of circle model", "one-resize"),
    "pack": Subcommand(
        "package circle model", "Package circle and metadata into nnpackage", "one-pack"
    ),
    "codegen": Subcommand(BACKEND_TOOLS, "Code generation tool", "one-codegen"),
    "profile": Subcommand(BACKEND_TOOLS, "Profile backend model file", "one-profile"),
    "infer": Subcommand(BACKEND_TOOLS, "Infer backend model file", "one-infer"),
}
USAGE = (
    "%(prog)s [-h] [-v] [-V] [-C CONFIG] [-W WORKFLOW] [-O OPTIMIZATION] "
    "[-b BACKEND | -T TARGET] [--dry-run] [--ray [ADDRESS]] [COMMAND <args>]"
)


class _HelpOnly(argparse.Action):
    """A sub-command shown in the help; it consumes no argument."""

    def __call__(self, *args: object, **kwargs: object) -> None:
        return None


def onecc_parser() -> ArgumentParser:
    found = backend_listing()
    parser = build_parser(
        "onecc",
        "Run ONE driver via several commands or configuration file",
        version_extra=found,
        usage=USAGE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("-W", "--workflow", default=None, help="run with workflow file")
    parser.add_argument(
        "-b", "--backend", default=None, help=f"generate code for given backend ({found})"
    )
    parser.add_argument(
        "-T", "--target", default=None, help="run with specific target of the backend"
    )
    parser.add_argument("-S", "--section", default=None, help=argparse.SUPPRESS)
    parser.add_argument(
        "--ray",
        nargs="?",
        const="",  # engines.ray_cluster.LOCAL (not imported for --help: engines is heavy)
        default=None,
        metavar="ADDRESS",
        help="use a Ray cluster (one-cmds[ray]): with -W each workflow is a Ray task, with -C "
        "the cluster is there for the build; ADDRESS 'auto' joins the running cluster, "
        "host:port a given one, none starts a local cluster (default: $ONECC_RAY_ADDRESS)",
    )
    groups: dict[str, argparse._ArgumentGroup] = {}
    for name, command in SUBCOMMANDS.items():
        if command.group not in groups:
            groups[command.group] = parser.add_argument_group(command.group)
        groups[command.group].add_argument(
            name, nargs=0, action=_HelpOnly, default=argparse.SUPPRESS, help=command.help
        )
    return parser


def _dispatch(invocation: Invocation, command: str, args: list[str]) -> int:
    """Hand the arguments, unparsed, to the sub-command's driver (§2)."""
    if command == "import":
        return forward(invocation, args)
    program = SUBCOMMANDS[command].program
    from one_cmds.cli.drivers import MAINS  # the drivers' option models load on demand

    return MAINS[program](args)


def _check_arguments(args: argparse.Namespace) -> str | None:
    """The argument checks of §5 (1-4, exit 2); the ``-O`` group name."""
    if args.config is None and args.workflow is None:
        raise UsageError("-C/--config or -W/--workflow argument is required")
    group = optimization_group(args.O, as_flag=True)
    if args.backend is not None and args.workflow is not None:
        raise UsageError("'backend' option can be used only with 'config' option")
    if args.backend is not None and args.target is not None:
        raise UsageError(
            "'backend' and 'target' are mutually exclusive option. 'target' option "
            "automatically set a backend."
        )
    return group


def _onecc(invocation: Invocation, argv: list[str]) -> int:
    if argv and argv[0] in SUBCOMMANDS:
        return _dispatch(invocation, argv[0], argv[1:])
    parser = onecc_parser()
    invocation.parser = parser
    args = parser.parse_args(argv)
    invocation.verbose = args.verbose
    group = _check_arguments(args)
    from one_cmds.cli.plans import run_plans
    from one_cmds.config.load import plan_from_config
    from one_cmds.config.workflow import plans_from_workflow

    if args.config is not None:
        if args.workflow is not None:
            warn("-W/--workflow is ignored because -C/--config is given")
        plans = [
            plan_from_config(
                args.config, optimization=group, backend=args.backend, target=args.target
            )
        ]
    else:
        if group is not None:
            warn("-O has no effect with -W/--workflow and is ignored")
        plans = plans_from_workflow(args.workflow)
    from one_cmds.engines.ray_cluster import requested_address

    address = None if args.dry_run else requested_address(args.ray)
    if address is not None:
        from one_cmds.cli.plans import connect_ray, run_on_ray

        if args.config is None:
            return run_on_ray(args.workflow, plans, address)
        connect_ray(address)
    return run_plans(plans, dry_run=args.dry_run, verbose=args.verbose)


def main(argv: Sequence[str] | None = None) -> int:
    """``onecc``; returns the exit code (console scripts pass it to ``sys.exit``)."""
    args = list(sys.argv[1:] if argv is None else argv)
    return run("onecc", lambda invocation: _onecc(invocation, args))


if __name__ == "__main__":
    sys.exit(main())
