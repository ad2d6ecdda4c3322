"""The default quantization pipeline (quantization.md §1, §7 stage 1, §14): weights
fake-quantization, calibration, quantize-with-minmax."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np

from ..ir import Graph, Model, QuantParam, Tensor
from .activations import fixed_output_qparams, general_int16_scales, quantize_activations
from .bias_correction import CORRECTED, WeightError
from .calibration import record_minmax, store_ranges
from .clip_search import clip_ranges
from .constants import quantize_activation_constants, quantize_biases, quantize_weights_of
from .data import Record
from .divisors import keep_divisors_off_zero
from .errors import QuantizeError
from .float_islands import keep_operators_float
from .integer_forms import rewrite_integer_forms
from .io_types import set_input_types, set_output_types
from .mixed_precision import (
    Precision,
    insert_quantize_ops,
    load_precision,
    remove_redundant_quantize,
)
from .options import CalibrationMode, CalibrationOptions, QuantConfig, QuantizationOptions
from .propagation import backward, forward, requantize_joined_inputs, share_compared_qparams
from .quiet_variances import widen_quiet_variances
from .softmax_inputs import narrow_softmax_inputs
from .weights import WEIGHT_CHANNEL_AXIS, fake_quantized


def check_supported(dtype: str, granularity: str) -> None:
    """A ``quant_config`` layer's dtype and granularity, checked like the model's (§12)."""
    if dtype not in ("uint8", "int16", "int8"):
        raise QuantizeError("Unsupported output type")
    if granularity not in ("layer", "channel"):
        raise QuantizeError("Unsupported granularity")
    if dtype == "int16" and granularity != "channel":
        raise QuantizeError("Layer-wise quantization only supports uint8 dtype.")


def fake_quantize_weights(
    model: Model,
    dtype: str,
    granularity: str,
    quant_config: QuantConfig | None = None,
    keep_errors: bool = False,
) -> list[WeightError]:
    """Stage 1: clear every qparam, then replace each float weight of the four weighted
    operators by its quantized-dequantized values, recording min, max, scale and zero point.
    With ``quant_config`` (§12), listed operators use their own dtype and granularity. With
    ``keep_errors``, the weight errors of the operators bias correction corrects."""
    precision = _precision(model, quant_config, dtype, granularity)
    errors: list[WeightError] = []
    for graph in model.graphs:
        for t in graph.referenced_tensors():
            t.quant = None
        for op in graph.operators:
            spec = WEIGHT_CHANNEL_AXIS.get(op.opcode)
            w = op.inputs[spec[0]] if spec else None
            if w is None or w.dtype != "FLOAT32" or not w.is_constant:
                continue
            layer = precision.of(op)
            axis = spec[1] if layer.granularity == "channel" else None
            values, ranges = fake_quantized(w.data, layer.dtype, axis)
            new = Tensor.constant(w.name, values, "FLOAT32")
            new.quant = QuantParam(
                scale=ranges.scale,
                zero_point=ranges.zero_point,
                min=ranges.nudged_min,
                max=ranges.nudged_max,
            )
            op.inputs[spec[0]] = new
            if keep_errors and op.opcode in CORRECTED:
                errors.append(WeightError(op, w.data.astype(np.float32) - values))
    return errors


def calibrate(
    model: Model,
    data: Iterable[Record],
    options: CalibrationOptions,
    note: Callable[[str], None] | None = None,
    again: Callable[[], Iterable[Record]] | None = None,
) -> int:
    """Stage 2: record the activation ranges on the model of stage 1; the number of records.
    ``mode=mse`` runs the records a second time (``again`` reads them anew; without it the
    first pass keeps them) to search each range's clip (clip_search.py)."""
    workers = options.calibration_workers
    mse = options.mode == CalibrationMode.mse
    if mse and again is None:
        data = list(data)
    minmax = record_minmax(model, data, note=note, engine=options.engine, workers=workers)
    store_ranges(minmax, options)
    if mse:
        tensors = list(minmax.tensors.values())
        second = data if again is None else again()
        shrunk = clip_ranges(model, tensors, second, options.engine, note)
        if note is not None:
            note(f"calibration: mse clip search shrank {shrunk} of {len(tensors)} ranges")
    return minmax.records


def quantize_with_minmax(model: Model, options: QuantizationOptions) -> list[str]:
    """Stage 3, in the order of §14; returns a line per int8 layer norm whose variance
    computes in int16 (quiet_variances.py) and per operator kept float for a reason the user
    should know (float_islands.py)."""
    dtype, granularity = options.quantized_dtype, options.granularity
    precision = _precision(model, options.quant_config, dtype, granularity)
    graph = model.main
    rewrite_integer_forms(graph)
    widened = widen_quiet_variances(model, precision)
    narrow_softmax_inputs(graph)
    quantize_activations(graph, dtype)
    insert_quantize_ops(model, precision)
    kept_float = keep_operators_float(graph)
    keep_divisors_off_zero(graph)
    backward(graph)
    share_compared_qparams(graph)
    quantize_activation_constants(graph, precision)
    fixed_output_qparams(graph, dtype)
    forward(graph)
    requantize_joined_inputs(graph)
    quantize_weights_of(graph, precision)
    quantize_biases(graph, precision)
    general_int16_scales(graph)
    set_input_types(model, options.input_type, dtype)
    set_output_types(model, options.output_type, dtype)
    remove_redundant_quantize(model)
    _settle_quantparams(graph, options.save_min_max)
    return widened + kept_float


def _settle_quantparams(graph: Graph, save_min_max: bool) -> None:
    """Drop the quantparams without a scale; drop min/max from the others unless
    ``save_min_max`` keeps them."""
    for t in graph.referenced_tensors():
        q = t.quant
        if q is None or q.scale is None:
            t.quant = None
        elif not save_min_max:
            t.quant = QuantParam(q.scale, q.zero_point, None, None, q.quantized_dimension)


def _precision(
    model: Model, quant_config: QuantConfig | None, dtype: str, granularity: str
) -> Precision:
    """The per-operator dtype and granularity (§12), each setting checked like the model's."""
    precision = load_precision(quant_config, model.main, dtype, granularity)
    for _, layer in precision.listed:
        check_supported(layer.dtype, layer.granularity)
    return precision
