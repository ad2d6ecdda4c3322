"""``one-build``: the legacy form of ``onecc -C`` reading ``[one-build]`` (cli-and-config.md
§9.1)."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from one_cmds.cli.app import Invocation, build_parser, optimization_group, run
from one_cmds.cli.plans import run_plans
from one_cmds.config.load import plan_from_config
from one_cmds.errors import UsageError


def _one_build(invocation: Invocation, argv: list[str]) -> int:
    parser = build_parser("one-build", "command line tool to run ONE drivers in customized order")
    invocation.parser = parser
    args = parser.parse_args(argv)
    invocation.verbose = args.verbose
    if args.config is None:
        raise UsageError("-C/--config argument is required")
    group = optimization_group(args.O)
    plan = plan_from_config(args.config, optimization=group, legacy=True)
    return run_plans([plan], dry_run=args.dry_run, verbose=args.verbose)


def main(argv: Sequence[str] | None = None) -> int:
    """``one-build``; returns the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    return run("one-build", lambda invocation: _one_build(invocation, args))


if __name__ == "__main__":
    sys.exit(main())
