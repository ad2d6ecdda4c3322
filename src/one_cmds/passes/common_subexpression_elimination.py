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

One visit in execution order with a dictionary keyed per operator: linear in the graph size.
A duplicate's readers are redirected before they are visited, so chains of duplicates
collapse in one run.
"""

from __future__ import annotations

import hashlib
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


class _Constants:
    """One representative per distinct constant (dtype, shape, quantization, bytes)."""

    def __init__(self) -> None:
        self._groups: dict[Hashable, list[Tensor]] = {}

    def representative(self, t: Tensor) -> Tensor:
        raw = np.ascontiguousarray(t.buffer.raw)  # type: ignore[union-attr]
        digest = hashlib.blake2b(memoryview(raw), digest_size=16).digest()
        key = (t.dtype, t.shape, _frozen(t.quant), digest)
        group = self._groups.setdefault(key, [])
        for seen in group:
            if np.array_equal(seen.buffer.raw, raw):  # type: ignore[union-attr]
                return seen
        group.append(t)
        return t


def _key(op: Operator, constants: _Constants) -> Hashable | None:
    """What makes ``op``'s results what they are; None when it must never be merged."""
    if op.opcode in _NEVER or not op.outputs or op.intermediates:
        return None
    if op.mutating_variable_inputs and any(op.mutating_variable_inputs):
        return None
    inputs: list[Hashable] = []
    for t in op.inputs:
        if t is not None and t.is_variable:
            return None
        is_const = t is not None and const_value(t) is not None
        inputs.append(constants.representative(t) if is_const else t)  # type: ignore[arg-type]
    results = tuple((t.dtype, _frozen(t.quant)) for t in op.outputs)
    return (op.opcode, _frozen(op.options), _frozen(op.options2), tuple(inputs), results)


@graph_pass("common_subexpression_elimination")
def common_subexpression_elimination(g: GraphEditor) -> int:
    constants = _Constants()
    survivors: dict[Hashable, Operator] = {}
    rewrites = 0
    for op in g.ops():
        key = _key(op, constants)
        if key is None:
            continue
        first = survivors.setdefault(key, op)
        if first is op:
            continue
        first.origin = origin_of(first, op)
        g.replace_op(op, first)
        rewrites += 1
    return rewrites
