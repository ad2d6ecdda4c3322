"""Values the model's static shapes and constants determine, folded into constants before
quantization (a one-cmds addition, quantization.md §24).

After ``one-resize`` a decoder still computes its causal mask, rotary tables and position ids,
and T5 its relative-position buckets (``LOG`` of distances cast back to indices), from SHAPE of
its inputs at run time. Calibrated as activations they would be quantized like data: index
arithmetic in a few integer steps (T5 int16: over half of the buckets off by one), constants
of operators with no quantized constant form (BROADCAST_TO of a float constant). They depend
on no input value, so they are computed once here: SHAPE of a static tensor becomes its shape,
and an operator whose inputs are all constant, one of them so computed, becomes its result, up
to :data:`MAX_ELEMENTS` elements (a larger result stays computed, as the model wrote it). Operators
on the model's own constants only (fp16 weights dequantized, say) are left to ``one-optimize``'s
folding passes. The operators left without readers go.
"""

from __future__ import annotations

import numpy as np

from ..ir import Model, Operator
from ..passes.toolkit import GraphEditor, constant_results

# Results larger than this (elements) are not folded.
MAX_ELEMENTS = 1 << 20
# Operators never folded: their results are not a function of their operands alone.
_KEPT = frozenset(
    {"CUSTOM", "WHILE", "IF", "CALL_ONCE", "VAR_HANDLE", "READ_VARIABLE", "ASSIGN_VARIABLE",
     "RANDOM_UNIFORM", "RANDOM_STANDARD_NORMAL", "MULTINOMIAL"}
)  # fmt: skip


def fold_computed_constants(model: Model) -> int:
    """Fold what :mod:`this module <.computed_constants>` says in every graph; how many
    operators were folded."""
    folded = 0
    for index in range(len(model.graphs)):
        editor = GraphEditor(model, index)
        computed: set[int] = set()
        for op in editor.ops():
            results = _results(editor, op, computed)
            if results is None:
                continue
            for t, value in zip(op.outputs, results, strict=True):
                constant = editor.const(t.name, value, t.dtype)
                editor.replace(t, constant)
                computed.add(id(constant))
            folded += 1
        editor.commit()
    return folded


def _results(editor: GraphEditor, op: Operator, computed: set[int]) -> list[np.ndarray] | None:
    """The values of ``op``'s results when it is folded, else None."""
    if op.opcode == "SHAPE":
        x = op.inputs[0]
        return [np.array(x.shape)] if x.is_static else None
    if op.opcode in _KEPT or not any(t is not None and id(t) in computed for t in op.inputs):
        return None
    if not all(
        t.is_static and np.prod(t.shape, dtype=np.int64) <= MAX_ELEMENTS for t in op.outputs
    ):
        return None
    return constant_results(editor, op)


def _size(shape: tuple) -> int:
    return int(np.prod(shape, dtype=np.int64))
