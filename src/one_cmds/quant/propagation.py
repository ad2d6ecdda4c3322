"""Qparam propagation (quantization.md §11.1, §11.2).

**Adopted** beyond the reference's forward list: the outputs of every operator that only moves
or selects values (SQUEEZE, EXPAND_DIMS, SLICE, PAD, ...), of RESIZE_BILINEAR,
RESIZE_NEAREST_NEIGHBOR, REDUCE_MAX and REDUCE_MIN, and of MAX_POOL_2D and AVERAGE_POOL_2D
(whatever ``TF-style_maxpool`` says) take their input's qparams, because LiteRT's integer kernels
for them compute in the input's scale and ignore the output's, or refuse the model (XNNPACK for
uint8/int8 MAX_POOL_2D, TRANSPOSE, SLICE; see ``invariants.py``): a separately recorded output
range made quantized results wrong by up to half their range.
"""

from __future__ import annotations

import copy

import numpy as np

from ..ir import Graph, Operator, QuantParam, Tensor
from .activations import DTYPES
from .rounding import round_away

# Operators whose inputs take the output's qparam (§11.1), with their value inputs.
_BACKWARD_ALL = {"CONCATENATION": None, "PACK": None, "ONE_HOT": (2, 3), "PADV2": (0, 2)}
_BACKWARD_SINGLE = ("RESHAPE", "TRANSPOSE")
_VALUE_MOVING = (
    "SQUEEZE", "EXPAND_DIMS", "SLICE", "TILE", "PAD", "MIRROR_PAD", "BATCH_TO_SPACE_ND",
    "SPACE_TO_BATCH_ND", "DEPTH_TO_SPACE", "SPACE_TO_DEPTH", "GATHER_ND", "REVERSE_V2",
    "BROADCAST_TO",
)  # fmt: skip
# Operators whose output takes the qparam of one input (§11.2): opcode -> input index.
_FORWARD = {
    "GATHER": 0,
    "RESHAPE": 0,
    "TRANSPOSE": 0,
    "STRIDED_SLICE": 0,
    "SPLIT": 1,
    "SPLIT_V": 0,
    "UNPACK": 0,
    "RESIZE_BILINEAR": 0,
    "RESIZE_NEAREST_NEIGHBOR": 0,
    "REDUCE_MAX": 0,
    "REDUCE_MIN": 0,
    "MAX_POOL_2D": 0,
    "AVERAGE_POOL_2D": 0,
    **dict.fromkeys(_VALUE_MOVING, 0),
}
LOWEST_FLOAT32 = float(np.finfo(np.float32).min)
INTEGER_LIMITS = {"uint8": (0, 255), "int16": (-32767, 32767), "int8": (-128, 127)}


def _quantized(t: Tensor | None) -> bool:
    return t is not None and t.quant is not None and t.quant.scale is not None


def _const_with(t: Tensor, qparam: QuantParam, dtype: str) -> Tensor:
    """A copy of float constant ``t`` quantized with ``qparam`` (``round(x/s) + zp``,
    saturated: an infinite bound such as Magika's ``max(x, -inf)`` takes the type's end)."""
    s, zp = float(qparam.scale[0]), int(qparam.zero_point[0])  # type: ignore[index]
    scaled = np.clip(np.asarray(t.data, np.float64) / s, -(2.0**31), 2.0**31 - 1)
    q = np.clip(round_away(scaled) + zp, -(2**31), 2**31 - 1)
    lo, hi = INTEGER_LIMITS[dtype]
    new = Tensor.constant(t.name, np.clip(q, lo, hi), DTYPES[dtype])
    new.quant = copy.copy(qparam)
    return new


