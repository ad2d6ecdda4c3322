"""Shape-value inference: shape arithmetic evaluated from known shapes (resize.md §4)."""

import numpy as np
import pytest

from one_cmds.interp.registry import KERNELS
from one_cmds.ir import Model
from one_cmds.shape import ShapeInferenceError, infer_shapes
from support.litert import random_inputs, run_model
from support.shape_helpers import GraphBuilder
from support.single_op import new_options

N = None
I32 = ("INT32",)


def flatten_by_slice_and_prod(b, x):
    """[-1, prod(shape[1:])] via SHAPE, SLICE, REDUCE_PROD, CONCATENATION."""
    shape = b.op("SHAPE", [x], new_options("ShapeOptions", outType=2), dtypes=I32)
    tail = b.op("SLICE", [shape, b.const([1]), b.const([-1])], dtypes=I32)
    prod = b.op("REDUCE_PROD", [tail, b.const([0])], new_options("ReducerOptions", keepDims=True),
                dtypes=I32)  # fmt: skip
    return b.op(
        "CONCATENATION", [b.const([-1]), prod], new_options("ConcatenationOptions"), dtypes=I32
    )


def batch_by_arithmetic(b, x):
    """[batch, -1] via SHAPE (int64), CAST, GATHER, ADD/SUB/MUL/FLOOR_DIV/MAXIMUM/MINIMUM, PACK."""
    shape = b.op("SHAPE", [x], new_options("ShapeOptions", outType=4), dtypes=("INT64",))
    shape = b.op(
        "CAST", [shape], new_options("CastOptions", inDataType=4, outDataType=2), dtypes=I32
    )
    n = b.op("GATHER", [shape, b.const(0)], new_options("GatherOptions"), dtypes=I32)
    n = b.op("ADD", [n, b.const(3)], new_options("AddOptions"), dtypes=I32)
    n = b.op("MUL", [n, b.const(2)], new_options("MulOptions"), dtypes=I32)
    n = b.op("FLOOR_DIV", [n, b.const(2)], dtypes=I32)
    n = b.op("SUB", [n, b.const(3)], new_options("SubOptions"), dtypes=I32)
    n = b.op("MAXIMUM", [n, b.const(1)], dtypes=I32)
    n = b.op("MINIMUM", [n, b.const(1000)], dtypes=I32)
    return b.op("PACK", [n, b.const(-1)], new_options("PackOptions", valuesCount=2), dtypes=I32)


def same_by_reshape_squeeze(b, x):
    """The shape itself, through RESHAPE to [1, rank], EXPAND_DIMS and SQUEEZE."""
    shape = b.op("SHAPE", [x], new_options("ShapeOptions", outType=2), dtypes=I32)
    shape = b.op("RESHAPE", [shape, b.const([1, 3])], dtypes=I32)
    shape = b.op("EXPAND_DIMS", [shape, b.const(0)], dtypes=I32)
    return b.op("SQUEEZE", [shape], new_options("SqueezeOptions", squeezeDims=[0, 1]), dtypes=I32)


def shape_element(b, x, index):
    """``shape(x)[index]`` via STRIDED_SLICE with shrink_axis_mask, as the converter emits."""
    shape = b.op("SHAPE", [x], new_options("ShapeOptions", outType=2), dtypes=I32)
    bounds = [b.const([index]), b.const([index + 1]), b.const([1])]
    return b.op("STRIDED_SLICE", [shape, *bounds],
                new_options("StridedSliceOptions", shrinkAxisMask=1), dtypes=I32)  # fmt: skip


def shrink_slice(b, x):
    """[shape[0], -1]."""
    n = shape_element(b, x, 0)
    return b.op("PACK", [n, b.const(-1)], new_options("PackOptions", valuesCount=2), dtypes=I32)


# chain -> (result for input [?, 2, 3], result for input [4, 2, 3]): the dims a value known in
# part gives (SHAPE of [?, 2, 3] is [?, 2, 3]) stay known while the batch is unknown.
CHAINS = {
    flatten_by_slice_and_prod: ((N, 6), (4, 6)),
    batch_by_arithmetic: ((N, N), (4, 6)),
    same_by_reshape_squeeze: ((N, 2, 3), (4, 2, 3)),
    shrink_slice: ((N, N), (4, 6)),
}


def chain_model(chain):
    b = GraphBuilder()
    x = b.input((N, 2, 3))
    y = b.op("RESHAPE", [x, chain(b, x)])
    y = b.op("RELU", [y])
    return Model(graphs=[b.graph(y)]), x, y


