"""Specialization through shape computations (issue 17): Llama-style ONNX graphs whose sizes
come from ``Shape`` of an input with unknown batch and sequence (causal masks from RANGE and
comparisons, position ids from CUMSUM, last-token GATHER_ND, Expand and Reshape to computed
shapes). Resized to static shapes, no tensor keeps an unknown dim, and the resized model
written as ``.tflite`` runs in LiteRT (and the interpreter) equal to onnxruntime. Values known in
part (before a resize) go through comparisons, SELECT and float CASTs."""

from __future__ import annotations

import functools

import numpy as np
import onnx
import pytest

import one_cmds
from one_cmds.frontends.onnx import import_onnx
from one_cmds.ir import Model, Tensor
from one_cmds.shape import infer_shapes
from support.litert import random_inputs, run_model
from support.onnx_check import check, onnx_inputs
from support.onnx_text import text_model
from support.shape_helpers import GraphBuilder
from support.single_op import new_options

N = None

RNG = np.random.default_rng(0)
SHAPES = [(1, 16, 8), (2, 5, 8), (3, 1, 8)]


def i64(*values: int) -> np.ndarray:
    return np.array(values, np.int64)


SCALARS = dict(zero=np.array(0, np.int64), one=np.array(1, np.int64), two=np.array(2, np.int64))
AXES = dict(axis0=i64(0), axis1=i64(1), axes01=i64(0, 1), start0=i64(0), end1=i64(1), end2=i64(2))
MASK_VALUES = dict(fzero=np.array(0, np.float32), fmin=np.array(-1e9, np.float32))

# The end of a graph adding its ``mask`` to attention scores [B, 1, S, S] of ``x``.
ATTENTION = """
    q = Unsqueeze(x, axis1)
    k = Transpose<perm=[0,1,3,2]>(q)
    scores = MatMul(q, k)
    masked = Add(scores, mask)
    y = Softmax<axis=-1>(masked)
}"""

# A causal mask from Range(0, Shape(x)[1]) and every comparison, chosen by Where.
CAUSAL_MASK = """
g (float[B,S,8] x) => (float[B,1,S,S] y) {
    shape = Shape(x)
    s = Gather(shape, one)
    r = Range(zero, s, one)
    rows = Unsqueeze(r, axis1)
    cols = Unsqueeze(r, axis0)
    past = Less(cols, rows)
    diagonal = Equal(cols, rows)
    seen = Or(past, diagonal)
    future = Greater(cols, rows)
    present = Not(future)
    both = And(seen, present)
    upto = LessOrEqual(cols, rows)
    visible = And(both, upto)
    mask = Where(visible, fzero, fmin)
"""

# Rotary angles over a float Range(0.0, float(Shape(x)[1]), 1.0).
ROTARY = """
g (float[B,S,8] x) => (float[B,S,8] y) {
    shape = Shape(x)
    s = Gather(shape, one)
    limit = Cast<to=1>(s)
    t = Range(fstart, limit, fstep)
    column = Unsqueeze(t, axis1)
    freqs = Mul(column, inv_freq)
    angles = Concat<axis=-1>(freqs, freqs)
    cos = Cos(angles)
    sin = Sin(angles)
    xc = Mul(x, cos)
    xs = Mul(x, sin)
    y = Add(xc, xs)
}"""

# Position ids as HF computes them from a mask of ones (``mask.cumsum(-1) - 1``); their
# largest value + 1 sizes a second embedding (values followed through FILL, CUMSUM, SUB,
# REDUCE_MAX, ADD into RANGE).
POSITIONS = """
g (float[B,S,8] x) => (float[B,S,8] y) {
    shape = Shape(x)
    bs = Slice(shape, start0, end2)
    ones = ConstantOfShape<value = int64[1] {1}>(bs)
    counts = CumSum(ones, axis1)
    positions = Sub(counts, one)
    embedded = Gather(table, positions)
    top = ReduceMax<keepdims=0>(positions)
    n = Add(top, one)
    rows = Range(zero, n, one)
    bias = Gather(table, rows)
    shifted = Add(x, embedded)
    y = Add(shifted, bias)
}"""

