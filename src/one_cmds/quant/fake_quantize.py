"""``fake_quantize`` (quantization.md §15): a quantized model becomes a float32 model that
simulates it. Quantized activation results become float32 followed by a QUANTIZE (the same
dtype and qparam) and a DEQUANTIZE; quantized graph inputs likewise; quantized constants are
dequantized (through the interpreter's DEQUANTIZE kernel); value-preserving operators follow by
type inference; any other operator on quantized values is an error naming it."""

from __future__ import annotations

import copy

from ..interp import InterpreterError, RunContext, evaluate, load_kernels
from ..ir import Graph, Model, Operator, Tensor
from ..shape import infer_shapes
from .errors import QuantizeError
from .io_types import replace_in_signatures, take_name

SIMULATED = frozenset(
    {
        "ABS", "ADD", "AVERAGE_POOL_2D", "BATCH_MATMUL", "CONV_2D", "DEPTHWISE_CONV_2D", "DIV",
        "EXP", "FULLY_CONNECTED", "GELU", "INSTANCE_NORM", "LEAKY_RELU", "LOGISTIC",
        "LOG_SOFTMAX", "MAX_POOL_2D", "MAXIMUM", "MINIMUM", "MUL", "NEG", "PAD", "PRELU", "MEAN",
        "REDUCE_PROD", "REDUCE_MAX", "RELU", "RELU6", "RESIZE_BILINEAR",
        "RESIZE_NEAREST_NEIGHBOR", "RSQRT", "SOFTMAX", "SQRT", "SQUARED_DIFFERENCE", "SUB",
        "SUM", "TANH", "TRANSPOSE_CONV",
        # **adopted** beyond the reference's list: every computing operator the quantizer
        # writes (real models: MediaPipe's HARD_SWISH, ...)
        "HARD_SWISH", "RELU_N1_TO_1", "RELU_0_TO_1", "ELU", "LOG", "POW", "SQUARE", "PADV2",
        "REDUCE_MIN", "L2_NORMALIZATION", "LOCAL_RESPONSE_NORMALIZATION", "FLOOR", "CEIL",
        "RMS_NORM", "MIRROR_PAD",
    }
)  # fmt: skip
VALUE_PRESERVING = frozenset(
    {
        "CAST", "CONCATENATION", "DEPTH_TO_SPACE", "GATHER", "SLICE", "STRIDED_SLICE", "RESHAPE",
        "SPACE_TO_DEPTH", "SPLIT", "SPLIT_V", "TRANSPOSE", "PACK", "UNPACK", "DEQUANTIZE",
        "SQUEEZE", "EXPAND_DIMS", "TILE", "BROADCAST_TO", "REVERSE_V2", "GATHER_ND",
        "SPACE_TO_BATCH_ND", "BATCH_TO_SPACE_ND", "SELECT", "SELECT_V2",
    }
)  # fmt: skip
SKIPPED = frozenset({"ARG_MAX"})
QUANTIZED = frozenset({"UINT8", "INT16", "INT8"})


def _quantized(t: Tensor | None) -> bool:
    q = None if t is None else t.quant
    return t is not None and t.dtype in QUANTIZED and q is not None and q.scale is not None


def fake_quantize(model: Model) -> None:
    """Turn ``model`` (quantized) into its float32 simulation, in place."""
    graph = model.main
    _dequantize_constants(model)
    for op in list(graph.operators):
        quantized_out = [t for t in op.outputs if _quantized(t)]
        if not quantized_out or op.opcode in VALUE_PRESERVING or op.opcode in SKIPPED:
            continue
        if op.opcode == "QUANTIZE":
            # float -> integer, or integer -> integer (a requantize): once every quantized
            # value is float, it quantizes a float value and its result is dequantized
            _dequantize_after(graph, op)
            continue
        if op.opcode not in SIMULATED:
            raise QuantizeError(f"fake_quantize: {op.kind} '{op.outputs[0].name}' is not supported")
        for t in quantized_out:
            _simulate(graph, t, op)
    for position, t in enumerate(list(graph.inputs)):
        if _quantized(t):
            graph.inputs[position] = _simulate_input(graph, t)
    for op in graph.operators:
        if op.opcode in VALUE_PRESERVING:
            for t in op.outputs:
                if _quantized(t):
                    t.dtype, t.quant = "FLOAT32", None
    _drop_float_dequantize(model)
    graph.topological_sort()
    infer_shapes(model, keep_declared=True)


