"""Which operators of a model LiteRT (``ai-edge-litert``) cannot run: quantized operators of a
type its kernels lack, quantized weights of a form its kernels lack, and circle-only operators.

The tables were found by running single-operator models in LiteRT's default resolver (XNNPACK)
and its builtin kernels: each entry is refused at ``Prepare`` with "Type UINT8 is unsupported",
"Only float32, uint8 and int8 are supported" and the like. ONE's runtime and the project's
interpreter run these models; users who deploy on LiteRT are told which operators stop it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ..ir import Model, Operator

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
    dtype = _quantized_type(op)
    if dtype is None:
        return None
    if op.opcode in NO_KERNEL[dtype]:
        return f"{dtype} {op.opcode} kernel"
    weight_index = WEIGHTED.get(op.opcode)
    if weight_index is not None and weight_index < len(op.inputs):
        w = op.inputs[weight_index]
        if w is not None and w.dtype == "INT16":
            return f"{op.opcode} kernel with INT16 weights (its 16-bit kernels take INT8 weights)"
        channels = (
            0 if w is None or w.quant is None or w.quant.scale is None else len(w.quant.scale)
        )
        if w is not None and w.dtype == "UINT8" and channels > 1:
            return f"{op.opcode} kernel with per-channel UINT8 weights"
    return None


def _quantized_type(op: Operator) -> str | None:
    """The quantized type an operator computes in (its first quantized activation)."""
    for t in [*op.outputs, *op.inputs]:
        if t is not None and not t.is_constant and t.dtype in QUANTIZED:
            return t.dtype
    return None