# The last token of each row by GatherND at [range(b), s - 1] (indices wrapped by FLOOR_MOD in
# the graph), and the longest row length read by GatherND from a CumSum slicing the input.
LAST_TOKEN = """
g (float[B,S,8] x) => (float[B,8] y, float[B,S,8] z) {
    shape = Shape(x)
    b = Gather(shape, zero)
    s = Gather(shape, one)
    batch = Range(zero, b, one)
    row = Unsqueeze(batch, axis1)
    last = Sub(s, one)
    lastv = Unsqueeze(last, axis0)
    bv = Unsqueeze(b, axis0)
    target = Concat<axis=0>(bv, onev)
    column = Expand(lastv, target)
    index = Concat<axis=1>(row, column)
    y = GatherND(x, index)
    bs = Slice(shape, start0, end2)
    ones = ConstantOfShape<value = int64[1] {1}>(bs)
    counts = CumSum(ones, axis1)
    lengths = GatherND(counts, index)
    longest = ReduceMax<keepdims=1>(lengths)
    z = Slice(x, start0, longest, end1)
}"""

# A [1, 1, S, S] mask expanded to [B, 1, S, S]: by a Concat of Shape slices, and as
# torch's ``expand(b, 1, -1, -1)`` (Where(Equal(size, -1), 1, size)).
EXPAND = """
g (float[B,S,8] x) => (float[B,1,S,S] y) {
    shape = Shape(x)
    bdim = Slice(shape, start0, end1)
    sdim = Slice(shape, end1, end2)
    s = Squeeze(sdim, axis0)
    r = Range(zero, s, one)
    rows = Unsqueeze(r, axis1)
    causal = LessOrEqual(r, rows)
    square = Where(causal, fzero, fmin)
    square4 = Unsqueeze(square, axes01)
    sizes = Concat<axis=0>(bdim, onev, minus1, minus1)
    any = Equal(sizes, minus1)
    size = Where(any, onev, sizes)
    wide = Expand(square4, size)
    exact = Concat<axis=0>(bdim, onev, sdim, sdim)
    again = Expand(square4, exact)
    mask = Add(wide, again)
"""

# Heads split and merged by Reshape to targets computed from Shape: the head size from the last
# dim (at index rank - 1), the batch times the heads.
RESHAPE = """
g (float[B,S,8] x) => (float[B,S,8] y) {
    shape = Shape(x)
    rank = Size(shape)
    lastaxis = Sub(rank, one)
    d = Gather(shape, lastaxis)
    half = Div(d, two)
    halfv = Unsqueeze(half, axis0)
    bs = Slice(shape, start0, end2)
    split = Concat<axis=0>(bs, twov, halfv)
    heads = Reshape(x, split)
    swapped = Transpose<perm=[0,2,1,3]>(heads)
    b = Gather(shape, zero)
    s = Gather(shape, one)
    bv = Unsqueeze(b, axis0)
    sv = Unsqueeze(s, axis0)
    bh = Mul(bv, twov)
    flat_shape = Concat<axis=0>(bh, sv, halfv)
    flat = Reshape(swapped, flat_shape)
    back_shape = Concat<axis=0>(bv, twov, sv, halfv)
    back = Reshape(flat, back_shape)
    merged = Transpose<perm=[0,2,1,3]>(back)
    merge_shape = Concat<axis=0>(bs, minus1)
    y = Reshape(merged, merge_shape)
}"""

GRAPHS = {
    "causal_mask": (CAUSAL_MASK + ATTENTION, dict(**SCALARS, **AXES, **MASK_VALUES)),
    "rotary": (
        ROTARY,
        dict(
            **SCALARS,
            **AXES,
            fstart=np.array(0, np.float32),
            fstep=np.array(1, np.float32),
            inv_freq=np.array([1.0, 0.1, 0.01, 0.001], np.float32),
        ),
    ),
    "positions": (
        POSITIONS,
        dict(**SCALARS, **AXES, table=RNG.standard_normal((32, 8)).astype(np.float32)),
    ),
    "last_token": (LAST_TOKEN, dict(**SCALARS, **AXES, onev=i64(1))),
    "expand": (
        EXPAND + ATTENTION,
        dict(**SCALARS, **AXES, **MASK_VALUES, onev=i64(1), minus1=i64(-1)),
    ),
    "reshape": (RESHAPE, dict(**SCALARS, **AXES, twov=i64(2), minus1=i64(-1))),
}


def graph_model(name: str) -> onnx.ModelProto:
    graph, initializers = GRAPHS[name]
    return text_model(graph, **initializers)


