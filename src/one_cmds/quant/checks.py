"""The quantizer's checks (quantization.md §14): constant operands before quantization, and
after it the dtypes and shared qparams operators need; a failure after quantization is
``Quantized graph is invalid (...)``."""

from __future__ import annotations

import numpy as np

from ..ir import Model, Operator, Tensor
from ..shape import ShapeInferenceError, infer_shapes
from .activations import DTYPES, INTEGER_VALUED
from .errors import QuantizeError
from .invariants import invariant_problem

# Inputs that must be constants (or absent) before quantization.
CONSTANT_INPUTS = {
    "CONV_2D": (1, 2),
    "DEPTHWISE_CONV_2D": (1, 2),
    "FULLY_CONNECTED": (1, 2),
    "TRANSPOSE_CONV": (0, 1, 3),
    "INSTANCE_NORM": (1, 2),
    "PRELU": (1,),
    "RMS_NORM": (1,),
}
WEIGHTED = {"CONV_2D": 0, "DEPTHWISE_CONV_2D": 0, "FULLY_CONNECTED": 0, "TRANSPOSE_CONV": 2}
INDEX_INPUTS = {"MEAN": 1, "REDUCE_MAX": 1, "PAD": 1}
COMPARISONS = frozenset({"EQUAL", "NOT_EQUAL", "GREATER", "GREATER_EQUAL", "LESS", "LESS_EQUAL"})
SAME_QPARAMS = frozenset({"SPLIT", "SPLIT_V", "STRIDED_SLICE"})
INVALID = "Quantized graph is invalid"


def check_float_model(model: Model) -> None:
    """The default pipeline quantizes float32 models of one graph (§1)."""
    quantized = next(
        (t for t in model.main.referenced_tensors() if t.dtype in ("INT8", "UINT8", "INT16")
         and t.quant is not None and t.quant.scale is not None),
        None,
    )  # fmt: skip
    if quantized is not None:
        raise QuantizeError(
            f"Unsupported input type (tensor '{quantized.name}' is already quantized: "
            "the model must be float32)"
        )
    if len(model.graphs) > 1:
        raise QuantizeError("models with subgraphs (WHILE, IF, CALL_ONCE) cannot be quantized yet")


def check_constant_operands(model: Model) -> None:
    """Before quantization: weights, biases and the like are constants (or absent)."""
    producers = model.main.producers()
    for op in model.main.operators:
        for i in CONSTANT_INPUTS.get(op.opcode, ()):
            t = op.inputs[i] if i < len(op.inputs) else None
            if t is not None and not t.is_constant:
                producer = producers.get(t)
                hint = (
                    "; fold it first (one-optimize fold_dequantize)"
                    if producer is not None and producer.opcode == "DEQUANTIZE"
                    else ""
                )
                raise QuantizeError(
                    f"{op.kind} '{op.outputs[0].name}': input {i} '{t.name}' must be a constant "
                    f"to be quantized{hint}"
                )


def check_quantized(model: Model, dtype: str) -> None:
    """After quantization: the dtypes and qparams operators need, then shapes and types."""
    problem = next((p for op in model.main.operators if (p := _problem(op, dtype))), None)
    problem = problem or invariant_problem(model)
    if problem is None:
        try:
            infer_shapes(model, keep_declared=True)
        except ShapeInferenceError as e:
            problem = e.message
    if problem is not None:
        raise QuantizeError(f"{INVALID} ({problem})")


def _where(op: Operator) -> str:
    return f"{op.kind} '{op.outputs[0].name}'" if op.outputs else op.kind


def _problem(op: Operator, dtype: str) -> str | None:
    quantized = DTYPES[dtype]
    if op.opcode in WEIGHTED:
        x, w = op.inputs[WEIGHTED[op.opcode]], op.inputs[1]
        wanted_bias = "INT64" if dtype == "int16" else "INT32"
        index = 3 if op.opcode == "TRANSPOSE_CONV" else 2
        bias = op.inputs[index] if len(op.inputs) > index else None
        for t in (x, w, op.outputs[0]):
            if t.dtype not in (quantized, "INT16", "UINT8", "INT8"):
                return f"{_where(op)}: '{t.name}' is {t.dtype}"
        if bias is not None and bias.dtype not in (wanted_bias, "INT32", "INT64"):
            return f"{_where(op)}: bias '{bias.name}' is {bias.dtype}"
    index = INDEX_INPUTS.get(op.opcode)
    if index is not None and op.inputs[index].dtype not in ("INT32", "INT64"):
        return f"{_where(op)}: index input '{op.inputs[index].name}' is {op.inputs[index].dtype}"
    if op.opcode in COMPARISONS and op.outputs[0].dtype != "BOOL":
        return f"{_where(op)}: result is {op.outputs[0].dtype}, not BOOL"
    if op.opcode in SAME_QPARAMS:
        source = op.inputs[1] if op.opcode == "SPLIT" else op.inputs[0]
        for out in op.outputs:
            if not _same_qparams(source, out):
                return f"{_where(op)}: '{out.name}' does not share its input's scale/zero point"
    if op.opcode in INTEGER_VALUED and _scaled(op.outputs[0]):
        scale = float(op.outputs[0].quant.scale[0])  # type: ignore[index,union-attr]
        if scale != round(scale):
            return f"{_where(op)}: scale {scale} is not an integer"
    return None


def _scaled(t: Tensor) -> bool:
    return t.quant is not None and t.quant.scale is not None


def _same_qparams(a: Tensor, b: Tensor) -> bool:
    if not (_scaled(a) and _scaled(b)):
        return _scaled(a) == _scaled(b)
    return np.array_equal(a.quant.scale, b.quant.scale) and np.array_equal(  # type: ignore[union-attr]
        a.quant.zero_point,  # type: ignore[union-attr]
        b.quant.zero_point,  # type: ignore[union-attr]
    )
