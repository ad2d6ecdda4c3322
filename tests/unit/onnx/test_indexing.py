"""ONNX indexing operators (onnx-import.md §6.1): Concat, Split, Slice, Gather,
GatherElements, GatherND, ScatterND, Pad, TopK, ArgMax/ArgMin, NonZero, Trilu."""

import numpy as np
import pytest

from support.onnx_check import check, onnx_inputs
from support.onnx_text import import_error, opcodes, text_model

I64_MAX, I64_MIN = np.iinfo(np.int64).max, np.iinfo(np.int64).min


def test_concat_negative_axis_and_empty_constant(tmp_path):
    graph = """
    g (float[N,2,3] a, float[N,2,4] b) => (float[] y) {
        y = Concat<axis=-1>(a, b, a, empty)
    }"""
    m = text_model(graph, 11, empty=np.zeros((1, 2, 0), np.float32))
    assert opcodes(check(m, tmp_path)) == ["CONCATENATION"]


@pytest.mark.parametrize(
    ("opset", "body", "extra"),
    [
        (11, "Split<axis=1,split=[1,3,2]>(x)", {}),
        (13, "Split<axis=-2>(x, s)", {"s": np.array([2, 2, 2])}),
        (13, "Split<axis=1>(x)", {}),
        (18, "Split<axis=1,num_outputs=3>(x)", {}),
    ],
)
def test_split(tmp_path, opset, body, extra):
    graph = f"g (float[N,6,5] x) => (float[] a, float[] b, float[] c) {{ a, b, c = {body} }}"
    imported = check(text_model(graph, opset, **extra), tmp_path)
    assert opcodes(imported) in (["SPLIT"], ["SPLIT_V"])


def test_split_num_outputs_with_a_smaller_last_chunk(tmp_path):
    graph = "g (float[N,7,2] x) => (float[] a, float[] b, float[] c) { a, b, c = Split<axis=1,num_outputs=3>(x) }"
    imported = check(text_model(graph, 18), tmp_path)
    assert opcodes(imported) == ["SPLIT_V"]
    assert [t.shape[1] for t in imported.main.outputs] == [3, 3, 1]


def test_split_num_outputs_of_an_unknown_dim(tmp_path):
    graph = "g (float[N,T] x) => (float[] a, float[] b) { a, b = Split<axis=1,num_outputs=2>(x) }"
    assert "dimension 1 of 'x' must be known" in import_error(text_model(graph, 18), tmp_path)


def test_slice_opset_9_attributes(tmp_path):
    graph = "g (float[N,6,5] x) => (float[] y) { y = Slice<starts=[1,-4],ends=[1000,-1],axes=[1,2]>(x) }"
    check(text_model(graph, 9), tmp_path)


@pytest.mark.parametrize(
    ("starts", "ends", "axes", "steps"),
    [
        ([1, 0], [I64_MAX, 3], [1, 2], [1, 1]),
        ([-1], [I64_MIN], [2], [-1]),
        ([4, I64_MAX], [0, -7], [1, -1], [-2, -2]),
        ([0, 1, 1], [I64_MAX, -1, 4], [0, 1, 2], [1, 2, 3]),
        ([-100], [100], [-2], [1]),
    ],
)
def test_slice_inputs_sentinels_and_negative_steps(tmp_path, starts, ends, axes, steps):
    graph = "g (float[N,6,5] x) => (float[] y) { y = Slice(x, s, e, a, st) }"
    m = text_model(
        graph, 13, s=np.array(starts), e=np.array(ends), a=np.array(axes), st=np.array(steps)
    )
    assert opcodes(check(m, tmp_path)) == ["STRIDED_SLICE"]


def test_slice_of_unknown_dims_with_sentinels(tmp_path):
    graph = "g (float[N,T] x) => (float[] y) { y = Slice(x, s, e, a, st) }"
    m = text_model(
        graph,
        10,
        s=np.array([1, I64_MAX]),
        e=np.array([I64_MAX, I64_MIN]),
        a=np.array([0, 1]),
        st=np.array([1, -1]),
    )
    check(m, tmp_path, inputs=onnx_inputs(m, [(3, 5)]))


