"""Sequences of tensors split from one (onnx-import.md §6.1): SplitToSequence and SequenceAt
with a constant position, as torch.onnx writes ``torch.split``/``chunk`` without its
optimizer. The sequence is the parts of one SPLIT; other sequence operators are unsupported."""

from __future__ import annotations

import numpy as np

from ..errors import Unsupported
from ..lowering import Lowering, converter
from ..node import Node
from .indexing import split_parts
from .shape_building import bind_sized, normalized_axes, squeeze


@converter("SplitToSequence")
def split_to_sequence(node: Node, lo: Lowering) -> None:
    """SplitToSequence (11): a scalar ``split`` is the chunk size (the last chunk smaller), a
    1-D one the sizes; without it, parts of size 1, squeezed unless ``keepdims``."""
    x_name = node.input(0)
    axis = normalized_axes([int(node.attr("axis", 0))], lo.rank(x_name))[0]
    dim = lo.shape(x_name)[axis]  # type: ignore[index]
    if dim is None:
        raise Unsupported(f"dimension {axis} of '{x_name}' must be known")
    given = lo.require_const(node.input(1)) if node.input(1) else None
    if given is None:
        sizes = [1] * dim
    elif given.ndim == 0:
        chunk = int(given)
        sizes = [chunk] * (dim // chunk) + ([dim % chunk] if dim % chunk else [])
    else:
        sizes = [int(s) for s in given.reshape(-1)]
    parts = split_parts(lo, x_name, axis, len(sizes), sizes)
    if given is None and not int(node.attr("keepdims", 1)):
        parts = [(squeeze(lo, t, [axis], d[:axis] + d[axis + 1 :]), d[:axis] + d[axis + 1 :])
                 for t, d in parts]  # fmt: skip
    lo.sequences[node.outputs[0]] = parts


@converter("SequenceAt")
def sequence_at(node: Node, lo: Lowering) -> None:
    """SequenceAt (11) of a split sequence at a constant position (negative from the end)."""
    parts = lo.sequences.get(node.input(0))
    if parts is None:
        raise Unsupported(f"sequence '{node.input(0)}' must come from SplitToSequence")
    position = int(np.asarray(lo.require_const(node.input(1))).reshape(-1)[0])
    if not -len(parts) <= position < len(parts):
        raise Unsupported(f"position {position} is outside the sequence of {len(parts)}")
    tensor, dims = parts[position]
    bind_sized(lo, node.outputs[0], tensor, dims)
