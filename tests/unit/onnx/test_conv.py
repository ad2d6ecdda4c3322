"""Conv and ConvTranspose (onnx-import.md §6.1): one small graph per attribute variant, judged
by onnxruntime vs LiteRT; the layout TRANSPOSEs of §5.1 and the §3 reasons."""

import numpy as np
import pytest

from support.onnx_check import check_lowered, onnx_inputs
from support.onnx_graphs import FLOAT, node_model, opcodes
from support.onnx_text import import_error

RNG = np.random.default_rng(0)


def weights(*shape):
    return RNG.uniform(-1, 1, shape).astype(np.float32)


def conv_model(x_shape, w_shape, bias=True, op_type="Conv", opset=17, **attrs):
    """One ``op_type`` node over ``x`` with constant weights (and bias ``[O]``)."""
    out_c = w_shape[1] * attrs.get("group", 1) if op_type == "ConvTranspose" else w_shape[0]
    consts = {"w": weights(*w_shape)}
    if bias:
        consts["b"] = weights(out_c)
    operands = ["x", "w", "b"] if bias else ["x", "w"]
    return node_model(op_type, operands, {"x": (FLOAT, x_shape)}, consts, opset=opset, **attrs)


CONV_CASES = {
    "explicit_pads_stride2": ([1, 3, 9, 9], [4, 3, 3, 3], dict(pads=[1, 1, 1, 1], strides=[2, 2])),
    "pads_equal_to_same": ([1, 3, 8, 8], [4, 3, 3, 3], dict(pads=[1, 1, 1, 1])),
    "asymmetric_pads": ([1, 3, 7, 8], [4, 3, 3, 2], dict(pads=[0, 2, 1, 0])),
    "same_upper": ([1, 3, 9, 8], [4, 3, 3, 3], dict(auto_pad="SAME_UPPER", strides=[2, 2])),
    "same_lower": ([1, 3, 9, 8], [4, 3, 3, 3], dict(auto_pad="SAME_LOWER", strides=[2, 2])),
    "valid": ([1, 3, 9, 8], [4, 3, 3, 3], dict(auto_pad="VALID", strides=[2, 1])),
    "dilated": ([1, 3, 11, 11], [4, 3, 3, 3], dict(dilations=[2, 2], pads=[2, 2, 2, 2])),
    "grouped": ([1, 4, 8, 8], [6, 2, 3, 3], dict(group=2, pads=[1, 1, 1, 1])),
    "depthwise": ([1, 4, 8, 8], [4, 1, 3, 3], dict(group=4, pads=[1, 1, 1, 1], strides=[2, 2])),
    "depthwise_multiplier": ([1, 3, 8, 8], [6, 1, 3, 3], dict(group=3, pads=[0, 1, 1, 0])),
    "dynamic_batch": (["N", 3, 8, 8], [4, 3, 3, 3], dict(pads=[1, 1, 1, 1])),
    "conv1d": (["N", 3, 12], [5, 3, 3], dict(pads=[1, 2], strides=[2])),
    "conv1d_depthwise_same": ([2, 4, 12], [8, 1, 5], dict(group=4, auto_pad="SAME_UPPER")),
}


@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no_bias"])
@pytest.mark.parametrize("case", list(CONV_CASES))
def test_conv_matches_onnxruntime(case, bias, tmp_path):
    x_shape, w_shape, attrs = CONV_CASES[case]
    ops = opcodes(check_lowered(conv_model(x_shape, w_shape, bias, **attrs), tmp_path))
    assert ops.count("TRANSPOSE") == 2  # §5.1: one to NHWC, one back
    if attrs.get("group", 1) > 1:
        expected = "DEPTHWISE_CONV_2D" if w_shape[1] == 1 else "SPLIT"
        assert expected in ops


def test_conv_window_choices(tmp_path):
    """Pads TF's SAME computes → SAME; others → PAD + VALID; none → VALID without PAD."""
    padding = {}
    for name in ("pads_equal_to_same", "asymmetric_pads", "valid", "same_lower"):
        x_shape, w_shape, attrs = CONV_CASES[name]
        imported = check_lowered(conv_model(x_shape, w_shape, **attrs), tmp_path)
        conv = next(op for op in imported.main.operators if op.opcode == "CONV_2D")
        padding[name] = (conv.options.padding, "PAD" in opcodes(imported))
    assert padding == {
        "pads_equal_to_same": (0, False),
        "asymmetric_pads": (1, True),
        "valid": (1, False),
        "same_lower": (1, True),
    }