def test_slice_with_computed_ends(tmp_path):
    """x[:, :z.shape[1]] with z's dim unknown."""
    graph = """
    g (float[N,8,3] x, float[N,T] z) => (float[] y) {
        s = Shape(z)
        e = Slice(s, one, two)
        y = Slice(x, zero, e, one)
    }"""
    m = text_model(graph, zero=np.array([0]), one=np.array([1]), two=np.array([2]))
    check(m, tmp_path, inputs=onnx_inputs(m, [(2, 8, 3), (2, 5)]))


def test_gather_constant_negative_and_scalar_indices(tmp_path):
    graph = """
    g (float[N,5,3] x) => (float[] y, float[] z) {
        y = Gather<axis=1>(x, i)
        z = Gather<axis=-1>(x, k)
    }"""
    imported = check(text_model(graph, i=np.array([[-1, 0], [2, -5]]), k=np.array(-1)), tmp_path)
    assert opcodes(imported) == ["GATHER", "GATHER"]


def test_gather_computed_indices_wrap_by_floor_mod(tmp_path):
    graph = """
    g (float[N,5,3] x, int64[2,2] i) => (float[] y, float[] z) {
        j = Sub(i, four)
        y = Gather<axis=1>(x, j)
        z = Gather(x, minus_one)
    }"""
    m = text_model(graph, four=np.array(4), minus_one=np.array([-1]))
    imported = check(m, tmp_path, inputs=onnx_inputs(m, [(3, 5, 3), (2, 2)]))
    assert opcodes(imported).count("FLOOR_MOD") == 2


def test_gather_elements(tmp_path):
    graph = """
    g (float[2,5,3] x, int64[2,4,3] i) => (float[] y) {
        j = Sub(i, three)
        y = GatherElements<axis=1>(x, j)
    }"""
    m = text_model(graph, 11, three=np.array(3))
    assert "GATHER_ND" in opcodes(check(m, tmp_path))


@pytest.mark.parametrize("opset", [11, 12])
def test_gather_nd(tmp_path, opset):
    graph = "g (float[4,5,3] x) => (float[] y) { y = GatherND(x, i) }"
    m = text_model(graph, opset, i=np.array([[[1, -1], [0, 2]], [[3, 4], [-4, 0]]]))
    assert opcodes(check(m, tmp_path)) == ["GATHER_ND"]


def test_gather_nd_batch_dims(tmp_path):
    graph = "g (float[4,5,3] x) => (float[] y) { y = GatherND<batch_dims=1>(x, i) }"
    m = text_model(graph, 12, i=np.zeros((4, 1), np.int64))
    assert import_error(m, tmp_path).endswith("(opset 12): batch_dims 1 is not supported")


@pytest.mark.parametrize("opset", [11, 16, 18])
def test_scatter_nd(tmp_path, opset):
    graph = "g (float[N,4,3] x, float[2,3] u) => (float[] y) { y = ScatterND(x, i, u) }"
    check(text_model(graph, opset, i=np.array([[1, 2], [0, -1]])), tmp_path)


def test_scatter_nd_reduction(tmp_path):
    graph = 'g (float[2,4,3] x, float[2,3] u) => (float[] y) { y = ScatterND<reduction="add">(x, i, u) }'
    m = text_model(graph, 16, i=np.array([[1, 2], [0, 1]]))
    assert import_error(m, tmp_path).endswith("(opset 16): reduction 'add' is not supported")


def test_pad_opset_9_attributes(tmp_path):
    graph = "g (float[N,3,4] x) => (float[] y) { y = Pad<pads=[0,1,2,0,2,1],value=1.5>(x) }"
    assert opcodes(check(text_model(graph, 9), tmp_path)) == ["PADV2"]


@pytest.mark.parametrize(
    ("mode", "opcode"),
    [("constant", "PAD"), ("reflect", "MIRROR_PAD"), ("edge", "GATHER"), ("wrap", "GATHER")],
)
def test_pad_modes(tmp_path, mode, opcode):
    graph = f'g (float[2,3,4,5] x) => (float[] y) {{ y = Pad<mode="{mode}">(x, p) }}'
    m = text_model(graph, 19, p=np.array([0, 1, 2, 0, 0, 2, 1, 3]))
    assert opcode in opcodes(check(m, tmp_path))


