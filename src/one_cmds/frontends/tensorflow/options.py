"""The options that change a TensorFlow import (tf-and-pytorch-import.md §3.1), as typed
values: the steps' options and the Python API share them."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, InstanceOf

from ...ir.shape_list import ShapeList

ConverterVersion = Literal["v1", "v2"]
ModelFormat = Literal["graph_def", "saved_model", "keras_model"]


class TfOptions(BaseModel):
    """``input_arrays``/``output_arrays`` are TensorFlow names (``name`` or ``name:port``);
    ``input_shapes`` holds one shape per input array (graph_def only)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    converter_version: ConverterVersion = "v1"
    model_format: ModelFormat = "graph_def"
    input_arrays: list[str] | None = None
    input_shapes: InstanceOf[ShapeList] | None = None
    output_arrays: list[str] | None = None
    experimental_disable_batchmatmul_unfold: bool = False