def backward(graph: Graph) -> None:
    """§11.1, one pass in reverse order; constants take the dtype of the result they join."""
    consumers = graph.consumers()
    for op in reversed(graph.operators):
        out = op.outputs[0] if op.outputs else None
        if out is None or not _quantized(out):
            continue
        if op.opcode in _BACKWARD_ALL:
            if op.opcode == "PADV2" and _pads_lowest(op):
                _forward_padv2(op)
                continue
            if getattr(op.options, "fusedActivationFunction", 0):
                continue  # constants keep their own range (§11.3)
            indices = _BACKWARD_ALL[op.opcode] or range(len(op.inputs))
            for i in indices:
                t = op.inputs[i] if i < len(op.inputs) else None
                if t is None:
                    continue
                if t.is_constant and t.dtype == "FLOAT32":
                    op.inputs[i] = _const_with(t, out.quant, out.dtype.lower())  # type: ignore[arg-type]
                elif not t.is_constant and len(consumers[t]) == 1:
                    t.quant = copy.copy(out.quant)
        elif op.opcode in _BACKWARD_SINGLE:
            t = op.inputs[0]
            if not t.is_constant and len(consumers[t]) == 1 and _quantized(t):
                t.quant = copy.copy(out.quant)


# LiteRT's integer MAXIMUM/MINIMUM compare raw values and copy them to the result.
_RAW_COMPARE = frozenset({"MAXIMUM", "MINIMUM"})
# LiteRT's integer SELECT/SELECT_V2 copy raw values of their value inputs (1, 2).
_SELECTS = frozenset({"SELECT", "SELECT_V2"})
_COMPARISONS = frozenset({"EQUAL", "NOT_EQUAL", "LESS", "LESS_EQUAL", "GREATER", "GREATER_EQUAL"})


def share_compared_qparams(graph: Graph) -> None:
    """**Adopted**, in execution order (after §11.1, before the constants of §11.3):
    MAXIMUM/MINIMUM of a quantized tensor and a float constant: the constant is quantized with
    the tensor's qparams and the result takes them too, since LiteRT compares and copies raw
    values (a constant of its own range, as the reference quantizes it, made a clamp
    ``max(min(x, 6), 0)`` wrong by twice its range). A comparison's float constant takes its
    quantized operand's qparams (``x == 0`` stays exact; a one-value constant has no range of
    its own), and a SELECT/SELECT_V2 constant takes the result's (basic-pitch's
    ``div_no_nan``), its activations being requantized to them
    (:func:`requantize_joined_inputs`)."""
    for op in graph.operators:
        if op.opcode in _COMPARISONS:
            _constants_with(op, _single_activation(op))
        if not op.outputs or not _quantized(op.outputs[0]):
            continue
        if op.opcode in _RAW_COMPARE:
            source = _single_activation(op)
            if source is not None:
                _constants_with(op, source)
                _take_qparams(op.outputs[0], source)
        elif op.opcode in _SELECTS:
            _constants_with(op, op.outputs[0])


def _single_activation(op: Operator) -> Tensor | None:
    """The one non-constant input of ``op`` when it is quantized, else None."""
    tensors = [t for t in op.inputs if t is not None and not t.is_constant]
    return tensors[0] if len(tensors) == 1 and _quantized(tensors[0]) else None


def _constants_with(op: Operator, source: Tensor | None) -> None:
    """Quantize ``op``'s float constants with ``source``'s qparams."""
    if source is None:
        return
    for i, t in enumerate(op.inputs):
        if t is not None and t.is_constant and t.dtype == "FLOAT32":
            op.inputs[i] = _const_with(t, source.quant, source.dtype.lower())  # type: ignore[arg-type]


def _take_qparams(result: Tensor, source: Tensor) -> None:
    """``result`` gets ``source``'s scale and zero point (its own range is kept)."""
    result.quant = QuantParam(
        scale=source.quant.scale,  # type: ignore[union-attr]
        zero_point=source.quant.zero_point,  # type: ignore[union-attr]
        min=result.quant.min,  # type: ignore[union-attr]
        max=result.quant.max,  # type: ignore[union-attr]
    )


