"""DENSIFY of sparse constants (CSR, CSC, block-sparse) against LiteRT."""

import numpy as np
import pytest
from circle_schema.v0_10.circle.DimensionMetadata import DimensionMetadataT
from circle_schema.v0_10.circle.Int32Vector import Int32VectorT
from circle_schema.v0_10.circle.SparsityParameters import SparsityParametersT
from circle_schema.v0_10.circle.Uint8Vector import Uint8VectorT

from one_cmds.interp import Interpreter, InterpreterError
from support.litert import BUILTIN, run_model
from support.single_op import const, op_model

DENSE, SPARSE_CSR = 0, 1
RNG = np.random.default_rng(5)


def sparse_dense(shape, dtype, density=0.3):
    values = (
        RNG.integers(1, 100, shape)
        if np.issubdtype(dtype, np.integer)
        else RNG.standard_normal(shape)
    )
    return np.where(RNG.random(shape) < density, values, 0).astype(dtype)


def index_vector(values, small):
    vector = Uint8VectorT() if small else Int32VectorT()
    vector.values = list(values)
    return vector, (3 if small else 1)  # SparseIndexVector Uint8Vector / Int32Vector


def encode(dense, order, formats, block_map=(), block_sizes=(), small_indices=False):
    """The stored values and SparsityParametersT of ``dense`` in TFLite's format."""
    rank = dense.ndim
    blocked = list(dense.shape)
    split_shape, block_axes = [], []
    for d in range(rank):
        if d in block_map:
            size = block_sizes[list(block_map).index(d)]
            blocked[d] //= size
            split_shape += [blocked[d], size]
            block_axes.append(len(split_shape) - 1)
        else:
            split_shape.append(blocked[d])
    outer_axes = [a for a in range(len(split_shape)) if a not in block_axes]
    expanded = dense.reshape(split_shape).transpose(outer_axes + block_axes)
    levels = expanded.transpose(order)
    metas = [DimensionMetadataT() for _ in order]
    segments = [[0] for _ in order]
    indices = [[] for _ in order]
    values = []

    def visit(level, sub):
        if level == len(order):
            values.append(sub)
            return
        for i in range(sub.shape[0]):
            if formats[level] == DENSE or np.any(sub[i] != 0):
                if formats[level] != DENSE:
                    indices[level].append(i)
                visit(level + 1, sub[i])
        segments[level].append(len(indices[level]))

    visit(0, levels)
    for level, meta in enumerate(metas):
        meta.format = formats[level]
        if formats[level] == DENSE:
            meta.denseSize = levels.shape[level]
        else:
            meta.arraySegments, meta.arraySegmentsType = index_vector(
                segments[level], small_indices
            )
            meta.arrayIndices, meta.arrayIndicesType = index_vector(indices[level], small_indices)
    params = SparsityParametersT()
    params.traversalOrder = list(order)
    params.blockMap = list(block_map)
    params.dimMetadata = metas
    return np.array(values, dtype=dense.dtype), params


def densify_model(dense, stored, params, out_dtype):
    model = op_model("DENSIFY", [const(stored)], outputs=[out_dtype])
    tensor = model.main.operators[0].inputs[0]
    tensor.shape = dense.shape
    tensor.sparsity = params
    return model


CASES = {
    "csr": ((4, 6), [0, 1], [DENSE, SPARSE_CSR], (), ()),
    "csc": ((4, 6), [1, 0], [DENSE, SPARSE_CSR], (), ()),
    "both_sparse": ((5, 4), [0, 1], [SPARSE_CSR, SPARSE_CSR], (), ()),
    "dense_only": ((3, 4), [0, 1], [DENSE, DENSE], (), ()),
    "3d": ((3, 4, 5), [0, 1, 2], [DENSE, SPARSE_CSR, SPARSE_CSR], (), ()),
    "block_2x3": ((4, 6), [0, 1, 2, 3], [DENSE, SPARSE_CSR, DENSE, DENSE], (0, 1), (2, 3)),
    "block_1x4": ((4, 8), [0, 1, 2], [DENSE, SPARSE_CSR, DENSE], (1,), (4,)),
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize(("dtype", "name"), [(np.float32, "FLOAT32"), (np.int8, "INT8")])
@pytest.mark.parametrize("small_indices", [False, True])
def test_densify(case, dtype, name, small_indices):
    shape, order, formats, block_map, block_sizes = CASES[case]
    dense = sparse_dense(shape, dtype)
    stored, params = encode(dense, order, formats, block_map, block_sizes, small_indices)
    model = densify_model(dense, stored, params, name)
    (got,) = Interpreter(model).run([])
    np.testing.assert_array_equal(got, dense)
    (expected,) = run_model(model, [], BUILTIN)  # XNNPACK fails to set up DENSIFY
    np.testing.assert_array_equal(got, expected)


def test_densify_of_an_all_zero_matrix():
    dense = np.zeros((3, 4), np.float32)
    stored, params = encode(dense, [0, 1], [DENSE, SPARSE_CSR])
    assert stored.size == 0
    (got,) = Interpreter(densify_model(dense, stored, params, "FLOAT32")).run([])
    np.testing.assert_array_equal(got, dense)


def test_densify_with_too_few_stored_values_is_an_error():
    dense = np.eye(3, dtype=np.float32)
    stored, params = encode(dense, [0, 1], [DENSE, SPARSE_CSR])
    with pytest.raises(InterpreterError, match="stored values"):
        Interpreter(densify_model(dense, stored[:2], params, "FLOAT32")).run([])
