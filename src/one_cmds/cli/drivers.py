"""Single-step drivers: ``one-import-tflite``, ``one-import-circle``, ``one-import-tf``,
``one-import-onnx``, ``one-import-bcq``, ``one-import-pytorch``,
``one-resize``, ``one-optimize``, ``one-quantize`` (cli-and-config.md §17), ``one-pack`` and
``one-partition`` (backends-and-packaging.md §4, §5); the tool drivers come from
:mod:`one_cmds.cli.backend_drivers`. Each builds the
step's options from its command line (and with ``-C`` its own section) and runs a one-step
plan."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

from one_cmds.cli.app import Invocation, run
from one_cmds.cli.parsers import driver_parser, driver_plan
from one_cmds.cli.plans import run_plans
from one_cmds.config.drivers import DRIVERS


def _run_driver(invocation: Invocation, driver: str, args: list[str]) -> int:
    parser = driver_parser(DRIVERS[driver])
    invocation.parser = parser
    plan = driver_plan(invocation, driver, vars(parser.parse_args(args)))
    return run_plans([plan], dry_run=False, verbose=invocation.verbose)


def run_driver(driver: str, argv: Sequence[str] | None = None) -> int:
    """Run the driver ``driver`` on ``argv`` (default ``sys.argv[1:]``); the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    return run(driver, lambda invocation: _run_driver(invocation, driver, args))


def one_import_tflite(argv: Sequence[str] | None = None) -> int:
    return run_driver("one-import-tflite", argv)


def one_import_circle(argv: Sequence[str] | None = None) -> int:
    return run_driver("one-import-circle", argv)


def one_import_tf(argv: Sequence[str] | None = None) -> int:
    return run_driver("one-import-tf", argv)


def one_import_onnx(argv: Sequence[str] | None = None) -> int:
    from one_cmds.cli import onnx_driver  # options only one-import-onnx-ext knows

    return onnx_driver.one_import_onnx(argv)


def one_import_bcq(argv: Sequence[str] | None = None) -> int:
    return run_driver("one-import-bcq", argv)


def one_import_pytorch(argv: Sequence[str] | None = None) -> int:
    return run_driver("one-import-pytorch", argv)


def one_resize(argv: Sequence[str] | None = None) -> int:
    return run_driver("one-resize", argv)


def one_optimize(argv: Sequence[str] | None = None) -> int:
    return run_driver("one-optimize", argv)


def one_quantize(argv: Sequence[str] | None = None) -> int:
    return run_driver("one-quantize", argv)


def one_codegen(argv: Sequence[str] | None = None) -> int:
    from one_cmds.cli import backend_drivers  # backend lookup loads for these drivers only

    return backend_drivers.one_codegen(argv)


def one_profile(argv: Sequence[str] | None = None) -> int:
    from one_cmds.cli import backend_drivers

    return backend_drivers.one_profile(argv)


def one_infer(argv: Sequence[str] | None = None) -> int:
    from one_cmds.cli import backend_drivers

    return backend_drivers.one_infer(argv)


def one_pack(argv: Sequence[str] | None = None) -> int:
    return run_driver("one-pack", argv)


def one_partition(argv: Sequence[str] | None = None) -> int:
    return run_driver("one-partition", argv)


MAINS: dict[str, Callable[[Sequence[str] | None], int]] = {
    "one-import-tflite": one_import_tflite,
    "one-import-circle": one_import_circle,
    "one-import-tf": one_import_tf,
    "one-import-onnx": one_import_onnx,
    "one-import-bcq": one_import_bcq,
    "one-import-pytorch": one_import_pytorch,
    "one-resize": one_resize,
    "one-optimize": one_optimize,
    "one-quantize": one_quantize,
    "one-pack": one_pack,
    "one-codegen": one_codegen,
    "one-profile": one_profile,
    "one-partition": one_partition,
    "one-infer": one_infer,
}
