"""The Python API for front ends written in Python: load, save, build."""

from __future__ import annotations

from typing import Any

from .formats import reader, writer
from .ir import Model
from .pipeline import StepResult, run_plan
from .report.console import warn


def load(path: str) -> Model:
    """Read a ``.tflite`` or ``.circle`` file (format from its identifier) into a Model.

    Origins and the source md5 are stamped as an import step does.
    """
    return reader.load(path, warn=warn)


def save(model: Model, path: str, profile: bool = False) -> int:
    """Write ``model`` as circle, or TFLite when ``path`` ends in ``.tflite``; return the size.

    ``profile=True`` adds ``ONE_source_table``, ``ONE_op_table`` and ``ONE_source_md5``.
    """
    return writer.save(model, path, profile=profile)


def build(
    config_path: str,
    *,
    optimization: str | None = None,
    verbose: bool = False,
    **overrides: dict[str, Any],
) -> list[StepResult]:
    """Run a configuration like ``onecc -C config_path`` and return the per-step results.

    Each keyword names a section (``one_optimize`` for ``[one-optimize]``) and maps option
    names to values that take precedence over the file, like command-line options;
    ``optimization`` is the ``-O`` group name. ``[Environment]`` values apply during the call
    only.
    """
    from .config.load import plan_from_config

    cli = {section.replace("_", "-"): dict(values) for section, values in overrides.items()}
    plan = plan_from_config(config_path, cli=cli, optimization=optimization)
    return run_plan(plan, verbose=verbose)
