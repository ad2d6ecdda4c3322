"""Which operators of a model LiteRT (``ai-edge-litert``) cannot run: quantized operators of a
type its kernels lack, quantized or hybrid weights of a form its kernels lack, and circle-only
operators and tensor types (GGML blocks, ...).

The tables were found by running single-operator models in LiteRT's default resolver (XNNPACK)
and its builtin kernels: each entry is refused at ``Prepare`` with "Type UINT8 is unsupported",
"Only float32, uint8 and int8 are supported" and the like. ONE's runtime and the project's
interpreter run these models; users who deploy on LiteRT are told which operators stop it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ..ir import Model, Operator, Tensor
from ..ir.schema import TYPE_BY_NAME

_EVERY_INTEGER = frozenset({"SQUARE", "POW", "LOCAL_RESPONSE_NORMALIZATION", "FLOOR", "CEIL"})
_EVERY_INTEGER |= frozenset({"SIN", "COS"})
NO_KERNEL: dict[str, frozenset[str]] = {
    "UINT8": _EVERY_INTEGER
    | frozenset(
        {"ABS", "NEG", "SQRT", "RSQRT", "EXP", "LOG", "SQUARED_DIFFERENCE", "ELU"}
        | {"BATCH_MATMUL", "REDUCE_PROD"}
    ),
    "INT8": _EVERY_INTEGER,
    "INT16": _EVERY_INTEGER
    | frozenset(
        {"SQUARED_DIFFERENCE", "ELU", "HARD_SWISH", "RELU_N1_TO_1", "RELU_0_TO_1"}
        | {"SPACE_TO_DEPTH", "DEPTH_TO_SPACE", "LOG_SOFTMAX", "L2_NORMALIZATION"}
    ),
}
# Operators of the circle schema that TFLite does not have (its negative builtin codes).
CIRCLE_ONLY = frozenset({"INSTANCE_NORM", "RMS_NORM", "BCQ_FULLY_CONNECTED", "BCQ_GATHER"})
CIRCLE_ONLY |= frozenset({"ROPE", "GRU", "RUN_MODEL", "ATTENTION"})
WEIGHTED = {"CONV_2D": 1, "DEPTHWISE_CONV_2D": 1, "FULLY_CONNECTED": 1, "TRANSPOSE_CONV": 1}
QUANTIZED = frozenset({"UINT8", "INT8", "INT16"})
# Weight types of hybrid operators (float32 activations, quantization.md §21.3) that LiteRT
# refuses (FULLY_CONNECTED and DEPTHWISE_CONV_2D at Prepare) or reads as garbage (CONV_2D
# with INT16 filters gives values of 1e37 and NaN).
NO_HYBRID_KERNEL = {
    "FULLY_CONNECTED": frozenset({"INT16"}),
    "CONV_2D": frozenset({"INT16"}),
    "DEPTHWISE_CONV_2D": frozenset({"INT16", "INT4"}),
}


@dataclass(frozen=True)
class Gap:
    """Operators LiteRT cannot run, of one kind: ``what`` says which and why."""

    what: str
    count: int
    first: str

    def __str__(self) -> str:
        more = f" and {self.count - 1} more" if self.count > 1 else ""
        return f"LiteRT has no {self.what} ('{self.first}'{more})"


def litert_gaps(model: Model) -> list[Gap]:
    """The kinds of operator in ``model`` that LiteRT cannot run, in order of first use."""
    counts: Counter[str] = Counter()
    first: dict[str, str] = {}
    for graph in model.graphs:
        for op in graph.operators:
            what = _gap(op)
            if what is not None:
                counts[what] += 1
                first.setdefault(what, op.outputs[0].name if op.outputs else op.kind)
    return [Gap(what, counts[what], first[what]) for what in first]


def _gap(op: Operator) -> str | None:
    if op.opcode in CIRCLE_ONLY:
        return f"{op.opcode} operator (circle only)"
    for t in [*op.inputs, *op.outputs]:
        if t is not None and TYPE_BY_NAME.get(t.dtype, 0) < 0:
            return f"{t.dtype} tensor type (circle only)"
    if op.opcode == "DEQUANTIZE" and _per_channel_int16(op.inputs[0]):
        return "per-channel INT16 DEQUANTIZE kernel"
    dtype = _quantized_type(op)
    if dtype is None:
        return _hybrid_gap(op)
    if op.opcode in NO_KERNEL[dtype]:
        return f"{dtype} {op.opcode} kernel"
    weight_index = WEIGHTED.get(op.opcode)
    if weight_index is not None and weight_index < len(op.inputs):
        w = op.inputs[weight_index]
        if w is not None and w.dtype == "INT16":
            return f"{op.opcode} kernel with INT16 weights (its 16-bit kernels take INT8 weights)"
        if w is not None and w.dtype == "UINT8" and _channels(w) > 1:
            return f"{op.opcode} kernel with per-channel UINT8 weights"
    return None


def _hybrid_gap(op: Operator) -> str | None:
    """The gap of an operator with float activations and integer weights, if any."""
    types = NO_HYBRID_KERNEL.get(op.opcode, frozenset())
    w = op.inputs[1] if len(op.inputs) > 1 else None
    if w is not None and w.dtype in types:
        return f"{op.opcode} kernel with float32 input and {w.dtype} weights"
    return None


def _per_channel_int16(t: Tensor | None) -> bool:
    return t is not None and t.dtype == "INT16" and _channels(t) > 1


def _channels(t: Tensor) -> int:
    """How many scales the quantization parameters of ``t`` have."""
    return 0 if t.quant is None or t.quant.scale is None else len(t.quant.scale)


def _quantized_type(op: Operator) -> str | None:
    """The quantized type an operator computes in (its first quantized activation)."""
    for t in [*op.outputs, *op.inputs]:
        if t is not None and not t.is_constant and t.dtype in QUANTIZED:
            return t.dtype
    return None