def test_conv_with_unknown_spatial_dims_and_a_computed_bias(tmp_path):
    model = node_model(
        "Conv", ["x", "w", "b"], {"x": (FLOAT, ["N", 3, "H", "W"]), "b": (FLOAT, [4])},
        {"w": weights(4, 3, 3, 3)}, auto_pad="SAME_UPPER", strides=[2, 2],
    )  # fmt: skip
    feeds = onnx_inputs(model, [(2, 3, 9, 7), (4,)])
    imported = check_lowered(model, tmp_path, inputs=feeds)
    assert imported.main.inputs[0].shape == (None, 3, None, None)
    assert opcodes(imported)[-2] == "ADD"


def test_conv1d_with_several_unknown_dims_uses_expand_dims(tmp_path):
    model = conv_model(["N", 3, "W"], [4, 3, 3], pads=[1, 1])
    feeds = onnx_inputs(model, [(2, 3, 10)])
    ops = opcodes(check_lowered(model, tmp_path, inputs=feeds))
    assert ops[:2] == ["TRANSPOSE", "EXPAND_DIMS"] and ops[-2:] == ["SQUEEZE", "TRANSPOSE"]


def test_conv1d_unit_h_reshapes(tmp_path):
    """Rank 3: TRANSPOSE [0,2,1], RESHAPE to a unit H, the 2-D op, RESHAPE, TRANSPOSE."""
    imported = check_lowered(conv_model(["N", 3, 12], [5, 3, 3], pads=[1, 1]), tmp_path)
    assert opcodes(imported) == ["TRANSPOSE", "RESHAPE", "CONV_2D", "RESHAPE", "TRANSPOSE"]
    first = imported.main.operators[0]
    assert first.inputs[1].data.tolist() == [0, 2, 1]


@pytest.mark.parametrize(
    "x_shape, w_shape, attrs, reason",
    [
        ([1, 2, 4, 4, 4], [2, 2, 3, 3, 3], {}, "rank 5 is not supported"),
        (["N", 3, "H", 8], [4, 3, 3, 3], dict(auto_pad="SAME_LOWER"),
         "dimension 2 of 'x' must be known"),
    ],
)  # fmt: skip
def test_conv_unsupported(x_shape, w_shape, attrs, reason, tmp_path):
    message = import_error(conv_model(x_shape, w_shape, **attrs), tmp_path)
    assert message == f"Unsupported ONNX operators (1): Conv 'conv' (opset 17): {reason}"


def test_conv_weights_must_be_constant(tmp_path):
    model = node_model("Conv", ["x", "w"], {"x": (FLOAT, [1, 2, 5, 5]), "w": (FLOAT, [2, 2, 3, 3])})
    assert import_error(model, tmp_path).endswith(": input 'w' must be constant")


TRANSPOSE_CASES = {
    "stride2": ([1, 3, 5, 5], [3, 4, 3, 3], dict(strides=[2, 2])),
    "pads": ([1, 3, 5, 5], [3, 4, 3, 3], dict(strides=[2, 2], pads=[1, 1, 1, 1])),
    "asymmetric_pads": ([1, 3, 5, 4], [3, 2, 3, 2], dict(strides=[2, 1], pads=[0, 1, 2, 0])),
    "output_padding_cropped": (
        [1, 3, 5, 5], [3, 4, 3, 3], dict(strides=[2, 2], pads=[1, 1, 1, 1], output_padding=[1, 1])
    ),
    "output_padding_extends": ([1, 3, 5, 5], [3, 2, 3, 3], dict(strides=[2, 2], output_padding=[1, 0])),
    "output_shape": ([1, 3, 5, 5], [3, 2, 3, 3], dict(strides=[2, 2], output_shape=[10, 9])),
    "output_shape_larger": ([1, 3, 5, 5], [3, 2, 3, 3], dict(strides=[2, 2], output_shape=[12, 11])),
    "same_upper": ([1, 3, 5, 5], [3, 2, 3, 3], dict(strides=[2, 2], auto_pad="SAME_UPPER")),
    "same_lower": ([1, 3, 5, 5], [3, 2, 3, 3], dict(strides=[2, 2], auto_pad="SAME_LOWER")),
    "same_upper_output_padding": (
        [1, 3, 5, 5], [3, 2, 3, 3], dict(strides=[2, 2], auto_pad="SAME_UPPER", output_padding=[1, 1])
    ),
    "same_kernel_below_stride": ([1, 3, 5, 5], [3, 2, 2, 2], dict(strides=[3, 3], auto_pad="SAME_LOWER")),
    "valid_output_padding": (
        [1, 3, 5, 5], [3, 2, 3, 3], dict(strides=[2, 2], auto_pad="VALID", output_padding=[1, 1])
    ),
    "dynamic_batch": (["N", 3, 5, 5], [3, 4, 3, 3], dict(strides=[2, 2], pads=[1, 0, 0, 1])),
    "conv1d": (["N", 3, 7], [3, 4, 4], dict(strides=[2], pads=[1, 1])),
    "conv1d_output_padding": ([2, 3, 7], [3, 4, 3], dict(strides=[3], output_padding=[2])),
}  # fmt: skip


