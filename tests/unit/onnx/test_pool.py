"""Pooling (onnx-import.md §6.1, §6.3): MaxPool, AveragePool (pads, auto_pad, ceil_mode,
count_include_pad divisors), GlobalAveragePool, GlobalMaxPool; onnxruntime vs LiteRT."""

import numpy as np
import onnx
import pytest
from onnx import TensorProto

from support.onnx_check import check, check_lowered, onnx_inputs
from support.onnx_graphs import FLOAT, node_model, opcodes
from support.onnx_text import import_error


def pool_model(op_type, x_shape, opset=17, elem=FLOAT, **attrs):
    return node_model(op_type, ["x"], {"x": (elem, x_shape)}, opset=opset, out=elem, **attrs)


K2S2, K3S2, K3S1 = dict(kernel_shape=[2, 2], strides=[2, 2]), dict(kernel_shape=[3, 3], strides=[2, 2]), dict(kernel_shape=[3, 3])  # fmt: skip
# name: (x shape, attributes, opcodes between the layout TRANSPOSEs for MaxPool)
MAX_CASES = {
    "valid": (["N", 3, 8, 8], K2S2, ["MAX_POOL_2D"]),
    "pads_as_same": ([1, 3, 8, 8], dict(K3S1, pads=[1, 1, 1, 1]), ["MAX_POOL_2D"]),
    "pads": ([1, 3, 8, 7], dict(K3S2, pads=[1, 1, 1, 1]), ["PADV2", "MAX_POOL_2D"]),
    "asymmetric": ([1, 2, 7, 9], dict(kernel_shape=[2, 3], strides=[1, 2], pads=[1, 0, 0, 2]),
                   ["PADV2", "MAX_POOL_2D"]),
    "same_upper": ([1, 3, 9, 8], dict(K3S2, auto_pad="SAME_UPPER"), ["MAX_POOL_2D"]),
    "same_lower": ([1, 3, 9, 8], dict(K3S2, auto_pad="SAME_LOWER"), ["PADV2", "MAX_POOL_2D"]),
    "auto_valid": ([1, 3, 9, 8], dict(K3S2, auto_pad="VALID"), ["MAX_POOL_2D"]),
    "ceil_pads": ([1, 2, 5, 5], dict(K2S2, pads=[1, 1, 1, 1], ceil_mode=1), ["PADV2", "MAX_POOL_2D"]),
    "ceil": ([1, 2, 6, 7], dict(K3S2, ceil_mode=1), ["PADV2", "MAX_POOL_2D"]),
    "ceil_exact": ([1, 2, 7, 7], dict(K3S2, ceil_mode=1), ["MAX_POOL_2D"]),
    "pool1d": (["N", 3, 11], dict(kernel_shape=[3], strides=[2], pads=[1, 0]),
               ["RESHAPE", "PADV2", "MAX_POOL_2D", "RESHAPE"]),
}  # fmt: skip


@pytest.mark.parametrize("case", list(MAX_CASES))
def test_max_pool(case, tmp_path):
    x_shape, attrs, expected = MAX_CASES[case]
    ops = opcodes(check_lowered(pool_model("MaxPool", x_shape, **attrs), tmp_path))
    assert ops == ["TRANSPOSE", *expected, "TRANSPOSE"]


@pytest.mark.parametrize("elem", [TensorProto.INT8, TensorProto.UINT8])
def test_max_pool_integers_pad_with_the_type_minimum(elem, tmp_path):
    model = pool_model("MaxPool", [1, 2, 6, 6], elem=elem, **K3S2, pads=[1, 1, 1, 1])
    np_type = onnx.helper.tensor_dtype_to_np_dtype(elem)
    info = np.iinfo(np_type)
    x = np.random.default_rng(0).integers(info.min, info.max, (1, 2, 6, 6)).astype(np_type)
    assert "PADV2" in opcodes(check(model, tmp_path, inputs=[x]))


# name: (x shape, attributes, whether a MUL carries divisors)
AVERAGE_CASES = {
    "valid": (["N", 3, 8, 8], K2S2, False),
    "pads_excluded": ([1, 3, 8, 7], dict(K3S2, pads=[1, 1, 1, 1]), True),
    "pads_counted": ([1, 3, 8, 7], dict(K3S2, pads=[1, 1, 1, 1], count_include_pad=1), False),
    "pads_as_same": ([1, 2, 8, 8], dict(K3S1, pads=[1, 1, 1, 1]), False),
    "asymmetric": ([1, 2, 7, 9], dict(kernel_shape=[2, 3], strides=[1, 2], pads=[1, 0, 0, 2]), True),
    "same_upper": ([1, 3, 9, 8], dict(K3S2, auto_pad="SAME_UPPER"), False),
    "same_upper_counted": ([1, 3, 9, 8], dict(K3S2, auto_pad="SAME_UPPER", count_include_pad=1), False),
    "same_lower": ([1, 3, 9, 8], dict(K3S2, auto_pad="SAME_LOWER"), True),
    "ceil": ([1, 2, 6, 7], dict(K3S2, ceil_mode=1), True),
    "ceil_pads": ([1, 2, 5, 5], dict(K2S2, pads=[1, 1, 1, 1], ceil_mode=1), True),
    "ceil_pads_counted": ([1, 2, 6, 6], dict(K3S2, pads=[1, 1, 1, 1], ceil_mode=1, count_include_pad=1), True),
    "pool1d": (["N", 3, 11], dict(kernel_shape=[3], strides=[2], pads=[1, 0]), True),
    "pool1d_as_same": (["N", 3, 11], dict(kernel_shape=[3], strides=[2], pads=[1, 1]), False),
}  # fmt: skip


