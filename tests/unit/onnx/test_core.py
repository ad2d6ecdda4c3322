"""The ONNX import core: loading, errors of §3, lowering with origins, layout TRANSPOSEs."""

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from one_cmds.frontends.onnx import import_onnx
from one_cmds.frontends.onnx.errors import OnnxFileError, OnnxImportError
from support.onnx_check import check

RNG = np.random.default_rng(0)


def conv_model(opset=17, batch="N"):
    w = RNG.standard_normal((8, 3, 3, 3)).astype(np.float32)
    b = RNG.standard_normal(8).astype(np.float32)
    w2 = RNG.standard_normal((8, 1, 3, 3)).astype(np.float32)
    nodes = [
        helper.make_node("Conv", ["x", "W", "B"], ["c"], pads=[1, 1, 1, 1], name="conv1"),
        helper.make_node("Relu", ["c"], ["r"], name="relu"),
        helper.make_node("Conv", ["r", "W2"], ["d"], group=8, pads=[1, 1, 1, 1], strides=[2, 2],
                         name="dw"),
        helper.make_node("Add", ["d", "d"], ["y"], name="add"),
    ]  # fmt: skip
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 3, 16, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(a, n) for a, n in ((w, "W"), (b, "B"), (w2, "W2"))],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def test_conv_relu_depthwise_add_matches_onnxruntime(tmp_path):
    imported = check(conv_model(), tmp_path)
    assert [t.name for t in imported.main.inputs] == ["x"]
    assert [t.name for t in imported.main.outputs] == ["y"]
    assert imported.main.inputs[0].shape == (None, 3, 16, 16)
    assert imported.source_table == {0: "conv1", 1: "relu", 2: "dw", 3: "add"}
    for op in imported.main.operators:
        assert len(op.origin) == 1


def test_md5_is_the_onnx_file_bytes(tmp_path):
    import hashlib

    path = tmp_path / "m.onnx"
    onnx.save(conv_model(), str(path))
    assert import_onnx(str(path)).source_md5 == hashlib.md5(path.read_bytes()).hexdigest()


def test_missing_and_not_onnx_files(tmp_path):
    with pytest.raises(OnnxFileError, match=r"^Failed to open file: .*nope.onnx \("):
        import_onnx(str(tmp_path / "nope.onnx"))
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x00garbage\xff" * 10)
    with pytest.raises(OnnxFileError, match=r"^Invalid input file: .*bad.onnx \(not an ONNX model"):
        import_onnx(str(bad))


def test_unsupported_opset(tmp_path):
    path = tmp_path / "m.onnx"
    model = conv_model(opset=8)
    onnx.save(model, str(path))
    with pytest.raises(OnnxImportError) as e:
        import_onnx(str(path))
    assert str(e.value) == "Unsupported opset: ai.onnx version 8 (supported: 9 to 25)"


def test_all_unsupported_operators_in_one_message(tmp_path):
    nodes = [
        helper.make_node("NonMaxSuppression", ["b", "s"], ["i"], name="/post/nms"),
        helper.make_node("Det", ["x"], ["d"]),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [
            helper.make_tensor_value_info("b", TensorProto.FLOAT, [1, 4, 4]),
            helper.make_tensor_value_info("s", TensorProto.FLOAT, [1, 1, 4]),
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 2]),
        ],
        [
            helper.make_tensor_value_info("i", TensorProto.INT64, None),
            helper.make_tensor_value_info("d", TensorProto.FLOAT, None),
        ],
    )
    path = tmp_path / "m.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    with pytest.raises(OnnxImportError) as e:
        import_onnx(str(path))
    assert str(e.value) == (
        "Unsupported ONNX operators (2): NonMaxSuppression '/post/nms' (opset 17); "
        "Det '' (output 'd') (opset 17)"
    )


def test_negative_dim_values_are_unknown_dims(tmp_path):
    """Some exporters (Paddle) write -1 as a dim value for a dynamic dim."""
    model = conv_model()
    dims = model.graph.input[0].type.tensor_type.shape.dim
    dims[0].Clear()
    dims[0].dim_value = -1
    imported = check(model, tmp_path)
    assert imported.main.inputs[0].shape == (None, 3, 16, 16)
