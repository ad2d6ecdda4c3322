"""Weights-only quantization (quantization.md §21): the float32 constant weights of CONV_2D,
DEPTHWISE_CONV_2D and FULLY_CONNECTED become int8, int16 or int4, symmetric per output
channel, or per block of ``block_size`` inputs for int4 FULLY_CONNECTED; activations, inputs,
outputs, biases and every other operator stay float32.

Only float32 constants without a qparam are quantized, and FLOAT16 ones behind a DEQUANTIZE
(16-bit weights an import kept; the DEQUANTIZE goes when nothing else reads it); a
non-constant weight is skipped. A
constant read by several operators of one kind is quantized once and shared; read by
operators of different kinds it has no single channel axis (``Failed to find channel
index``). Other readers of the constant keep the float32 original.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..ir import Graph, Model, Operator, Tensor
from .checks import INVALID
from .errors import QuantizeError
from .invariants import invariant_problem
from .symmetric_weights import quantize_channels
from .weight_forms import block_form, dequantized, quantized_constant
from .weights import WEIGHT_CHANNEL_AXIS

# Operator -> (weight input, channel axis): the three operators of §21.2.
WEIGHTS_ONLY_AXIS = {
    opcode: spec for opcode, spec in WEIGHT_CHANNEL_AXIS.items() if opcode != "TRANSPOSE_CONV"
}


def _plain_constant(t: Tensor | None, dtype: str) -> bool:
    unquantized = t is not None and (t.quant is None or t.quant.scale is None)
    return unquantized and t.dtype == dtype and t.is_constant  # type: ignore[union-attr]


def is_float_constant(t: Tensor | None) -> bool:
    """A float32 constant without a qparam: what §21 and §22 quantize."""
    return _plain_constant(t, "FLOAT32")


def is_half_constant(t: Tensor | None) -> bool:
    """A FLOAT16 constant without a qparam: a 16-bit weight an import kept 16-bit."""
    return _plain_constant(t, "FLOAT16")


class WeightSources:
    """The float constant behind each weight operand of one graph: the operand itself (a
    float32 constant) or the FLOAT16 constant its DEQUANTIZE reads; the DEQUANTIZEs seen
    through are removed when nothing reads them any more (:meth:`drop_unread`)."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self.producers = graph.producers()
        self.seen: dict[int, Operator] = {}

    def of(self, t: Tensor | None) -> Tensor | None:
        if is_float_constant(t):
            return t
        op = self.producers.get(t) if t is not None else None  # type: ignore[call-overload]
        if op is None or op.opcode != "DEQUANTIZE" or not is_half_constant(op.inputs[0]):
            return None
        self.seen[id(op)] = op
        return op.inputs[0]

    def drop_unread(self) -> None:
        read = {id(t) for op in self.graph.operators for t in op.inputs if t is not None}
        read |= {id(t) for t in self.graph.outputs}
        unread = {k for k, op in self.seen.items() if id(op.outputs[0]) not in read}
        if unread:
            self.graph.operators = [op for op in self.graph.operators if id(op) not in unread]


def quantize_weights_only(
    model: Model, dtype: str, granularity: str, block_size: int, warn: Callable[[str], None]
) -> int:
    """Quantize the weights of every graph of ``model`` in place (``dtype`` "int8", "int16"
    or "int4"; ``granularity`` "channel" or "block"); how many weights were."""
    quantized = 0
    for graph in model.graphs:
        sources = WeightSources(graph)
        readers = _weight_readers(graph, sources)
        quantized += len(readers)
        added: list[Operator] = []
        for weight, ops in readers:
            opcode = ops[0].opcode
            index, axis = WEIGHTS_ONLY_AXIS[opcode]
            block = block_size if granularity == "block" and opcode == "FULLY_CONNECTED" else 0
            replacement, new = _quantized(weight, opcode, axis, dtype, block, warn)
            for op in ops:
                op.inputs[index] = replacement
            added.extend(new)
        sources.drop_unread()
        if added:
            graph.operators.extend(added)
            graph.topological_sort()
    return quantized


def unchanged_reason(model: Model, opcodes: dict[str, int], skip: int = 0) -> str | None:
    """Why a weights mode converted nothing: the weight operands (``{opcode: input index}``)
    it looks at are absent, already quantized, not constants, or below ``skip`` elements;
    None when float weights were there and each refusal was warned about already."""
    operands, floats = [], []
    for graph in model.graphs:
        sources = WeightSources(graph)
        for op in graph.operators:
            index = opcodes.get(op.opcode)
            if index is None or len(op.inputs) <= index or op.inputs[index] is None:
                continue
            operands.append(op.inputs[index])
            source = sources.of(op.inputs[index])
            if source is not None:
                floats.append(source)
    kinds = "/".join(sorted(opcodes))
    if not operands:
        return f"the model has no {kinds} weights"
    if skip and floats and all(t.data.size < skip for t in floats):  # type: ignore[union-attr]
        return f"every float weight is below skip_chunkquant_size ({skip} elements)"
    if floats:
        return None
    if all(t.dtype not in ("FLOAT32", "FLOAT16") or t.quant is not None for t in operands):
        return f"every {kinds} weight is already quantized"
    return f"no {kinds} weight is a float constant"


def check_weights_only(model: Model) -> None:
    """§25 after the weights modes: the invariants every quantized model keeps."""
    problem = invariant_problem(model)
    if problem is not None:
        raise QuantizeError(f"{INVALID} ({problem})")


def _weight_readers(graph: Graph, sources: WeightSources) -> list[tuple[Tensor, list[Operator]]]:
    """Each quantizable weight (its float constant) with the operators reading it as their
    weight, in execution order; a weight of operators of different kinds is an error."""
    readers: dict[int, tuple[Tensor, list[Operator]]] = {}
    for op in graph.operators:
        spec = WEIGHTS_ONLY_AXIS.get(op.opcode)
        operand = op.inputs[spec[0]] if spec and len(op.inputs) > spec[0] else None
        weight = sources.of(operand)
        if weight is None or getattr(op.options, "weightsFormat", 0):
            continue
        readers.setdefault(id(weight), (weight, []))[1].append(op)  # type: ignore[arg-type]
    for weight, ops in readers.values():
        kinds = sorted({op.opcode for op in ops})
        if len(kinds) > 1:
            raise QuantizeError(
                f"Failed to find channel index (constant '{weight.name}' is the weight of "
                f"{' and '.join(kinds)})"
            )
    return list(readers.values())


def _quantized(
    weight: Tensor,
    opcode: str,
    axis: int,
    dtype: str,
    block: int,
    warn: Callable[[str], None],
) -> tuple[Tensor, list[Operator]]:
    """The tensor the operators read instead of ``weight``, and the operators computing it
    (§21.3: hybrid, DEQUANTIZE or block form)."""
    data = np.asarray(weight.data, np.float32)
    if block:
        depth = data.shape[1]
        if depth % block == 0:
            blocks = quantize_channels(data.reshape(-1, block), 0, "int4")
            return block_form(weight.name, blocks, data.shape)
        warn(
            f"{weight.name}: input dimension {depth} is not a multiple of block_size {block}; "
            "channel granularity used"
        )
    weights = quantize_channels(data, axis, dtype)
    constant = quantized_constant(weight.name, data.shape, weights, dtype)
    if dtype == "int4" and opcode == "DEPTHWISE_CONV_2D":
        result, dequantize = dequantized(constant, weight.name)
        return result, [dequantize]
    return constant, []
