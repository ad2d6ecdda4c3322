"""Weights-only quantization (quantization.md §21): the float32 constant weights of CONV_2D,
DEPTHWISE_CONV_2D and FULLY_CONNECTED become int8, int16 or int4, symmetric per output
channel, or per block of ``block_size`` inputs for int4 FULLY_CONNECTED; activations, inputs,
outputs, biases and every other operator stay float32.

Only float32 constants without a qparam are quantized (a non-constant weight is skipped). A
constant read by several operators of one kind is quantized once and shared; read by
operators of different kinds it has no single channel axis (``Failed to find channel
index``). Other readers of the constant keep the float32 original.
"""

from __future__ import annotations

from collections.abc import Callable

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


def is_float_constant(t: Tensor | None) -> bool:
    """A float32 constant without a qparam: what §21 and §22 quantize."""
    unquantized = t is not None and (t.quant is None or t.quant.scale is None)
    return unquantized and t.dtype == "FLOAT32" and t.is_constant  # type: ignore[union-attr]


def quantize_weights_only(
    model: Model, dtype: str, granularity: str, block_size: int, warn: Callable[[str], None]
) -> None:
    """Quantize the weights of every graph of ``model`` in place (``dtype`` "int8", "int16"
    or "int4"; ``granularity`` "channel" or "block")."""
    for graph in model.graphs:
        readers = _weight_readers(graph)
        added: list[Operator] = []
        for weight, ops in readers:
            opcode = ops[0].opcode
            index, axis = WEIGHTS_ONLY_AXIS[opcode]
            block = block_size if granularity == "block" and opcode == "FULLY_CONNECTED" else 0
            replacement, new = _quantized(weight, opcode, axis, dtype, block, warn)
            for op in ops:
                op.inputs[index] = replacement
            added.extend(new)
        if added:
            graph.operators.extend(added)
            graph.topological_sort()


def check_weights_only(model: Model) -> None:
    """§25 after the weights modes: the invariants every quantized model keeps."""
    problem = invariant_problem(model)
    if problem is not None:
        raise QuantizeError(f"{INVALID} ({problem})")


def _weight_readers(graph: Graph) -> list[tuple[Tensor, list[Operator]]]:
    """Each quantizable weight with the operators reading it as their weight, in execution
    order; a weight of operators of different kinds is an error."""
    readers: dict[int, tuple[Tensor, list[Operator]]] = {}
    for op in graph.operators:
        spec = WEIGHTS_ONLY_AXIS.get(op.opcode)
        weight = op.inputs[spec[0]] if spec and len(op.inputs) > spec[0] else None
        if not is_float_constant(weight) or getattr(op.options, "weightsFormat", 0):
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
    data = weight.data
    assert data is not None
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
