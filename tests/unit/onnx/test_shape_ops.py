"""ONNX shape operators (onnx-import.md §6.1, §8.1): Reshape, Flatten, Squeeze, Unsqueeze,
Transpose, Shape, Size, ConstantOfShape, Expand, Range, CumSum, Tile."""

import numpy as np
import pytest

from support.onnx_check import check, onnx_inputs
from support.onnx_text import import_error, opcodes, text_model

RNG = np.random.default_rng(0)


def reshape_targets(imported) -> list[list[int] | None]:
    """The RESHAPE targets: constant ones as lists, computed ones as None."""
    return [
        None if op.inputs[1].data is None else op.inputs[1].data.tolist()
        for op in imported.main.operators
        if op.opcode == "RESHAPE"
    ]


FLATTEN_BY_SHAPE = """
g (float[N,3,4,4] x) => (float[N,48] y) {
    s = Shape(x)
    b = Gather(s, zero)
    bu = Unsqueeze(b, axes0)
    t = Concat<axis=0>(bu, minus_one)
    y = Reshape(x, t)
}"""


def test_reshape_flatten_with_dynamic_batch_from_shape_gather_concat(tmp_path):
    """§8.1: the batch divides out, so the target is the constant [-1, 48]; no SHAPE
    arithmetic is left and the import resizes to any batch."""
    m = text_model(
        FLATTEN_BY_SHAPE, zero=np.array(0), axes0=np.array([0]), minus_one=np.array([-1])
    )
    imported = check(m, tmp_path)
    assert opcodes(imported) == ["RESHAPE"]
    assert reshape_targets(imported) == [[-1, 48]]
    assert imported.main.outputs[0].shape == (None, 48)
    check(m, tmp_path, inputs=onnx_inputs(m, [(5, 3, 4, 4)]))


def test_reshape_constant_target_copies_and_infers(tmp_path):
    m = text_model(
        "g (float[N,3,4,5] x) => (float[N,12,5] y) { y = Reshape(x, t) }", t=np.array([0, -1, 5])
    )
    assert reshape_targets(check(m, tmp_path)) == [[-1, 12, 5]]


def test_reshape_with_two_unknown_dims_computes_the_target(tmp_path):
    """[N, T, 8] → [N, T, 2, 4]: two unknown sizes, so the target stays in the graph."""
    graph = """
    g (float[N,T,8] x) => (float[N,T,2,4] y) {
        s = Shape<end=2>(x)
        t = Concat<axis=0>(s, tail)
        y = Reshape(x, t)
    }"""
    m = text_model(graph, opset=15, tail=np.array([2, 4]))
    imported = check(m, tmp_path, inputs=onnx_inputs(m, [(2, 3, 8)]))
    assert reshape_targets(imported) == [None]
    assert "SHAPE" in opcodes(imported)


def test_reshape_constant_target_with_two_copied_unknown_dims(tmp_path):
    m = text_model(
        "g (float[N,T,8] x) => (float[N,T,2,4] y) { y = Reshape(x, t) }", t=np.array([0, 0, 2, 4])
    )
    imported = check(m, tmp_path, inputs=onnx_inputs(m, [(3, 2, 8)]))
    assert reshape_targets(imported) == [None]


def test_reshape_allowzero(tmp_path):
    graph = "g (float[2,3,4] x) => (float[6,4] y) { y = Reshape<allowzero=1>(x, t) }"
    check(text_model(graph, opset=14, t=np.array([6, 4])), tmp_path)
    message = import_error(text_model(graph, opset=14, t=np.array([0, 4])), tmp_path)
    assert message.endswith("(opset 14): allowzero 1 is not supported")


@pytest.mark.parametrize(
    ("opset", "axis", "shape", "target"),
    [
        (9, 2, "N,2,3,4,5", [-1, 60]),
        (11, -1, "N,2,3,4,5", [-1, 5]),
        (13, 0, "N,2,3", [1, -1]),
        (13, 2, "2,3,N", [6, -1]),
    ],
)
def test_flatten(tmp_path, opset, axis, shape, target):
    m = text_model(f"g (float[{shape}] x) => (float[] y) {{ y = Flatten<axis={axis}>(x) }}", opset)
    assert reshape_targets(check(m, tmp_path)) == [target]


