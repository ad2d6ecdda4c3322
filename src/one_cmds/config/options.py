"""Option models of the steps this project runs, the driver registry and the step-log command
line (cli-and-config.md §1.3, §17)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from one_cmds.config import tables
from one_cmds.config.checks import (
    Verify,
    verify_optimize,
    verify_quantize,
    verify_required,
)
from one_cmds.config.passes import PASS_NAMES
from one_cmds.config.tables import Option
from one_cmds.config.values import Kind


class DriverOptions(BaseModel):
    """Options every driver has."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    # None: not set for this step; the plan's [profile] value applies (§12).
    generate_profile_data: bool | None = None

    def value(self, key: str) -> object:
        """The value of the option whose configuration key is ``key``."""
        return getattr(self, key.replace("-", "_"))


class StepOptions(DriverOptions):
    """Options of a step that reads one model file and writes one."""

    input_path: str
    output_path: str


class ImportOptions(StepOptions):
    """``one-import-tflite`` and ``one-import-circle`` (§17.2)."""


class OnnxOptions(BaseModel):
    """The options that change an ONNX import (onnx-import.md §2), also taken by the Python
    API (``import_onnx(path, OnnxOptions(unroll_lstm=True))``)."""

    model_config = ConfigDict(extra="forbid")

    unroll_rnn: bool = False
    unroll_lstm: bool = False
    experimental_disable_batchmatmul_unfold: bool = False
    input_shapes: str | None = None
    output_shapes: str | None = None
    dynamic_batch_to_single_batch: bool = False
    nchw_to_nhwc_input_shape: bool = False
    nchw_to_nhwc_output_shape: bool = False
    disable_transpose_propagation: bool = False


