"""DENSIFY: expand a sparse constant (TFLite's sparsity format) into its dense array."""

from __future__ import annotations

import numpy as np

from ...ir import numpy_dtype
from ..registry import kernel

_DENSE = 0  # DimensionType.DENSE; SPARSE_CSR is 1


def _index_vector(vector) -> np.ndarray:
    """The values of an Int32Vector / Uint16Vector / Uint8Vector union member."""
    values = getattr(vector, "values", None)
    if values is None:
        raise ValueError("a SPARSE_CSR dimension without array_segments / array_indices")
    return np.asarray(values, dtype=np.intp)


def _traverse(dim_metadata) -> np.ndarray:
    """The coordinates, one row per stored value (in storage order), one column per level.

    Follows TFLite's FormatConverter: a dense level of size n repeats every path n times; a
    sparse level gives path p the indices ``array_indices[segments[p]:segments[p + 1]]``,
    where p is the path's position in the previous level.
    """
    coords = np.zeros((1, 0), dtype=np.intp)
    position = np.zeros(1, dtype=np.intp)
    for meta in dim_metadata:
        if meta.format == _DENSE:
            n = int(meta.denseSize)
            coords = np.repeat(coords, n, axis=0)
            index = np.tile(np.arange(n, dtype=np.intp), len(position))
            position = (position[:, None] * n + np.arange(n)).reshape(-1)
        else:
            segments = _index_vector(meta.arraySegments)
            indices = _index_vector(meta.arrayIndices)
            starts, counts = segments[position], segments[position + 1] - segments[position]
            if np.any(counts < 0):
                raise ValueError("array_segments must not decrease")
            coords = np.repeat(coords, counts, axis=0)
            first = np.cumsum(counts) - counts
            position = np.repeat(starts - first, counts) + np.arange(int(counts.sum()))
            index = indices[position]
        coords = np.column_stack([coords, index])
    return coords


@kernel("DENSIFY")
def densify(op, args, ctx):
    """The sparse input arrives as its flat storage; ``op.inputs[0].sparsity`` (a
    ``SparsityParametersT``) says where each stored value goes in the dense shape."""
    tensor = op.inputs[0]
    sparsity = tensor.sparsity
    shape = tensor.shape
    dtype = numpy_dtype(tensor.dtype)
    if sparsity is None or dtype is None or None in shape:
        raise ValueError("DENSIFY needs a sparse constant of a numeric type and a static shape")
    rank = len(shape)
    dim_metadata = list(sparsity.dimMetadata or [])
    order = [int(v) for v in sparsity.traversalOrder] if sparsity.traversalOrder is not None else []
    order = order or list(range(rank))
    block_map = [int(v) for v in (sparsity.blockMap if sparsity.blockMap is not None else [])]
    if len(order) != len(dim_metadata) or len(order) != rank + len(block_map):
        raise ValueError("traversal_order, block_map and dim_metadata do not agree")
    coords = _traverse(dim_metadata)
    dense_index: list[np.ndarray] = [np.zeros(0, np.intp)] * rank
    for level, dim in enumerate(order):
        if level < rank:
            dense_index[dim] = coords[:, level]
        else:
            block = dim - rank
            size = int(dim_metadata[level].denseSize)
            original = block_map[block]
            dense_index[original] = dense_index[original] * size + coords[:, level]
    values = np.ascontiguousarray(args[0]).reshape(-1).view(dtype)
    if values.size < len(coords):
        raise ValueError(f"{values.size} stored values for {len(coords)} positions")
    out = np.zeros(shape, dtype=dtype)
    out[tuple(dense_index)] = values[: len(coords)]
    return out