@pytest.mark.parametrize("chain", CHAINS, ids=[c.__name__ for c in CHAINS])
def test_chain_becomes_static_when_the_input_does(chain):
    model, x, y = chain_model(chain)
    unknown, static = CHAINS[chain]
    infer_shapes(model)
    assert y.shape == unknown
    x.shape = (4, 2, 3)
    infer_shapes(model)
    assert y.shape == static
    assert all(t.is_static for t in model.main.referenced_tensors())
    [out] = run_model(model, random_inputs(model))
    assert out.shape == static


def test_value_is_not_evaluated_without_a_kernel(monkeypatch):
    monkeypatch.delitem(KERNELS, "PACK")
    model, x, y = chain_model(shrink_slice)
    x.shape = (4, 2, 3)
    infer_shapes(model)
    assert y.shape == (N, N)


def test_value_of_fill_and_broadcast_operands():
    b = GraphBuilder()
    x = b.input((N, 3))
    shape = b.op("SHAPE", [x], new_options("ShapeOptions", outType=2), dtypes=I32)
    filled = b.op("FILL", [shape, b.const(1.5, np.float32)])
    zeros = b.op("ZEROS_LIKE", [filled])
    wide = b.op("BROADCAST_TO", [b.const([[1.0]], np.float32), shape])
    total = b.op("ADD", [zeros, wide], new_options("AddOptions"))
    model = Model(graphs=[b.graph(total)])
    model.main.operators[3].version = 2
    infer_shapes(model)
    assert total.shape == filled.shape == wide.shape == (N, 3)  # the known dim of the shape
    x.shape = (5, 3)
    infer_shapes(model)
    assert filled.shape == wide.shape == total.shape == (5, 3)
    [out] = run_model(model, random_inputs(model))
    assert out.shape == (5, 3)


def test_large_constant_arithmetic_is_not_evaluated():
    """Only small values are shape values; big integer tensors are left to the runtime."""
    b = GraphBuilder()
    x = b.input((N,), "INT32")
    big = b.op("ADD", [b.const(np.ones(1000)), b.const(np.ones(1000))], new_options("AddOptions"),
               dtypes=I32)  # fmt: skip
    y = b.op("RESHAPE", [x, b.op("SHAPE", [big], new_options("ShapeOptions"), dtypes=I32)],
             dtypes=I32)  # fmt: skip
    model = Model(graphs=[b.graph(y)])
    infer_shapes(model)
    assert big.shape == (1000,) and y.shape == (1000,)


def test_arithmetic_on_a_value_known_in_part():
    """SHAPE [?, 2, 3] times [1, 2, 2] is [?, 4, 6]: known where both operands are."""
    b = GraphBuilder()
    x = b.input((N, 2, 3))
    shape = b.op("SHAPE", [x], new_options("ShapeOptions", outType=2), dtypes=I32)
    wider = b.op("MUL", [shape, b.const([1, 2, 2])], new_options("MulOptions"), dtypes=I32)
    filled = b.op("FILL", [wider, b.const(0.5, np.float32)])
    model = Model(graphs=[b.graph(filled)])
    infer_shapes(model)
    assert filled.shape == (N, 4, 6)
    x.shape = (5, 2, 3)
    infer_shapes(model)
    assert filled.shape == (5, 4, 6)
    [out] = run_model(model, random_inputs(model))
    assert out.shape == (5, 4, 6)


def test_indices_known_in_part_take_nothing_known():
    """GATHER of [4, 6] at indices SHAPE [?, 1]: which element each result holds is unknown."""
    b = GraphBuilder()
    x = b.input((N, 1))
    shape = b.op("SHAPE", [x], new_options("ShapeOptions", outType=2), dtypes=I32)
    taken = b.op("GATHER", [b.const([4, 6]), shape], new_options("GatherOptions"), dtypes=I32)
    filled = b.op("FILL", [taken, b.const(0.5, np.float32)])
    model = Model(graphs=[b.graph(filled)])
    infer_shapes(model)
    assert filled.shape == (N, N)
    x.shape = (1, 1)
    infer_shapes(model)
    assert filled.shape == (6, 6)


def test_a_value_no_run_can_compute_names_operator_and_tensor():
    """Element 3 of the shape of a rank-3 tensor: refused whatever the unknown batch is."""
    b = GraphBuilder()
    x = b.input((N, 2, 3))
    y = b.op("RESHAPE", [x, shape_element(b, x, 3)])
    with pytest.raises(ShapeInferenceError) as e:
        infer_shapes(Model(graphs=[b.graph(y)]))
    assert str(e.value) == (
        "STRIDED_SLICE (graph 0, operator 1): cannot compute the value of 'main_op1_0': "
        "index 3 is out of range for a dimension of size 3"
    )