def _pads_lowest(op: Operator) -> bool:
    pad = op.inputs[2] if len(op.inputs) > 2 else None
    value = None if pad is None else pad.data
    return value is not None and value.size == 1 and float(value.reshape(-1)[0]) == LOWEST_FLOAT32


def _forward_padv2(op: Operator) -> None:
    source = op.inputs[0]
    if not _quantized(source):
        return
    op.outputs[0].quant = copy.copy(source.quant)
    if op.inputs[2].dtype == "FLOAT32":
        op.inputs[2] = _const_with(op.inputs[2], source.quant, source.dtype.lower())  # type: ignore[arg-type]


def forward(graph: Graph) -> None:
    """§11.2, repeated until nothing changes: scale, zero point and quantized dimension."""
    rules = _FORWARD
    changed = True
    while changed:
        changed = False
        for op in graph.operators:
            index = rules.get(op.opcode)
            source = op.inputs[index] if index is not None and index < len(op.inputs) else None
            if not _quantized(source):
                continue
            for out in op.outputs:
                if _quantized(out) and _copy_scale(source, out):
                    changed = True


def _copy_scale(source: Tensor, target: Tensor) -> bool:
    s, t = source.quant, target.quant
    same = (
        np.array_equal(s.scale, t.scale)  # type: ignore[union-attr]
        and np.array_equal(s.zero_point, t.zero_point)  # type: ignore[union-attr]
        and s.quantized_dimension == t.quantized_dimension  # type: ignore[union-attr]
    )
    if same:
        return False
    target.quant = QuantParam(
        scale=s.scale,  # type: ignore[union-attr]
        zero_point=s.zero_point,  # type: ignore[union-attr]
        min=t.min,  # type: ignore[union-attr]
        max=t.max,  # type: ignore[union-attr]
        quantized_dimension=s.quantized_dimension,  # type: ignore[union-attr]
    )
    return True


# Operators whose integer kernels copy their inputs' values into the result as they are (no
# rescaling): LiteRT's PACK of every type, its int8/int16 CONCATENATION.
_UNSCALED_JOIN_TYPES = frozenset({"INT8", "INT16"})


def requantize_joined_inputs(graph: Graph) -> int:
    """**Adopted:** a PACK input and an int16 (or int8) CONCATENATION input whose qparams differ
    from the result's (forward propagation may have given a Split output its source's, a
    tensor read twice keeps its own), and a MAXIMUM/MINIMUM or SELECT/SELECT_V2 value input of
    any type (of two activations, each with its own range), is read
    through a requantizing QUANTIZE to the result's qparams: LiteRT joins and compares such
    values unscaled, so the reference's graph would be wrong there. Returns how many were
    inserted."""
    producers = graph.producers()
    inserted = 0
    for op in list(graph.operators):
        out = op.outputs[0] if op.outputs else None
        if out is None or not _joins_unscaled(op.opcode, out.dtype):
            continue
        for i, t in enumerate(op.inputs):
            if t is None or t.is_constant or not _quantized(t) or not _quantized(out):
                continue
            if _same(t.quant, out.quant):  # type: ignore[arg-type]
                continue
            joined = Tensor(f"{t.name}_Requantize", out.dtype, t.shape, quant=copy.copy(out.quant))
            producer = producers.get(t)
            origin = producer.origin if producer is not None else frozenset()
            graph.operators.insert(
                graph.operators.index(op), Operator("QUANTIZE", [t], [joined], origin=origin)
            )
            op.inputs[i] = joined
            inserted += 1
    return inserted


def _joins_unscaled(opcode: str, dtype: str) -> bool:
    """Whether LiteRT reads the inputs' raw values as the result's (no rescaling)."""
    return opcode in (*_RAW_COMPARE, *_SELECTS, "PACK") or (
        opcode == "CONCATENATION" and dtype in _UNSCALED_JOIN_TYPES
    )


def _same(a: QuantParam, b: QuantParam) -> bool:
    return np.array_equal(a.scale, b.scale) and np.array_equal(a.zero_point, b.zero_point)
