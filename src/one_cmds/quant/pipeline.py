"""The default quantization pipeline (quantization.md §1, §7 stage 1, §14): weights
fake-quantization, calibration, quantize-with-minmax."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np

from ..ir import Model, QuantParam, Tensor
from .activations import fixed_output_qparams, quantize_activations
from .calibration import record_minmax, store_ranges
from .constants import quantize_activation_constants, quantize_biases, quantize_weights_of
from .data import Record
from .errors import QuantizeError
from .io_types import set_input_types, set_output_types
from .propagation import backward, forward
from .weights import WEIGHT_CHANNEL_AXIS, fake_quantized


def check_supported(dtype: str, granularity: str) -> None:
    if dtype not in ("uint8", "int16"):
        raise QuantizeError("Unsupported output type")
    if granularity not in ("layer", "channel"):
        raise QuantizeError("Unsupported granularity")
    if dtype == "int16" and granularity != "channel":
        raise QuantizeError("Layer-wise quantization only supports uint8 dtype.")


def fake_quantize_weights(model: Model, dtype: str, granularity: str) -> None:
    """Stage 1: clear every qparam, then replace each float weight of the four weighted
    operators by its quantized-dequantized values, recording min, max, scale and zero point."""
    for graph in model.graphs:
        for t in graph.referenced_tensors():
            t.quant = None
        for op in graph.operators:
            spec = WEIGHT_CHANNEL_AXIS.get(op.opcode)
            w = op.inputs[spec[0]] if spec else None
            if w is None or w.dtype != "FLOAT32" or not w.is_constant:
                continue
            axis = spec[1] if granularity == "channel" else None
            values, ranges = fake_quantized(w.data, dtype, axis)
            new = Tensor.constant(w.name, values, "FLOAT32")
            new.quant = QuantParam(
                scale=np.array([r.scale for r in ranges], np.float32),
                zero_point=np.array([r.zero_point for r in ranges], np.int64),
                min=np.array([r.nudged_min for r in ranges], np.float32),
                max=np.array([r.nudged_max for r in ranges], np.float32),
            )
            op.inputs[spec[0]] = new


def calibrate(
    model: Model, data: Iterable[Record], options, note: Callable[[str], None] | None = None
) -> None:
    """Stage 2: record the activation ranges on the model of stage 1."""
    store_ranges(record_minmax(model, data, note=note), options)


def quantize_with_minmax(model: Model, options) -> None:
    """Stage 3, in the order of §14."""
    dtype, granularity = options.quantized_dtype, options.granularity
    if options.quant_config:
        raise QuantizeError("quant_config (mixed precision) is not implemented yet")
    graph = model.main
    quantize_activations(graph, dtype)
    backward(graph, dtype)
    quantize_activation_constants(graph, dtype, granularity)
    fixed_output_qparams(graph, dtype)
    forward(graph, tf_style_maxpool=options.TF_style_maxpool)
    quantize_weights_of(graph, dtype, granularity)
    quantize_biases(graph, dtype)
    set_input_types(model, options.input_type, dtype)
    set_output_types(model, options.output_type, dtype)
    for t in graph.referenced_tensors():
        q = t.quant
        if q is not None:
            keep = q.scale is not None
            t.quant = (
                QuantParam(q.scale, q.zero_point, None, None, q.quantized_dimension)
                if keep
                else None
            )
