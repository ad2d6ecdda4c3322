"""fold_add_v2, fold_cast, fold_densify, fold_dwconv, fold_fully_connected, fold_gather,
fold_sparse_to_dense (optimization.md §5.21): folded operators leave no operator behind."""

import numpy as np
import pytest
from circle_schema.v0_10.circle.DimensionMetadata import DimensionMetadataT
from circle_schema.v0_10.circle.Int32Vector import Int32VectorT
from circle_schema.v0_10.circle.SparsityParameters import SparsityParametersT

from one_cmds.interp import Interpreter
from one_cmds.ir import QuantParam, Tensor
from support.litert import random_inputs
from support.passes import (
    Net,
    assert_same_outputs,
    depthwise_options,
    kinds,
    new_options,
    op_named,
    optimized,
    origin_names,
    run_reference,
)

ADD = new_options("AddOptions")


def consumed(net, folded, shape, dtype="FLOAT32"):
    """``ADD(x, folded)`` as the graph output, x a graph input of the folded value's shape."""
    x = net.input("x", shape, dtype)
    net.outputs(net.op("ADD", [x, folded], ADD, name="add"))
    return net.model()


def assert_folded_away(model, after):
    """Only the consumer is left, with its own origin."""
    assert kinds(after) == ["ADD"]
    assert origin_names(after, op_named(after, "ADD")) == {"add"}
    assert after.main.operators[0].inputs[1].is_constant


def folded_value(after):
    return after.main.operators[0].inputs[1].data


# -- fold_add_v2 ------------------------------------------------------------------------------


def add_v2_net(a, b, *, dtype="INT64", const_b=True):
    net = Net()
    x = net.input("x", (2, 3), dtype)
    rhs = net.const("b", b) if const_b else net.input("b", np.shape(b), dtype)
    out = net.op(
        "CUSTOM", [net.const("a", a), rhs], outputs=[dtype], custom_code="AddV2", name="addv2"
    )
    out.shape = (2, 3)
    net.outputs(net.op("ADD", [x, out], ADD, name="add"))
    return net.model()


def test_add_v2_of_two_int64_constants_folds():
    a = np.arange(6, dtype=np.int64).reshape(2, 3) * 2**33
    b = -np.arange(6, dtype=np.int64).reshape(2, 3)
    model = add_v2_net(a, b)
    after = optimized(model, "fold_add_v2")
    assert_folded_away(model, after)
    np.testing.assert_array_equal(folded_value(after), a + b)
    inputs = random_inputs(model, seed=3)
    want = Interpreter(model).run(inputs)  # LiteRT cannot run Custom(AddV2)
    np.testing.assert_array_equal(run_reference(after, inputs)[0], want[0])


@pytest.mark.parametrize(
    "variant",
    [
        {"b": np.ones(3, np.int64)},  # broadcast, not the same shape
        {"b": np.ones((2, 3), np.int32), "dtype": "INT32"},
        {"b": np.ones((2, 3), np.int64), "const_b": False},
    ],
)
def test_add_v2_near_misses_stay(variant):
    model = add_v2_net(np.ones((2, 3), variant.get("b").dtype), **variant)
    after = optimized(model, "fold_add_v2")
    assert kinds(after) == ["CUSTOM(AddV2)", "ADD"]


# -- fold_cast --------------------------------------------------------------------------------


def test_cast_int64_to_int32_folds_as_the_runtime_converts():
    net = Net()
    values = np.array([1, -7, 2**40 + 5, -(2**35)], np.int64)  # out of range: wraps
    cast = net.op(
        "CAST", [net.const("c", values)], new_options("CastOptions"), outputs=["INT32"], name="c32"
    )
    model = consumed(net, cast, (4,), "INT32")
    after = optimized(model, "fold_cast")
    assert_folded_away(model, after)
    np.testing.assert_array_equal(folded_value(after), values.astype(np.int32))
    assert_same_outputs(model, after)