def test_pad_constant_value_axes_and_negative_pads(tmp_path):
    graph = """
    g (float[N,6,5] x) => (float[] y, float[] z) {
        y = Pad(x, p, v, a)
        z = Pad(x, q)
    }"""
    m = text_model(graph, 18, p=np.array([2, -1, -2, 3]), v=np.array(0.5, np.float32), a=np.array([-1, 1]),
              q=np.array([0, -1, 1, 0, 2, -2]))  # fmt: skip
    imported = check(m, tmp_path)
    assert {"PADV2", "STRIDED_SLICE", "PAD"} <= set(opcodes(imported))


def test_pad_edge_of_an_unknown_dim(tmp_path):
    graph = 'g (float[N,3] x) => (float[] y) { y = Pad<mode="edge">(x, p) }'
    assert "dimension 0 of 'x' must be known" in import_error(
        text_model(graph, 13, p=np.array([1, 0, 0, 0])), tmp_path
    )


@pytest.mark.parametrize(
    ("opset", "body"),
    [
        (9, "TopK<k=3>(x)"),
        (10, "TopK<axis=1>(x, k)"),
        (11, "TopK<axis=-1,largest=0>(x, k)"),
        (11, "TopK<axis=1,largest=0,sorted=1>(x, k)"),
    ],
)
def test_topk(tmp_path, opset, body):
    graph = f"g (float[N,6,5] x) => (float[] v, int64[] i) {{ v, i = {body} }}"
    imported = check(text_model(graph, opset, k=np.array([3])), tmp_path)
    assert "TOPK_V2" in opcodes(imported)


@pytest.mark.parametrize("op", ["ArgMax", "ArgMin"])
@pytest.mark.parametrize(
    ("opset", "attrs"),
    [(11, "axis=1"), (11, "axis=-1,keepdims=0"), (12, "axis=1,select_last_index=1"),
     (13, "axis=2,keepdims=0,select_last_index=1")],
)  # fmt: skip
def test_arg_max_min_with_ties(tmp_path, op, opset, attrs):
    """Integer inputs in [0, 8) tie often, so the first and last index differ."""
    graph = f"g (int32[N,6,5] x) => (int64[] y) {{ y = {op}<{attrs}>(x) }}"
    check(
        text_model(graph, opset),
        tmp_path,
        inputs=onnx_inputs(text_model(graph, opset), [(3, 6, 5)]),
    )


def test_arg_max_select_last_index_of_an_unknown_dim(tmp_path):
    graph = "g (float[N,T] x) => (int64[] y) { y = ArgMax<axis=1,select_last_index=1>(x) }"
    m = text_model(graph, 13)
    check(m, tmp_path, inputs=onnx_inputs(m, [(2, 7)]))


@pytest.mark.parametrize("dtype", ["float", "bool"])
def test_nonzero(tmp_path, dtype):
    graph = f"g ({dtype}[2,3,4] x) => (int64[] y) {{ y = NonZero(x) }}"
    m = text_model(graph, 13)
    values = np.random.default_rng(0).uniform(-1, 1, (2, 3, 4)).astype(np.float32)
    values[values < 0.2] = 0
    inputs = [values if dtype == "float" else values != 0]
    assert "WHERE" in opcodes(check(m, tmp_path, inputs=inputs))


@pytest.mark.parametrize(("upper", "k"), [(1, 0), (0, 0), (1, -1), (0, 2)])
def test_trilu(tmp_path, upper, k):
    graph = f"g (float[N,4,5] x) => (float[] y) {{ y = Trilu<upper={upper}>(x, k) }}"
    assert opcodes(check(text_model(graph, 14, k=np.array(k)), tmp_path)) == ["SELECT_V2"]


@pytest.mark.parametrize(("upper", "k"), [(1, 1), (0, 0), (1, -2)])
def test_trilu_of_unknown_rows_and_columns(tmp_path, upper, k):
    graph = f"g (float[N,R,C] x) => (float[] y) {{ y = Trilu<upper={upper}>(x, k) }}"
    inputs = [np.random.default_rng(0).standard_normal((2, 5, 3)).astype(np.float32)]
    imported = check(text_model(graph, 14, k=np.array(k)), tmp_path, inputs=inputs)
    assert {"RANGE", "SUB", "SELECT_V2"} <= set(opcodes(imported))