def unknown_after_resize(model: onnx.ModelProto, shape: tuple[int, ...], tmp_path) -> list:
    """(name, shape) of every tensor left with an unknown dim by importing ``model`` with its
    dynamic dims and resizing its input to ``shape``."""
    path = tmp_path / "dynamic.onnx"
    onnx.save(model, str(path))
    imported = import_onnx(str(path))
    assert None in imported.main.inputs[0].shape
    resized = one_cmds.resize(imported, [shape])
    return [(t.name, t.shape) for t in resized.main.referenced_tensors() if not t.is_static]


@pytest.mark.parametrize("shape", SHAPES, ids=["x".join(map(str, s)) for s in SHAPES])
@pytest.mark.parametrize("name", GRAPHS)
def test_resized_graph_is_static_and_equals_onnxruntime(name, shape, tmp_path):
    model = graph_model(name)
    assert unknown_after_resize(model, shape, tmp_path) == []
    check(model, tmp_path, inputs=onnx_inputs(model, [shape]))


def test_sizes_beyond_followed_values_are_still_static(tmp_path):
    """A 300-long RANGE and its [300, 300] mask are too large to follow by value; their shapes
    only need the range's bounds."""
    model = graph_model("causal_mask")
    assert unknown_after_resize(model, (1, 300, 8), tmp_path) == []
    check(model, tmp_path, inputs=onnx_inputs(model, [(1, 300, 8)]))


def shape_of(b: GraphBuilder, x: Tensor) -> Tensor:
    return b.op("SHAPE", [x], new_options("ShapeOptions", outType=2), dtypes=("INT32",))


def ones_where_unknown(b: GraphBuilder, x: Tensor, select: str) -> Tensor:
    """``select(shape == -1, 1, shape)`` of SHAPE [?, 2, 3]: known where the shape is."""
    shape = shape_of(b, x)
    unknown = b.op("EQUAL", [shape, b.const([-1, -1, -1])], dtypes=("BOOL",))
    return b.op(select, [unknown, b.const([1, 1, 1]), shape], dtypes=("INT32",))


def doubled_in_float(b: GraphBuilder, x: Tensor) -> Tensor:
    """``int(float(shape) * [1, 2, 2])``: a value known in part through float CASTs."""
    as_float = b.op(
        "CAST", [shape_of(b, x)], new_options("CastOptions", inDataType=2, outDataType=0)
    )
    doubled = b.op("MUL", [as_float, b.const([1, 2, 2], np.float32)], new_options("MulOptions"))
    options = new_options("CastOptions", inDataType=0, outDataType=2)
    return b.op("CAST", [doubled], options, dtypes=("INT32",))


def plus_comparison(b: GraphBuilder, x: Tensor) -> Tensor:
    """``shape + int(shape == [-1, 2, -1])`` of SHAPE [?, 2, 3]: [?, 3, 3]."""
    shape = shape_of(b, x)
    equal = b.op("EQUAL", [shape, b.const([-1, 2, -1])], dtypes=("BOOL",))
    options = new_options("CastOptions", inDataType=6, outDataType=2)
    as_int = b.op("CAST", [equal], options, dtypes=("INT32",))
    return b.op("ADD", [shape, as_int], new_options("AddOptions"), dtypes=("INT32",))


PARTIAL = {
    "select_v2": (functools.partial(ones_where_unknown, select="SELECT_V2"), (N, 2, 3), (4, 2, 3)),
    "select": (functools.partial(ones_where_unknown, select="SELECT"), (N, 2, 3), (4, 2, 3)),
    "float_cast": (doubled_in_float, (N, 4, 6), (4, 4, 6)),
    "comparison_cast": (plus_comparison, (N, 3, 3), (4, 3, 3)),
}


@pytest.mark.parametrize("name", PARTIAL)
def test_value_known_in_part_gives_the_known_dims(name):
    chain, dynamic, static = PARTIAL[name]
    b = GraphBuilder()
    x = b.input((N, 2, 3))
    filled = b.op("FILL", [chain(b, x), b.const(0.5, np.float32)])
    model = Model(graphs=[b.graph(filled)])
    infer_shapes(model)
    assert filled.shape == dynamic
    x.shape = (4, 2, 3)
    infer_shapes(model)
    assert filled.shape == static
    [out] = run_model(model, random_inputs(model))
    assert out.shape == static
