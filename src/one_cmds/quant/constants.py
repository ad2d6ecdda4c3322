"""Constant operands (quantization.md §7, §8, §11.3): weights, biases, and float constants
feeding activation inputs, each a new tensor (constants are never changed in place)."""

from __future__ import annotations

import numpy as np

from ..ir import Graph, Operator, QuantParam, Tensor
from .activations import DTYPES
from .bias import bias_scales, quantize_bias
from .errors import QuantizeError
from .mixed_precision import Precision
from .qparams import Ranges
from .weights import WEIGHT_CHANNEL_AXIS, quantize_constant, quantize_weights

ACTIVATION_CONSTANT_OPS = frozenset(
    {
        "ABS", "ARG_MAX", "ARG_MIN", "BATCH_TO_SPACE_ND", "DEPTH_TO_SPACE", "ELU", "EXP",
        "FLOOR", "GATHER", "GELU", "LOCAL_RESPONSE_NORMALIZATION", "LOGISTIC", "MEAN",
        "MIRROR_PAD", "PAD", "REDUCE_ANY", "REDUCE_PROD", "REDUCE_MAX", "REDUCE_MIN", "RESHAPE",
        "RESIZE_BILINEAR", "RESIZE_NEAREST_NEIGHBOR", "REVERSE_SEQUENCE", "RSQRT", "SLICE",
        "SOFTMAX", "SPACE_TO_BATCH_ND", "SPACE_TO_DEPTH", "SPLIT", "SPLIT_V", "SQRT", "SQUEEZE",
        "STRIDED_SLICE", "SUM", "TANH", "TILE", "TOPK_V2", "TRANSPOSE", "UNPACK", "ADD",
        "BATCH_MATMUL", "DIV", "EQUAL", "FLOOR_DIV", "FLOOR_MOD", "GREATER", "GREATER_EQUAL",
        "LESS", "LESS_EQUAL", "MAXIMUM", "MINIMUM", "MUL", "NOT_EQUAL", "POW", "SUB", "ADD_N",
    }
)  # fmt: skip
# Per-element constants: INSTANCE_NORM gamma (1) and beta (2), PRELU alpha (1).
PER_ELEMENT = {"INSTANCE_NORM": (1, 2), "PRELU": (1,)}
BIAS_INDEX = {"CONV_2D": 2, "DEPTHWISE_CONV_2D": 2, "FULLY_CONNECTED": 2, "TRANSPOSE_CONV": 3}
BIAS_INPUT = {"TRANSPOSE_CONV": 2}  # the activation input whose scale the bias uses


def _qparam(ranges: Ranges, axis: int | None) -> QuantParam:
    return QuantParam(
        scale=ranges.scale,
        zero_point=ranges.zero_point,
        min=ranges.nudged_min,
        max=ranges.nudged_max,
        quantized_dimension=0 if axis is None else axis,
    )


def _quantized_copy(t: Tensor, values: np.ndarray, dtype: str, qparam: QuantParam) -> Tensor:
    new = Tensor.constant(t.name, values, DTYPES.get(dtype, dtype.upper()))
    new.quant = qparam
    return new


def quantize_weights_of(graph: Graph, precision: Precision) -> None:
    """§7 for the weights of CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV, FULLY_CONNECTED, in
    each operator's dtype and granularity (§12)."""
    for op in graph.operators:
        spec = WEIGHT_CHANNEL_AXIS.get(op.opcode)
        w = op.inputs[spec[0]] if spec else None
        if w is None or w.dtype != "FLOAT32" or not w.is_constant:
            continue
        dtype, granularity = precision.of(op)
        axis = spec[1] if granularity == "channel" else None
        quantized = quantize_weights(w.data, dtype, axis)
        op.inputs[spec[0]] = _quantized_copy(
            w, quantized.values, dtype, _qparam(quantized.ranges, axis)
        )


