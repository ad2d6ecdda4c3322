"""Softmax inputs quantized over the span the softmax can tell apart.

A decoder's attention adds a causal mask of -inf (or float32's lowest) to its scores before
SOFTMAX: the recorded range of the sum then reaches -3.4e38, its scale 1e+34, and every score
quantizes to the same value (Hugging Face Llama/Qwen2 exports: uniform attention in 8 bits, an
overflowing int16 SOFTMAX rescale). ``softmax(x)`` only sees ``x - max(x)``, and an element
more than :data:`SPAN` below the row's maximum contributes less than ``exp(-16)`` (1e-7, below
half a step of an int16 probability): such elements may saturate at the range's low end. So the
recorded minimum of a tensor that only SOFTMAX reads, when a mask brought it below
:data:`SENTINEL`, is raised to ``max - SPAN / beta``. A finite recorded range is kept: the span
counts from each row's own maximum, and a classifier's rows (a recognizer's time steps over
6625 characters) peak far apart, so a floor taken from the set-wide maximum flattened every row
that peaks below it (PP-OCR rec: logits at 0 dB).

The mask itself (a recorded minimum, or a constant's values, below :data:`SENTINEL`: float32's
lowest or -inf) is raised likewise where an ADD brings it into such a tensor: to
``floor - max(scores)``, so that a masked score still lands at or below the softmax input's
floor (a constant mask is replaced, for that ADD, by a clipped copy). Without it the int16 ADD's
rescale of a 1e+34 scale overflows.
"""

from __future__ import annotations

import numpy as np

from ..ir import Graph, Tensor
from .activations import has_range

SPAN = 16.0
SENTINEL = -1e30


def narrow_softmax_inputs(graph: Graph) -> int:
    """Raise the recorded minimum of every tensor only SOFTMAX operators read, and of the
    masks added into them (see above); returns how many ranges changed."""
    consumers, producers = graph.consumers(), graph.producers()
    outputs = {id(t) for t in graph.outputs}
    changed = 0
    masks: dict[int, tuple[Tensor, float]] = {}
    for op in graph.operators:
        x = op.inputs[0] if op.opcode == "SOFTMAX" and op.inputs else None
        if x is None or not has_range(x) or id(x) in outputs:
            continue
        if any(reader.opcode != "SOFTMAX" for reader in consumers.get(x, [])):
            continue
        beta = float(getattr(op.options, "beta", 1.0) or 1.0)
        floor = float(x.quant.max[0]) - SPAN / beta  # type: ignore[union-attr,index]
        if float(x.quant.min[0]) < SENTINEL:  # type: ignore[union-attr,index]
            _raise_min(x, floor)
            changed += 1
        add = producers.get(x)
        if add is None or add.opcode != "ADD" or len(add.inputs) != 2:
            continue
        for k, (mask, other) in enumerate((add.inputs, add.inputs[::-1])):
            if not has_range(other) or mask is None:
                continue
            low = floor - float(other.quant.max[0])  # type: ignore[union-attr,index]
            if mask.is_constant and float(np.min(mask.data, initial=0.0)) < SENTINEL:
                clipped = np.maximum(mask.data, np.float32(low))
                add.inputs[k] = Tensor.constant(f"{mask.name}_Clipped", clipped, mask.dtype)
                changed += 1
            elif has_range(mask) and float(mask.quant.min[0]) < SENTINEL:  # type: ignore[union-attr,index]
                masks[id(mask)] = (mask, min(low, masks.get(id(mask), (mask, low))[1]))
    for mask, low in masks.values():
        _raise_min(mask, low)
        changed += 1
    return changed


def _raise_min(t: Tensor, low: float) -> None:
    t.quant.min = np.array([low], np.float32)  # type: ignore[union-attr]
