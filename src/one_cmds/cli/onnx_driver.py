"""``one-import-onnx`` (onnx-import.md §2): a single-step driver whose command line may hold
options only ``one-import-onnx-ext`` knows (``--own_option``). They are accepted when the
extension will receive them (installed beside the program and not disabled), and passed on to
it; otherwise they are argparse's ``unrecognized arguments`` (exit 2)."""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Sequence

from one_cmds.backends.onnx_ext import find_extension
from one_cmds.cli.app import Invocation, run
from one_cmds.cli.parsers import driver_parser, driver_plan
from one_cmds.cli.plans import run_plans
from one_cmds.config.drivers import DRIVERS

DRIVER = "one-import-onnx"


def _run(invocation: Invocation, args: list[str]) -> int:
    parser = driver_parser(DRIVERS[DRIVER])
    invocation.parser = parser
    known, extra = parser.parse_known_args(args)
    plan = driver_plan(invocation, DRIVER, vars(known))
    if extra:
        step = plan.steps[0]
        options = step.options
        if find_extension(options.disable_ext) is None:  # type: ignore[union-attr]
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
        passed = options.model_copy(update={"extension_args": tuple(extra)})  # type: ignore[union-attr]
        command = f"{step.command} {' '.join(extra)}"
        plan.steps[0] = dataclasses.replace(step, options=passed, command=command)
    return run_plans([plan], dry_run=False, verbose=invocation.verbose)


def one_import_onnx(argv: Sequence[str] | None = None) -> int:
    """``one-import-onnx``; returns the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    return run(DRIVER, lambda invocation: _run(invocation, args))