@pytest.mark.parametrize("case", ["int32_to_float", "non_const"])
def test_cast_near_misses_stay(case):
    net = Net()
    if case == "non_const":
        source = net.input("s", [4], "INT64")
    else:
        source = net.const("c", np.arange(4, dtype=np.int32))
    target = "INT32" if case == "non_const" else "FLOAT32"
    cast = net.op("CAST", [source], new_options("CastOptions"), outputs=[target], name="c")
    model = consumed(net, cast, (4,), target)
    assert kinds(optimized(model, "fold_cast")) == ["CAST", "ADD"]


# -- fold_densify -----------------------------------------------------------------------------


def csr_constant():
    """[[0, 1.5, 0], [2, 0, 3]] stored as CSR: dense rows, sparse columns."""
    rows, columns = DimensionMetadataT(), DimensionMetadataT()
    rows.format, rows.denseSize = 0, 2
    columns.format = 1
    columns.arraySegmentsType = columns.arrayIndicesType = 1  # Int32Vector
    columns.arraySegments, columns.arrayIndices = Int32VectorT(), Int32VectorT()
    columns.arraySegments.values, columns.arrayIndices.values = [0, 1, 3], [1, 0, 2]
    sparsity = SparsityParametersT()
    sparsity.traversalOrder, sparsity.dimMetadata = [0, 1], [rows, columns]
    t = Tensor.constant("sparse", np.array([1.5, 2.0, 3.0], np.float32))
    t.shape, t.sparsity = (2, 3), sparsity
    return t


def test_densify_of_a_sparse_constant_folds():
    net = Net()
    dense = net.op("DENSIFY", [csr_constant()], new_options("DensifyOptions"), name="densify")
    model = consumed(net, dense, (2, 3))
    after = optimized(model, "fold_densify")
    assert_folded_away(model, after)
    np.testing.assert_array_equal(folded_value(after), [[0, 1.5, 0], [2, 0, 3]])
    assert after.main.operators[0].inputs[1].sparsity is None
    assert_same_outputs(model, after)


# -- fold_dwconv ------------------------------------------------------------------------------


def dwconv_net(*, act=0, const_input=True):
    net = Net()
    source = net.random("in", [1, 5, 5, 3]) if const_input else net.input("in", [1, 5, 5, 3])
    options = depthwise_options(act, multiplier=2, stride=(2, 1))
    inputs = [source, net.random("w", [1, 3, 3, 6]), net.random("b", [6])]
    return consumed(net, net.op("DEPTHWISE_CONV_2D", inputs, options, name="dw"), (1, 3, 5, 6))


@pytest.mark.parametrize("act", [0, 1, 2, 3])  # NONE, RELU, RELU_N1_TO_1, RELU6
def test_dwconv_with_constant_operands_folds_with_its_activation(act):
    model = dwconv_net(act=act)
    after = optimized(model, "fold_dwconv")
    assert_folded_away(model, after)
    assert_same_outputs(model, after)


@pytest.mark.parametrize("variant", [{"const_input": False}, {"act": 4}])  # 4: TANH
def test_dwconv_near_misses_stay(variant):
    """A fused TANH stays: LiteRT ignores it, the interpreter's kernel applies it."""
    model = dwconv_net(**variant)
    assert kinds(optimized(model, "fold_dwconv")) == ["DEPTHWISE_CONV_2D", "ADD"]


# -- fold_fully_connected ---------------------------------------------------------------------


def fc_net(*, act=0, bias=True, weights_format=0, const_weights=True, keep=False):
    net = Net(1)
    w = net.random("w", [3, 4]) if const_weights else net.input("w", [3, 4])
    options = new_options(
        "FullyConnectedOptions",
        fusedActivationFunction=act,
        weightsFormat=weights_format,
        keepNumDims=keep,
    )
    inputs = [net.random("in", [2, 2, 4]), w, net.random("b", [3]) if bias else None]
    shape = (2, 2, 3) if keep else (4, 3)
    return consumed(net, net.op("FULLY_CONNECTED", inputs, options, name="fc"), shape)


@pytest.mark.parametrize("variant", [{}, {"act": 1}, {"bias": False}, {"keep": True}])
def test_fully_connected_with_constant_operands_folds(variant):
    model = fc_net(**variant)
    after = optimized(model, "fold_fully_connected")
    assert_folded_away(model, after)
    assert_same_outputs(model, after)