def quantize_biases(graph: Graph, precision: Precision) -> None:
    """§8, once input and weight scales are final; INT64 for int16 operators."""
    for op in graph.operators:
        index = BIAS_INDEX.get(op.opcode)
        b = op.inputs[index] if index is not None and index < len(op.inputs) else None
        if b is None or b.dtype != "FLOAT32" or not b.is_constant:
            continue
        x = op.inputs[BIAS_INPUT.get(op.opcode, 0)]
        w = op.inputs[WEIGHT_CHANNEL_AXIS[op.opcode][0]]
        if x.quant is None or x.quant.scale is None or w.quant is None:
            raise QuantizeError(f"{op.kind} '{op.outputs[0].name}': input or weights unquantized")
        scales = bias_scales(float(x.quant.scale[0]), w.quant.scale)  # type: ignore[arg-type]
        dtype = precision.of(op).dtype
        values = quantize_bias(b.data, scales, dtype)
        qparam = QuantParam(
            scale=scales,
            zero_point=np.zeros(len(scales), np.int64),
            quantized_dimension=max(len(b.shape) - 1, 0),
        )
        op.inputs[index] = _quantized_copy(  # type: ignore[index]
            b, values, "INT64" if dtype == "int16" else "INT32", qparam
        )


def quantize_activation_constants(graph: Graph, precision: Precision) -> None:
    """§11.3: float constants feeding activation inputs, each with its own range, in the
    operator's dtype and granularity (§12)."""
    for op in graph.operators:
        if all(t.dtype == "FLOAT32" for t in op.outputs if t is not None):
            continue  # computes in float (float_islands.py): its constants stay float
        dtype, granularity = precision.of(op)
        handled = _handled_inputs(op)
        for i, t in enumerate(op.inputs):
            if t is None or i in handled or t.dtype != "FLOAT32" or not t.is_constant:
                continue
            if op.opcode in PER_ELEMENT and i in PER_ELEMENT[op.opcode]:
                op.inputs[i] = _per_element(t, dtype, granularity)
            elif op.opcode in ACTIVATION_CONSTANT_OPS:
                quantized = quantize_constant(t.data, dtype)
                op.inputs[i] = _quantized_copy(
                    t, quantized.values, dtype, _qparam(quantized.ranges, None)
                )
            else:
                raise QuantizeError(
                    f"Unsupported Op for const inputs ({op.kind} '{op.outputs[0].name}', "
                    f"input {i} '{t.name}')"
                )


def _handled_inputs(op: Operator) -> set[int]:
    """Inputs quantized by §7/§8 instead."""
    handled = set()
    if op.opcode in WEIGHT_CHANNEL_AXIS:
        handled.add(WEIGHT_CHANNEL_AXIS[op.opcode][0])
    if op.opcode in BIAS_INDEX:
        handled.add(BIAS_INDEX[op.opcode])
    return handled


def _per_element(t: Tensor, dtype: str, granularity: str) -> Tensor:
    """INSTANCE_NORM gamma/beta, PRELU alpha: one qparam per element channel-wise (uint8,
    int16); with its own range layer-wise, and always for int8 (LiteRT's int8 PRELU reads a
    per-tensor alpha).

    Each element takes the far end of its dtype's range (uint8 q = 255, or 0 with
    zero point 255 for a negative one; int16 q = ±32767) where the reference writes q = ±1
    with s = |x|: the value is the same, but PRELU's integer kernel (LiteRT's, ONE runtime's)
    multiplies ``(x - zp) * (q - zp_alpha)`` and rounds twice, so a one-level alpha rounds
    every negative output half a step towards minus infinity."""
    if granularity != "channel" or dtype == "int8":
        quantized = quantize_constant(t.data, dtype)
        return _quantized_copy(t, quantized.values, dtype, _qparam(quantized.ranges, None))
    x = np.asarray(t.data, np.float32)
    if any(d != 1 for d in x.shape[:-1]):
        raise QuantizeError(f"'{t.name}': all dimensions but the last must be 1")
    flat = x.reshape(-1)
    top = 255 if dtype == "uint8" else 32767
    scale = np.where(flat == 0, 1.0, np.abs(flat) / np.float32(top)).astype(np.float32)
    if dtype == "uint8":
        zero_point = np.where(flat < 0, top, 0).astype(np.int64)
        q = np.where(flat > 0, top, 0).astype(np.uint8)
    else:
        zero_point = np.zeros(flat.size, np.int64)
        q = (np.sign(flat) * top).astype(np.int16)
    qparam = QuantParam(scale=scale, zero_point=zero_point, quantized_dimension=x.ndim - 1)
    return _quantized_copy(t, q.reshape(x.shape), dtype, qparam)
