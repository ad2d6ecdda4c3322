"""``common_subexpression_elimination`` (optimization.md §5.24): two operators with the same
opcode, equal options and identical inputs compute the same value, so the later one's
results are replaced by the earlier one's. Inputs are identical when they are the same
tensor, or constants with equal dtype, shape, quantization parameters and bytes; options are
compared field by field (lists and numpy arrays by their elements). The results must also
agree in dtype and quantization parameters (two Quantize operators differ only there).

Never merged: custom operators, operators that call subgraphs or have side effects or state
(``WHILE``, ``IF``, ``CALL_ONCE``, variables, hash tables, random numbers), operators reading
a variable tensor or with intermediates. The survivor's origin becomes the union of the
merged duplicates' (circle-format-and-metadata.md §9).

One visit in execution order with a dictionary keyed per operator: linear in the graph size;
constant operands are compared byte by byte only between operators whose keys agree.
A duplicate's readers are redirected before they are visited, so chains of duplicates
collapse in one run.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np

from ..ir import Operator, Tensor
from . import graph_pass
from .toolkit import GraphEditor, const_value, origin_of

_NEVER = frozenset(
    {
        "CUSTOM",
        "WHILE",
        "IF",
        "CALL",
        "CALL_ONCE",
        "VAR_HANDLE",
        "READ_VARIABLE",
        "ASSIGN_VARIABLE",
        "HASHTABLE",
        "HASHTABLE_FIND",
        "HASHTABLE_IMPORT",
        "HASHTABLE_SIZE",
        "RANDOM_UNIFORM",
        "RANDOM_STANDARD_NORMAL",
        "MULTINOMIAL",
        "STABLEHLO_RNG_BIT_GENERATOR",
        "STABLEHLO_CUSTOM_CALL",
        "STABLEHLO_WHILE",
        "STABLEHLO_CASE",
        "STABLEHLO_COMPOSITE",
    }
)


def _frozen(value: Any) -> Hashable:
    """A hashable value equal for equal option fields (sequences by their elements, floats
    by their bits, schema objects field by field)."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    elif isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, (bool, int, str, bytes)):
        return value
    if isinstance(value, float):
        return ("float", value.hex())
    if isinstance(value, (list, tuple)):
        return ("seq", *(_frozen(v) for v in value))
    if hasattr(value, "__dict__"):
        fields = sorted(vars(value).items())
        return (type(value).__qualname__, *((k, _frozen(v)) for k, v in fields))
    return ("object", id(value))


def _same_constant(a: Tensor, b: Tensor) -> bool:
    return a is b or a.buffer is b.buffer or np.array_equal(a.buffer.raw, b.buffer.raw)  # type: ignore[union-attr]


def _key(op: Operator) -> tuple[Hashable, list[Tensor]] | None:
    """What makes ``op``'s results what they are, with its constant operands standing for
    their dtype, shape and quantization only (their bytes are compared when two keys meet,
    so weights are never hashed); None when it must never be merged."""
    if op.opcode in _NEVER or not op.outputs or op.intermediates:
        return None
    if op.mutating_variable_inputs and any(op.mutating_variable_inputs):
        return None
    inputs: list[Hashable] = []
    constants: list[Tensor] = []
    for t in op.inputs:
        if t is not None and t.is_variable:
            return None
        if t is not None and const_value(t) is not None:
            constants.append(t)
            inputs.append(("const", t.dtype, t.shape, _frozen(t.quant)))
        else:
            inputs.append(t)
    results = tuple((t.dtype, _frozen(t.quant)) for t in op.outputs)
    key = (op.opcode, _frozen(op.options), _frozen(op.options2), tuple(inputs), results)
    return key, constants


@graph_pass("common_subexpression_elimination")
def common_subexpression_elimination(g: GraphEditor) -> int:
    candidates: dict[Hashable, list[tuple[Operator, list[Tensor]]]] = {}
    rewrites = 0
    for op in g.ops():
        found = _key(op)
        if found is None:
            continue
        key, constants = found
        earlier = candidates.setdefault(key, [])
        first = next(
            (
                other
                for other, theirs in earlier
                if all(_same_constant(a, b) for a, b in zip(constants, theirs, strict=True))
            ),
            None,
        )
        if first is None:
            earlier.append((op, constants))
            continue
        first.origin = origin_of(first, op)
        g.replace_op(op, first)
        rewrites += 1
    return rewrites