@pytest.mark.parametrize("case", list(AVERAGE_CASES))
def test_average_pool(case, tmp_path):
    x_shape, attrs, divisors = AVERAGE_CASES[case]
    ops = opcodes(check_lowered(pool_model("AveragePool", x_shape, **attrs), tmp_path))
    assert ("MUL" in ops) == divisors
    assert ops.count("AVERAGE_POOL_2D") == 1 and ops.count("TRANSPOSE") == 2


def test_average_pool_same_pads_not_counted_is_tflite_same(tmp_path):
    model = pool_model("AveragePool", [1, 3, 9, 8], **K3S2, auto_pad="SAME_UPPER")
    pool = next(
        op for op in check_lowered(model, tmp_path).main.operators if op.opcode.endswith("POOL_2D")
    )
    assert pool.options.padding == 0  # SAME: TFLite divides by the cells inside the input


def test_average_pool_opset19_dilations_one(tmp_path):
    check(pool_model("AveragePool", [1, 2, 6, 6], opset=19, **K3S2, dilations=[1, 1]), tmp_path)


@pytest.mark.parametrize(
    "op_type, x_shape, attrs",
    [
        ("MaxPool", ["N", 3, "H", "W"], dict(K3S2, auto_pad="SAME_UPPER")),
        ("MaxPool", ["N", 3, "H", "W"], dict(K3S2, pads=[1, 0, 1, 2])),
        ("AveragePool", ["N", 3, "H", "W"], K2S2),
        ("AveragePool", ["N", 3, "H", "W"], dict(K3S2, pads=[1, 1, 1, 1], count_include_pad=1)),
        ("AveragePool", ["N", 3, "H", "W"], dict(K3S2, auto_pad="SAME_UPPER")),
        ("MaxPool", ["N", 3, "H", "W"], dict(kernel_shape=[3, 3], ceil_mode=1)),
    ],
)
def test_pooling_with_unknown_spatial_dims(op_type, x_shape, attrs, tmp_path):
    """No divisor map and no ceil extension needed: the sizes may stay unknown."""
    model = pool_model(op_type, x_shape, **attrs)
    check(model, tmp_path, inputs=onnx_inputs(model, [(2, 3, 9, 8)]))


@pytest.mark.parametrize(
    "op_type, x_shape, attrs, expected",
    [
        ("MaxPool", [1, 2, 6, 6], dict(K3S2, dilations=[2, 2]), "dilations [2, 2] is not supported"),
        ("AveragePool", [1, 2, 6], dict(kernel_shape=[3], dilations=[2]), "dilations [2] is not supported"),
        ("MaxPool", [1, 2, 4, 4, 4], dict(kernel_shape=[2, 2, 2]), "rank 5 is not supported"),
        ("MaxPool", [1, 2, "H", 6], dict(K3S2, ceil_mode=1), "dimension 2 of 'x' must be known"),
        ("MaxPool", [1, 2, 6, "W"], dict(K3S2, auto_pad="SAME_LOWER"), "dimension 3 of 'x' must be known"),
        ("AveragePool", [1, 2, 6, "W"], dict(K3S2, pads=[1, 1, 1, 1]), "dimension 3 of 'x' must be known"),
        ("AveragePool", [1, 2, "W"], dict(kernel_shape=[3], pads=[1, 1]), "dimension 2 of 'x' must be known"),
    ],
)  # fmt: skip
def test_pooling_unsupported(op_type, x_shape, attrs, expected, tmp_path):
    opset = 19 if "dilations" in attrs else 17
    assert import_error(pool_model(op_type, x_shape, opset=opset, **attrs), tmp_path).endswith(
        "): " + expected
    )


def test_max_pool_indices_unsupported(tmp_path):
    node = onnx.helper.make_node("MaxPool", ["x"], ["y", "i"], name="mp", kernel_shape=[2, 2])
    graph = onnx.helper.make_graph(
        [node], "g", [onnx.helper.make_tensor_value_info("x", FLOAT, [1, 1, 4, 4])],
        [onnx.helper.make_tensor_value_info("y", FLOAT, None),
         onnx.helper.make_tensor_value_info("i", TensorProto.INT64, None)],
    )  # fmt: skip
    model = onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 17)])
    assert import_error(model, tmp_path).endswith("): output 'Indices' is not supported")


@pytest.mark.parametrize("op_type", ["GlobalAveragePool", "GlobalMaxPool"])
@pytest.mark.parametrize("x_shape", [["N", 3, 7], ["N", 3, 5, 6], ["N", 2, 3, 4, 5]])
def test_global_pooling_reduces_onnx_axes(op_type, x_shape, tmp_path):
    imported = check_lowered(pool_model(op_type, x_shape), tmp_path)
    assert opcodes(imported) == ["MEAN" if op_type == "GlobalAveragePool" else "REDUCE_MAX"]
    reduced = imported.main.operators[0]
    assert reduced.inputs[1].data.tolist() == list(range(2, len(x_shape)))
    assert reduced.options.keepDims
