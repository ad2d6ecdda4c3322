"""The driver registry: each driver's section, option table, option model (by name, loaded on
first use) and verification, and the step-log command line (cli-and-config.md §1.3, §17).

Checking a configuration needs only this module and the option tables, so a configuration
error is reported without loading pydantic or the option models.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from one_cmds.backends.calls import ToolOptions
from one_cmds.config import import_tables, tables, tf_tables
from one_cmds.config.checks import (
    Verify,
    verify_onnx,
    verify_optimize,
    verify_pytorch,
    verify_quantize,
    verify_required,
)
from one_cmds.config.tables import Option
from one_cmds.config.tf_checks import verify_tf
from one_cmds.config.values import Kind
from one_cmds.pipeline.plan import Step

if TYPE_CHECKING:
    from one_cmds.stages.options import DriverOptions


@dataclass(frozen=True)
class DriverSpec:
    """A driver this project runs: its section, option table, model and verification."""

    name: str
    description: str
    options: tuple[Option, ...]
    model_name: str
    verify: Verify

    @property
    def model(self) -> type[DriverOptions]:
        """The option model (pydantic, imported on first use): ``model_name`` is a class of
        :mod:`one_cmds.stages.options`, or ``<module>:<class>`` for another module there."""
        module, _, name = self.model_name.rpartition(":")
        return getattr(importlib.import_module(f"one_cmds.stages.{module or 'options'}"), name)

    @property
    def section(self) -> str:
        return self.name

    @property
    def keys(self) -> tuple[str, ...]:
        """The configuration keys of the section."""
        return tuple(o.name for o in self.options if o.config)

    @property
    def ignored(self) -> frozenset[str]:
        """Keys of options accepted without effect (a warning each)."""
        return frozenset(o.name for o in self.options if o.ignored)

    def option(self, key: str) -> Option:
        return next(o for o in self.options if o.name == key)


_IMPORT_DESCRIPTION = "command line tool to convert TensorFlow lite to circle"

DRIVERS: dict[str, DriverSpec] = {
    spec.name: spec
    for spec in (
        DriverSpec(
            "one-import-tflite",
            _IMPORT_DESCRIPTION,
            tables.IMPORT_OPTIONS,
            "ImportOptions",
            verify_required(tables.IMPORT_OPTIONS),
        ),
        DriverSpec(
            "one-import-circle",
            "command line tool to import a circle model",
            tables.IMPORT_OPTIONS,
            "ImportOptions",
            verify_required(tables.IMPORT_OPTIONS),
        ),
        DriverSpec(
            "one-import-tf",
            "command line tool to convert TensorFlow to circle",
            tf_tables.IMPORT_TF_OPTIONS,
            "tf_options:ImportTfOptions",
            verify_tf(tf_tables.IMPORT_TF_OPTIONS),
        ),
        DriverSpec(
            "one-import-onnx",
            "command line tool to convert ONNX to circle",
            import_tables.IMPORT_ONNX_OPTIONS,
            "ImportOnnxOptions",
            verify_onnx(import_tables.IMPORT_ONNX_OPTIONS),
        ),
        DriverSpec(
            "one-import-bcq",
            "command line tool to convert TensorFlow with BCQ to circle",
            tf_tables.IMPORT_BCQ_OPTIONS,
            "tf_options:ImportBcqOptions",
            verify_tf(tf_tables.IMPORT_BCQ_OPTIONS, ("graph_def",)),
        ),
        DriverSpec(
            "one-import-pytorch",
            "command line tool to convert PyTorch to Circle",
            import_tables.IMPORT_PYTORCH_OPTIONS,
            "ImportPytorchOptions",
            verify_pytorch(import_tables.IMPORT_PYTORCH_OPTIONS),
        ),
        DriverSpec(
            "one-resize",
            "command line tool to change shape of model inputs",
            tables.RESIZE_OPTIONS,
            "ResizeOptions",
            verify_required(tables.RESIZE_OPTIONS, bare=True),
        ),
        DriverSpec(
            "one-optimize",
            "command line tool to optimize circle model",
            tables.OPTIMIZE_OPTIONS,
            "OptimizeOptions",
            verify_optimize(tables.OPTIMIZE_OPTIONS),
        ),
        DriverSpec(
            "one-quantize",
            "command line tool to quantize circle model",
            tables.QUANTIZE_OPTIONS,
            "QuantizeOptions",
            verify_quantize(tables.QUANTIZE_OPTIONS),
        ),
        DriverSpec(
            "one-pack",
            "command line tool to package circle and metadata into nnpackage",
            tables.PACK_OPTIONS,
            "PackOptions",
            verify_required(tables.PACK_OPTIONS),
        ),
        DriverSpec(
            "one-partition",
            "command line tool to partition circle model by multiple backends",
            tables.PARTITION_OPTIONS,
            "PartitionOptions",
            verify_required(tables.PARTITION_OPTIONS, bare=True),
        ),
        DriverSpec(
            "one-infer",
            "command line tool to infer model",
            tables.INFER_OPTIONS,
            "InferOptions",
            verify_required(tables.INFER_OPTIONS),
        ),
    )
}

# Keys some reference driver accepts: in another driver's section they have no effect.
REFERENCE_KEYS = tables.REFERENCE_ONLY_KEYS | {
    key for spec in DRIVERS.values() for key in spec.keys
}


def stored_values(driver: str, options: DriverOptions) -> list[tuple[Option, object]]:
    """Each option kept in the model with its value, in option table order."""
    spec = DRIVERS[driver]
    return [(o, options.value(o.name)) for o in spec.options if o.stored and o.alias_of is None]


def command_line(driver: str, options: DriverOptions) -> str:
    """First line of the step log: ``<step>`` then ``--<flag>`` / ``--<name> <value>`` (§1.3)."""
    parts = [driver]
    for option, value in stored_values(driver, options):
        if value is None or value is False:
            continue
        if value is True:
            parts.append(f"--{option.name}")
        elif option.kind is Kind.CSV:
            parts.append(f"--{option.name} {','.join(value)}")  # type: ignore[arg-type]
        elif isinstance(value, list):
            parts.extend(f"--{option.name} {item}" for item in value)
        else:
            parts.append(f"--{option.name} {value}")
    return " ".join(parts)


def step_of(driver: str, options: DriverOptions | ToolOptions, section: str | None) -> Step:
    """The plan step of a driver; a step that writes a log gets its command line."""
    if isinstance(options, ToolOptions):
        return Step(driver, options, section=section)
    return Step(driver, options, section=section, command=command_line(driver, options))