@pytest.mark.parametrize(
    ("shape", "axis", "given"), [("N,3,T", 2, (2, 3, 5)), ("N,T,3,S", 2, (2, 4, 3, 5))]
)
def test_flatten_with_unknown_dims_on_both_sides(tmp_path, shape, axis, given):
    m = text_model(f"g (float[{shape}] x) => (float[] y) {{ y = Flatten<axis={axis}>(x) }}")
    imported = check(m, tmp_path, inputs=onnx_inputs(m, [given]))
    assert reshape_targets(imported) == [None]


@pytest.mark.parametrize("opset", [11, 13])
def test_squeeze_axes_attribute_and_input(tmp_path, opset):
    if opset < 13:
        graph = "g (float[N,1,4,1,5] x) => (float[] y) { y = Squeeze<axes=[1,-2]>(x) }"
        m = text_model(graph, opset)
    else:
        m = text_model(
            "g (float[N,1,4,1,5] x) => (float[] y) { y = Squeeze(x, a) }",
            opset,
            a=np.array([1, -2]),
        )
    imported = check(m, tmp_path)
    assert reshape_targets(imported) == [[-1, 4, 5]]


def test_squeeze_without_axes_and_with_several_unknown_dims(tmp_path):
    check(text_model("g (float[1,3,1,4] x) => (float[] y) { y = Squeeze(x) }", 13), tmp_path)
    m = text_model("g (float[N,1,T] x) => (float[] y) { y = Squeeze(x, a) }", 13, a=np.array([1]))
    imported = check(m, tmp_path, inputs=onnx_inputs(m, [(2, 1, 3)]))
    assert opcodes(imported) == ["SQUEEZE"]
    m = text_model("g (float[N,1,T] x) => (float[] y) { y = Squeeze(x) }", 13)
    assert "dimension 0 of 'x' must be known" in import_error(m, tmp_path)


@pytest.mark.parametrize("opset", [11, 13])
def test_unsqueeze_axes_attribute_and_input(tmp_path, opset):
    if opset < 13:
        m = text_model("g (float[N,4,5] x) => (float[] y) { y = Unsqueeze<axes=[1,-1]>(x) }", opset)
    else:
        m = text_model(
            "g (float[N,4,5] x) => (float[] y) { y = Unsqueeze(x, a) }", opset, a=np.array([1, -1])
        )
    assert reshape_targets(check(m, tmp_path)) == [[-1, 1, 4, 5, 1]]


def test_unsqueeze_with_several_unknown_dims(tmp_path):
    m = text_model(
        "g (float[N,T,3] x) => (float[] y) { y = Unsqueeze(x, a) }", 13, a=np.array([0, 3])
    )
    imported = check(m, tmp_path, inputs=onnx_inputs(m, [(2, 4, 3)]))
    assert opcodes(imported) == ["EXPAND_DIMS", "EXPAND_DIMS"]


def test_transpose_rank_5_and_default_perm(tmp_path):
    graph = """
    g (float[N,2,3,4,5] x) => (float[] y, float[] z) {
        y = Transpose<perm=[0,3,1,4,2]>(x)
        z = Transpose(x)
    }"""
    check(text_model(graph), tmp_path)


@pytest.mark.parametrize("opset", [13, 15])
def test_shape_of_a_dynamic_value(tmp_path, opset):
    body = "y = Shape<start=1,end=-1>(x)" if opset == 15 else "y = Shape(x)"
    m = text_model(f"g (float[N,3,T,5] x) => (int64[k] y) {{ {body} }}", opset)
    imported = check(m, tmp_path, inputs=onnx_inputs(m, [(2, 3, 7, 5)]))
    assert "SHAPE" in opcodes(imported)