def _drop_float_dequantize(model: Model) -> None:
    """A DEQUANTIZE whose input is now float (a float output's, after its simulated
    producer) goes: its input takes its name and place. LiteRT refuses a float DEQUANTIZE, so
    without this the simulation could only run on the reference interpreter."""
    graph = model.main
    for op in [op for op in graph.operators if op.opcode == "DEQUANTIZE"]:
        x, out = op.inputs[0], op.outputs[0]
        if x.dtype != "FLOAT32" or x.is_constant or any(x is t for t in graph.inputs):
            continue
        graph.operators.remove(op)
        graph.replace_uses(out, x)
        replace_in_signatures(model, out, x, inputs=False)
        take_name(out, x, "_Dequantize")


def _dequantize_constants(model: Model) -> None:
    """Quantized and float16 constants become float32 constants (the DEQUANTIZE kernel)."""
    load_kernels()
    context = RunContext(model)
    for op in model.main.operators:
        for i, t in enumerate(op.inputs):
            scaled = t is not None and t.quant is not None and t.quant.scale is not None
            if t is None or not t.is_constant or t.dtype == "FLOAT32":
                continue
            if not (scaled or t.dtype == "FLOAT16"):
                continue
            result = Tensor(t.name, "FLOAT32", t.shape)
            try:
                (value,) = evaluate(Operator("DEQUANTIZE", [t], [result]), [t.data], context)
            except InterpreterError as e:
                raise QuantizeError(f"fake_quantize: constant '{t.name}': {e.message}") from None
            op.inputs[i] = Tensor.constant(t.name, value, "FLOAT32")


def _redirect(graph: Graph, old: Tensor, new: Tensor, readers: list[Operator]) -> None:
    for op in readers:
        op.inputs = [new if x is old else x for x in op.inputs]
    graph.outputs = [new if x is old else x for x in graph.outputs]


def _readers(graph: Graph, t: Tensor) -> list[Operator]:
    return [op for op in graph.operators if any(x is t for x in op.inputs)]


def _pair(graph: Graph, float_tensor: Tensor, quantized: Tensor, origin) -> Tensor:
    """QUANTIZE(float) -> DEQUANTIZE; returns the DEQUANTIZE's float result."""
    q = Tensor(f"{quantized.name}_FQ_Quantize", quantized.dtype, quantized.shape)
    q.quant = copy.copy(quantized.quant)
    dq = Tensor(f"{quantized.name}_FQ_Dequantize", "FLOAT32", quantized.shape)
    graph.operators.append(Operator("QUANTIZE", [float_tensor], [q], origin=origin))
    graph.operators.append(Operator("DEQUANTIZE", [q], [dq], origin=origin))
    return dq


def _simulate(graph: Graph, t: Tensor, producer: Operator) -> None:
    """The result ``t`` of ``producer`` becomes float32, read through a Quantize/Dequantize."""
    readers = _readers(graph, t)
    quantized = copy.copy(t)
    t.dtype, t.quant = "FLOAT32", None
    dq = _pair(graph, t, quantized, producer.origin)
    _redirect(graph, t, dq, readers)
    dq.name, t.name = t.name, t.name + "_FQ"


def _dequantize_after(graph: Graph, quantize: Operator) -> None:
    q = quantize.outputs[0]
    readers = _readers(graph, q)
    dq = Tensor(f"{q.name}_FQ_Dequantize", "FLOAT32", q.shape)
    graph.operators.append(Operator("DEQUANTIZE", [q], [dq], origin=quantize.origin))
    _redirect(graph, q, dq, readers)


def _simulate_input(graph: Graph, t: Tensor) -> Tensor:
    """A quantized graph input becomes a float32 one read through a Quantize/Dequantize."""
    readers = _readers(graph, t)
    new = Tensor(t.name, "FLOAT32", t.shape)
    _redirect(graph, t, _pair(graph, new, copy.copy(t), frozenset()), readers)
    return new
