"""How a model is quantized, as typed values (quantization.md §2, §3, §12, §18): the choices
as enums, the parsed ``quant_config`` and the option groups the quantizer reads. The
configuration builds them (every string parsed and checked there, once); the one-quantize
step's options (``stages.options.QuantizeOptions``) add the step's own."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, InstanceOf


class Choice(str, Enum):
    """A choice of a fixed set, equal to (and printed as) its string."""

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)


class QuantDtype(Choice):
    """``quantized_dtype``: the integer type of activations and weights."""

    uint8 = "uint8"
    int16 = "int16"
    int8 = "int8"  # project addition for LiteRT (§24)
    int4 = "int4"  # project addition, weights-only (§21) only


class Granularity(Choice):
    """``granularity``: one qparam per tensor, or per output channel of the weights."""

    layer = "layer"
    channel = "channel"
    block = "block"  # project addition: int4 weights-only FULLY_CONNECTED (§21.2)


class ChunkType(Choice):
    """``quantize_weights_chunk``: the GGML block type of LLM weights (§22)."""

    q4_0 = "q4_0"
    q8_0 = "q8_0"

    @property
    def ggml_dtype(self) -> str:
        """The tensor type of the converted weights (``GGML_Q4_0``, ``GGML_Q8_0``)."""
        return f"GGML_{self.value.upper()}"


class CalibrationMode(Choice):
    """``mode``: how per-record minima and maxima become a range (§8)."""

    percentile = "percentile"
    moving_average = "moving_average"
    mse = "mse"  # one-cmds addition: the clip of least squared error (clip_search.py)


class DataFormat(Choice):
    """``input_data_format`` after its aliases (``hdf5``, ``filelist``, ``directory``)."""

    h5 = "h5"
    list = "list"
    dir = "dir"
    npz = "npz"
    npy = "npy"


class Action(Choice):
    """What the step does, by the dispatch precedence of §2 (``default`` when no flag is set)."""

    ampq = "ampq"
    force_quantparam = "force_quantparam"
    copy_quantparam = "copy_quantparam"
    fake_quantize = "fake_quantize"
    requantize = "requantize"
    # §21-§22: GGML blocks first when both are set, then weights-only int8/int16/int4
    quantize_weights_chunk = "quantize_weights_chunk"
    quantize_weights = "quantize_weights"
    default = "default"


IoType = Literal["uint8", "int16", "int8", "float32", "int32", "int64", "bool"]


@dataclass(frozen=True)
class QuantConfig:
    """A ``quant_config`` file (§12), read and decoded once: its path and its JSON object."""

    path: str
    data: dict[str, Any]

    def __str__(self) -> str:
        return self.path


class CalibrationOptions(BaseModel):
    """How the recorded per-record minima and maxima become ranges (§8)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)

    mode: CalibrationMode = CalibrationMode.percentile
    min_percentile: float = 1.0
    max_percentile: float = 99.0
    moving_avg_batch: int = 16
    moving_avg_const: float = 0.1
    # What runs the model (one_cmds.engines.choice): the ranges are the same within rounding.
    engine: Literal["auto", "litert", "reference"] = "auto"
    # Ray actors that calibrate shards of the records with ``onecc --ray`` (same ranges).
    calibration_workers: int = 1


class QuantizationOptions(CalibrationOptions):
    """What quantize-with-minmax reads (§14)."""

    quantized_dtype: QuantDtype = QuantDtype.uint8
    granularity: Granularity = Granularity.layer
    quant_config: InstanceOf[QuantConfig] | None = None
    # Kept for configurations: MAX_POOL_2D always shares its input's qparams (adopted, see
    # quant/propagation.py), which is what the reference does with it set.
    TF_style_maxpool: bool = Field(False, alias="TF-style_maxpool")
    # Keep the recorded min/max in the quantparams (circle-quantizer --save_min_max).
    save_min_max: bool = False
    # Fold the expected output shift of quantized weights into the biases (bias_correction.py).
    bias_correction: bool = False
    # Rescale the channels between two convolutions to equal weight ranges (equalization.py).
    cross_layer_equalization: bool = False
    # One value for every input (output) or one per input (output); default [quantized_dtype].
    input_type: list[IoType] | None = None
    output_type: list[IoType] | None = None