def test_size_of_a_dynamic_value(tmp_path):
    m = text_model("g (float[N,3,4] x) => (int64 y) { y = Size(x) }")
    assert opcodes(check(m, tmp_path))[-2:] == ["REDUCE_PROD", "CAST"]


def test_constant_of_shape_of_a_dynamic_shape(tmp_path):
    graph = """
    g (float[N,3] x) => (float[] y, int64[] z) {
        s = Shape(x)
        y = ConstantOfShape<value=float[1] {2.5}>(s)
        z = ConstantOfShape<value=int64[1] {7}>(s)
    }"""
    imported = check(text_model(graph), tmp_path)
    assert opcodes(imported).count("FILL") == 2


@pytest.mark.parametrize(("x", "shape"), [("N,1,4", [3, 1]), ("N,1", [1, 5])])
def test_expand_bidirectional_with_dynamic_batch(tmp_path, x, shape):
    """[N,1,4] expanded by [3,1] is [N,3,4]: a 1 of the target keeps x's size."""
    m = text_model(f"g (float[{x}] x) => (float[] y) {{ y = Expand(x, s) }}", 13, s=np.array(shape))
    imported = check(m, tmp_path)
    assert "BROADCAST_TO" in opcodes(imported)


@pytest.mark.parametrize(("opset", "shape"), [(8 + 1, [2, 3, 4]), (13, [2, 1, 1])])
def test_expand_static(tmp_path, opset, shape):
    m = text_model(
        "g (float[1,3,1] x) => (float[] y) { y = Expand(x, s) }", opset, s=np.array(shape)
    )
    assert opcodes(check(m, tmp_path)) == ["BROADCAST_TO"]


def test_expand_to_the_same_shape_is_removed(tmp_path):
    m = text_model(
        "g (float[N,3,4] x) => (float[] y) { e = Expand(x, s) y = Relu(e) }", s=np.array([1, 4])
    )
    assert opcodes(check(m, tmp_path)) == ["RELU"]


def test_expand_to_a_computed_shape(tmp_path):
    graph = """
    g (float[1,4] x, float[N,T] z) => (float[] y) {
        s = Shape(z)
        y = Expand(x, s)
    }"""
    m = text_model(graph)
    check(m, tmp_path, inputs=onnx_inputs(m, [(1, 4), (3, 4)]))


def test_range_with_a_dynamic_limit(tmp_path):
    graph = """
    g (float[N,3] x) => (int64[] y, float[] r) {
        s = Shape(x)
        n = Gather(s, zero)
        y = Range(zero, n, one)
        r = Range(start, limit, step)
    }"""
    m = text_model(graph, 11, zero=np.array(0), one=np.array(1), start=np.array(0.5, np.float32),
              limit=np.array(4.0, np.float32), step=np.array(0.75, np.float32))  # fmt: skip
    imported = check(m, tmp_path, inputs=onnx_inputs(m, [(5, 3)]))
    assert opcodes(imported).count("RANGE") == 1


@pytest.mark.parametrize("opset", [11, 14])
@pytest.mark.parametrize(("exclusive", "reverse"), [(0, 0), (1, 0), (0, 1), (1, 1)])
def test_cumsum(tmp_path, opset, exclusive, reverse):
    graph = f"g (float[N,3,4] x) => (float[] y) {{ y = CumSum<exclusive={exclusive},reverse={reverse}>(x, a) }}"
    assert opcodes(check(text_model(graph, opset, a=np.array(-2)), tmp_path)) == ["CUMSUM"]


def test_tile_constant_and_computed_repeats(tmp_path):
    graph = """
    g (float[N,2,3] x, float[2,T] z) => (float[] y, float[] w) {
        y = Tile(x, r)
        s = Shape(z)
        w = Tile(z, s)
    }"""
    m = text_model(graph, r=np.array([1, 3, 2]))
    check(m, tmp_path, inputs=onnx_inputs(m, [(2, 2, 3), (2, 3)]))