class ImportOnnxOptions(StepOptions, OnnxOptions):
    """``one-import-onnx`` (onnx-import.md §2). ``keep_io_order`` is always in effect (names and
    order are never rewritten); the reference's options without effect are not kept."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    keep_io_order: bool = False


class ResizeOptions(StepOptions):
    """``one-resize`` (§17.5); ``input_shapes`` is the shape string of resize.md §2."""

    input_shapes: str


class OptimizeOptions(StepOptions):
    """``one-optimize`` (§17.3). ``passes`` maps every pass name, in table order, to enabled."""

    change_outputs: list[str] | None = None
    disable_validation: bool = False
    mute_warnings: bool = False
    verify: bool = False
    passes: dict[str, bool] = Field(default_factory=lambda: dict.fromkeys(PASS_NAMES, False))

    @field_validator("passes")
    @classmethod
    def _every_pass(cls, passes: dict[str, bool]) -> dict[str, bool]:
        unknown = sorted(set(passes) - set(PASS_NAMES))
        if unknown:
            raise ValueError(f"unknown passes: {' '.join(unknown)}")
        return {name: bool(passes.get(name, False)) for name in PASS_NAMES}

    @property
    def enabled_passes(self) -> list[str]:
        """Names of the enabled passes, in table order."""
        return [name for name, enabled in self.passes.items() if enabled]

    def value(self, key: str) -> object:
        return self.passes[key] if key in self.passes else super().value(key)


class QuantizeOptions(StepOptions):
    """``one-quantize`` (§17.4) after defaults and verification."""

    input_data: str | None = None
    input_data_format: Literal["h5", "list", "dir", "npz", "npy"] = "h5"
    save_intermediate: bool = False
    input_model_dtype: str = "float32"
    quantized_dtype: Literal["uint8", "int16"] = "uint8"
    granularity: Literal["layer", "channel"] = "layer"
    # One value for every input (output) or one per input (output); default [quantized_dtype].
    input_type: list[str] | None = None
    output_type: list[str] | None = None
    min_percentile: float = 1.0
    max_percentile: float = 99.0
    moving_avg_batch: int = 16
    moving_avg_const: float = 0.1
    mode: Literal["percentile", "moving_average"] = "percentile"
    TF_style_maxpool: bool = Field(False, alias="TF-style_maxpool")
    quant_config: str | None = None
    evaluate_result: bool = False
    test_data: str | None = None
    print_mae: bool = False
    print_mape: bool = False
    print_mpeir: bool = False
    print_top1_match: bool = False
    print_top5_match: bool = False
    print_mse: bool = False
    force_quantparam: bool = False
    tensor_name: list[str] = Field(default_factory=list)
    scale: list[float] = Field(default_factory=list)
    zero_point: list[int] = Field(default_factory=list)
    copy_quantparam: bool = False
    src_tensor_name: list[str] = Field(default_factory=list)
    dst_tensor_name: list[str] = Field(default_factory=list)
    fake_quantize: bool = False
    requantize: bool = False
    ampq: bool = False
    ampq_qerror_ratio: float | None = None
    ampq_algorithm: Literal["bisection", "pattern"] = "bisection"
    bisection_type: Literal["auto", "i16_front", "i16_back"] = "auto"
    u8_layernorm_with_s16_variance: bool = False
    u8_softmax_with_s16_sub_exp: bool = False
    ampq_bisection_visq: str | None = None
    # What the step does (dispatch precedence of quantization.md §2).
    action: Literal[
        "ampq", "force_quantparam", "copy_quantparam", "fake_quantize", "requantize", "default"
    ] = "default"


class PackOptions(StepOptions):
    """``one-pack`` (backends-and-packaging.md §4): ``output_path`` is a directory."""


class PartitionOptions(DriverOptions):
    """``one-partition`` (backends-and-packaging.md §5.1)."""

    backends: str | None = None
    default: str | None = None
    part_file: str
    input_file: str
    work_path: str | None = None

    @property
    def work(self) -> str:
        """The work directory (default: the current one)."""
        return self.work_path or "."

    @property
    def input_path(self) -> str:
        """``<work>/<input_file>``: the model the step partitions."""
        return os.path.join(self.work, self.input_file)

    @property
    def output_path(self) -> str:
        """The work directory, where the partitions are written."""
        return self.work

    @property
    def log_path(self) -> str:
        return os.path.join(self.work, self.part_file) + ".log"


class InferOptions(DriverOptions):
    """``one-infer`` (backends-and-packaging.md §3)."""

    driver: str
    post_process: str | None = None
    command: str | None = None


@dataclass(frozen=True)
class DriverSpec:
    """A driver this project runs: its section, option table, model and verification."""

    name: str
    description: str
    options: tuple[Option, ...]
    model: type[DriverOptions]
    verify: Verify

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
            ImportOptions,
            verify_required(tables.IMPORT_OPTIONS),
        ),
        DriverSpec(
            "one-import-circle",
            "command line tool to import a circle model",
            tables.IMPORT_OPTIONS,
            ImportOptions,
            verify_required(tables.IMPORT_OPTIONS),
        ),
        DriverSpec(
            "one-import-onnx",
            "command line tool to convert ONNX to circle",
            tables.IMPORT_ONNX_OPTIONS,
            ImportOnnxOptions,
            verify_required(tables.IMPORT_ONNX_OPTIONS),
        ),
        DriverSpec(
            "one-resize",
            "command line tool to change shape of model inputs",
            tables.RESIZE_OPTIONS,
            ResizeOptions,
            verify_required(tables.RESIZE_OPTIONS, bare=True),
        ),
        DriverSpec(
            "one-optimize",
            "command line tool to optimize circle model",
            tables.OPTIMIZE_OPTIONS,
            OptimizeOptions,
            verify_optimize(tables.OPTIMIZE_OPTIONS),
        ),
        DriverSpec(
            "one-quantize",
            "command line tool to quantize circle model",
            tables.QUANTIZE_OPTIONS,
            QuantizeOptions,
            verify_quantize(tables.QUANTIZE_OPTIONS),
        ),
        DriverSpec(
            "one-pack",
            "command line tool to package circle and metadata into nnpackage",
            tables.PACK_OPTIONS,
            PackOptions,
            verify_required(tables.PACK_OPTIONS),
        ),
        DriverSpec(
            "one-partition",
            "command line tool to partition circle model by multiple backends",
            tables.PARTITION_OPTIONS,
            PartitionOptions,
            verify_required(tables.PARTITION_OPTIONS, bare=True),
        ),
        DriverSpec(
            "one-infer",
            "command line tool to infer model",
            tables.INFER_OPTIONS,
            InferOptions,
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