@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no_bias"])
@pytest.mark.parametrize("case", list(TRANSPOSE_CASES))
def test_conv_transpose_matches_onnxruntime(case, bias, tmp_path):
    x_shape, w_shape, attrs = TRANSPOSE_CASES[case]
    model = conv_model(x_shape, w_shape, bias, op_type="ConvTranspose", **attrs)
    ops = opcodes(check_lowered(model, tmp_path))
    assert "TRANSPOSE_CONV" in ops and ops.count("TRANSPOSE") == 2


def transpose_model(case):
    x_shape, w_shape, attrs = TRANSPOSE_CASES[case]
    return conv_model(x_shape, w_shape, op_type="ConvTranspose", **attrs)


def test_conv_transpose_crops_pads_and_adds_bias_after_padding(tmp_path):
    cropped = opcodes(check_lowered(transpose_model("pads"), tmp_path))
    assert cropped == ["TRANSPOSE", "TRANSPOSE_CONV", "STRIDED_SLICE", "TRANSPOSE"]
    extended = opcodes(check_lowered(transpose_model("output_padding_extends"), tmp_path))
    assert extended == ["TRANSPOSE", "TRANSPOSE_CONV", "PAD", "ADD", "TRANSPOSE"]


def test_conv_transpose_with_unknown_spatial_dims(tmp_path):
    """The full output shape comes from SHAPE(x); crops use negative ends."""
    model = conv_model(
        ["N", 3, "H", "W"], [3, 2, 3, 3], op_type="ConvTranspose", strides=[2, 2],
        pads=[1, 0, 2, 1], output_padding=[1, 0],
    )  # fmt: skip
    feeds = onnx_inputs(model, [(2, 3, 6, 5)])
    ops = opcodes(check_lowered(model, tmp_path, inputs=feeds))
    assert ops[:4] == ["TRANSPOSE", "SHAPE", "MUL", "ADD"]


@pytest.mark.parametrize(
    "x_shape, w_shape, attrs, reason",
    [
        ([1, 4, 5, 5], [4, 2, 3, 3], dict(group=2), "group 2 is not supported"),
        ([1, 2, 5, 5], [2, 2, 3, 3], dict(dilations=[2, 2]), "dilations [2, 2] is not supported"),
        ([1, 2, 5], [2, 2, 3], dict(dilations=[3]), "dilations [3] is not supported"),
        (["N", 2, "H", 5], [2, 2, 3, 3], dict(output_shape=[9, 9]),
         "dimension 2 of 'x' must be known"),
        ([1, 2, 3, 3, 3], [2, 2, 1, 1, 1], {}, "rank 5 is not supported"),
    ],
)  # fmt: skip
def test_conv_transpose_unsupported(x_shape, w_shape, attrs, reason, tmp_path):
    model = conv_model(x_shape, w_shape, op_type="ConvTranspose", **attrs)
    message = import_error(model, tmp_path)
    expected = f"Unsupported ONNX operators (1): ConvTranspose 'convtranspose' (opset 17): {reason}"
    assert message == expected
