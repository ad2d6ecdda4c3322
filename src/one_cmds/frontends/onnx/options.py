"""The options that change an ONNX import (onnx-import.md §2), as typed values: the step's
options and the Python API (``import_onnx(path, OnnxOptions(unroll_lstm=True))``) share them."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, InstanceOf

from ...ir.shape_list import NamedShapeList


class OnnxOptions(BaseModel):
    """``input_shapes``/``output_shapes`` are parsed shape strings (``name[d,...]`` entries)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    unroll_rnn: bool = False
    unroll_lstm: bool = False
    experimental_disable_batchmatmul_unfold: bool = False
    float32_weights: bool = False
    input_shapes: InstanceOf[NamedShapeList] | None = None
    output_shapes: InstanceOf[NamedShapeList] | None = None
    dynamic_batch_to_single_batch: bool = False
    nchw_to_nhwc_input_shape: bool = False
    nchw_to_nhwc_output_shape: bool = False
    disable_transpose_propagation: bool = False
