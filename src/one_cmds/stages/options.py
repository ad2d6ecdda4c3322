"""Option models (pydantic) of the steps this project runs (cli-and-config.md §17), holding
typed values only: the configuration parses and checks every string once and builds them
(``config.drivers`` names them); the stages read them."""

from __future__ import annotations

import os

from pydantic import BaseModel, ConfigDict, Field, InstanceOf

from ..frontends.onnx.options import OnnxOptions
from ..ir.shape_list import ShapeList, TorchShapeList, TorchTypeList
from ..quant.options import Action, ChunkType, DataFormat, QuantizationOptions


class DriverOptions(BaseModel):
    """Options every driver has."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)

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


class ImportOnnxOptions(StepOptions, OnnxOptions):
    """``one-import-onnx`` (onnx-import.md §2). ``keep_io_order`` is always in effect (names and
    order are never rewritten); the reference's options without effect are not kept.
    ``extension_args`` are command-line options only ``one-import-onnx-ext`` knows (passed on
    to it, which then runs instead of the built-in importer)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)

    keep_io_order: bool = False
    save_intermediate: bool = False
    force_ext: bool = False
    disable_ext: bool = False
    extension_args: tuple[str, ...] = ()


class ImportPytorchOptions(StepOptions):
    """``one-import-pytorch`` (tf-and-pytorch-import.md §5.1); the ONNX importer's options
    pass on (:meth:`onnx_options`)."""

    python_path: str | None = None
    input_shapes: InstanceOf[TorchShapeList] | None = None
    input_types: InstanceOf[TorchTypeList] | None = None
    save_intermediate: bool = False
    unroll_rnn: bool = False
    unroll_lstm: bool = False
    experimental_disable_batchmatmul_unfold: bool = False
    float32_weights: bool = False
    nchw_to_nhwc_input_shape: bool = False
    nchw_to_nhwc_output_shape: bool = False

    def onnx_options(self) -> OnnxOptions:
        """The options of the ONNX import of the exported model."""
        return OnnxOptions(**{key: getattr(self, key) for key in _PASSED_TO_ONNX})


_PASSED_TO_ONNX = (
    "unroll_rnn",
    "unroll_lstm",
    "experimental_disable_batchmatmul_unfold",
    "float32_weights",
    "nchw_to_nhwc_input_shape",
    "nchw_to_nhwc_output_shape",
)


class ResizeOptions(StepOptions):
    """``one-resize`` (§17.5): one shape per input (resize.md §2)."""

    input_shapes: InstanceOf[ShapeList]


class OptimizeOptions(StepOptions):
    """``one-optimize`` (§17.3). ``passes`` maps every pass name, in table order, to enabled."""

    change_outputs: list[str] | None = None
    disable_validation: bool = False
    mute_warnings: bool = False
    verify: bool = False
    passes: dict[str, bool] = Field(default_factory=dict)

    @property
    def enabled_passes(self) -> list[str]:
        """Names of the enabled passes, in table order."""
        return [name for name, enabled in self.passes.items() if enabled]

    def value(self, key: str) -> object:
        return self.passes[key] if key in self.passes else super().value(key)


class QuantizeOptions(StepOptions, QuantizationOptions):
    """``one-quantize`` (§17.4) after defaults and verification."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)

    input_data: str | None = None
    input_data_format: DataFormat = DataFormat.h5
    save_intermediate: bool = False
    input_model_dtype: str = "float32"
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
    ampq_algorithm: str = "bisection"
    bisection_type: str = "auto"
    u8_layernorm_with_s16_variance: bool = False
    u8_softmax_with_s16_sub_exp: bool = False
    ampq_bisection_visq: str | None = None
    quantize_weights: bool = False
    block_size: int = 32
    quantize_weights_chunk: ChunkType | None = None
    skip_chunkquant_size: int = 0
    action: Action = Action.default


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