@pytest.mark.parametrize("variant", [{"const_weights": False}, {"weights_format": 1}, {"act": 4}])
def test_fully_connected_near_misses_stay(variant):
    model = fc_net(**variant)
    assert kinds(optimized(model, "fold_fully_connected")) == ["FULLY_CONNECTED", "ADD"]


# -- fold_gather ------------------------------------------------------------------------------


def gather_net(params, indices, *, axis=0, const_indices=True):
    net = Net()
    idx = (
        net.const("idx", indices) if const_indices else net.input("idx", np.shape(indices), "INT32")
    )
    dtype = {np.dtype(np.float32): "FLOAT32", np.dtype(np.int32): "INT32"}[params.dtype]
    gathered = net.op(
        "GATHER",
        [net.const("params", params), idx],
        new_options("GatherOptions", axis=axis),
        outputs=[dtype],
        name="gather",
    )
    return consumed(net, gathered, np.take(params, indices, axis=axis).shape, dtype)


@pytest.mark.parametrize(
    ("params", "indices", "axis"),
    [
        (np.arange(12, dtype=np.int32).reshape(3, 4), np.array([2, 0, 2], np.int32), 0),
        (np.arange(24, dtype=np.float32).reshape(2, 3, 4), np.array([[3, 1]], np.int64), 2),
    ],
)
def test_gather_of_constants_folds(params, indices, axis):
    model = gather_net(params, indices, axis=axis)
    after = optimized(model, "fold_gather")
    assert_folded_away(model, after)
    np.testing.assert_array_equal(folded_value(after), np.take(params, indices, axis=axis))
    assert_same_outputs(model, after)


def test_gather_with_runtime_indices_stays():
    model = gather_net(np.zeros((3, 4), np.float32), np.zeros(2, np.int32), const_indices=False)
    assert kinds(optimized(model, "fold_gather")) == ["GATHER", "ADD"]


def test_folded_quantized_gather_keeps_the_quantization_parameters():
    net = Net()
    params = Tensor.constant("params", np.arange(-6, 6, dtype=np.int8).reshape(3, 4))
    params.quant = QuantParam(scale=np.array([0.5], np.float32), zero_point=np.array([1]))
    gathered = net.op(
        "GATHER",
        [params, net.const("idx", [2, 1], np.int32)],
        new_options("GatherOptions"),
        outputs=["INT8"],
        name="gather",
    )
    gathered.quant = QuantParam(scale=np.array([0.5], np.float32), zero_point=np.array([1]))
    net.outputs(net.op("DEQUANTIZE", [gathered], name="dq"))
    model = net.model()
    after = optimized(model, "fold_gather")
    assert kinds(after) == ["DEQUANTIZE"]
    folded = after.main.operators[0].inputs[0]
    np.testing.assert_array_equal(folded.quant.scale, [0.5])
    np.testing.assert_array_equal(folded.quant.zero_point, [1])
    assert_same_outputs(model, after)


# -- fold_sparse_to_dense ---------------------------------------------------------------------


def sparse_to_dense_net(*, const_values=True):
    net = Net()
    values = net.const("v", [5.0, -6.0]) if const_values else net.input("v", [2])
    operands = [
        net.const("i", [[0, 1], [2, 3]], np.int32),
        net.const("shape", [3, 4], np.int32),
        values,
        net.const("default", 0.5, np.float32),
    ]
    dense = net.op("SPARSE_TO_DENSE", operands, new_options("SparseToDenseOptions"), name="s2d")
    return consumed(net, dense, (3, 4))


def test_sparse_to_dense_of_constants_folds():
    model = sparse_to_dense_net()
    after = optimized(model, "fold_sparse_to_dense")
    assert_folded_away(model, after)
    want = np.full((3, 4), 0.5, np.float32)
    want[0, 1], want[2, 3] = 5, -6
    np.testing.assert_array_equal(folded_value(after), want)
    assert_same_outputs(model, after)


def test_sparse_to_dense_with_runtime_values_stays():
    model = sparse_to_dense_net(const_values=False)
    assert kinds(optimized(model, "fold_sparse_to_dense")) == ["SPARSE_TO_DENSE", "ADD"]
