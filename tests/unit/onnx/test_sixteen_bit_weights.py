"""16-bit float weights stay 16-bit (issue 32): FLOAT16 constants behind a DEQUANTIZE, equal to
onnxruntime in LiteRT; bfloat16 converted with its float16 overflows counted; the
``float32_weights`` key; external data mapped, not read; the weights modes and the calibrated
quantizer take the 16-bit weights."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import one_cmds
from one_cmds.formats.files import file_span
from one_cmds.frontends.onnx import OnnxOptions, import_onnx
from one_cmds.quant.ggml_weights import quantize_weights_chunk
from one_cmds.quant.half_weights import widen_half_weights
from one_cmds.quant.options import ChunkType
from one_cmds.quant.weights_only import quantize_weights_only
from support.onnx_check import check, onnx_inputs, run_onnxruntime


def decoder_slice(weights: dict[str, np.ndarray]) -> onnx.ModelProto:
    """An embedding GATHER then a MatMul by a [64, 96] weight, float16 activations."""
    nodes = [
        helper.make_node("Gather", ["emb", "ids"], ["h"]),
        helper.make_node("MatMul", ["h", "w"], ["y"]),
    ]
    elem = numpy_helper.from_array(weights["w"], "w").data_type
    graph = helper.make_graph(
        nodes, "slice", [helper.make_tensor_value_info("ids", TensorProto.INT64, [1, 8])],
        [helper.make_tensor_value_info("y", elem, [1, 8, 96])],
        [numpy_helper.from_array(v, k) for k, v in weights.items()],
    )  # fmt: skip
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def half_weights(dtype=np.float16) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    return {
        "emb": rng.normal(0, 0.5, (100, 64)).astype(dtype),
        "w": rng.normal(0, 0.1, (64, 96)).astype(dtype),
    }


def weight_sources(model: one_cmds.Model) -> dict[str, str]:
    """The dtype of the constant each GATHER / FULLY_CONNECTED weight comes from."""
    producers = model.main.producers()
    found = {}
    for op in model.main.operators:
        if op.opcode in ("GATHER", "FULLY_CONNECTED"):
            t = op.inputs[0 if op.opcode == "GATHER" else 1]
            producer = producers.get(t)
            if producer is not None and producer.opcode == "DEQUANTIZE":
                t = producer.inputs[0]
            found[op.opcode] = t.dtype
    return found


def test_float16_weights_stay_float16_and_equal_onnxruntime(tmp_path):
    imported = check(decoder_slice(half_weights()), tmp_path, rtol=1e-3, atol=1e-3)
    assert weight_sources(imported) == {"GATHER": "FLOAT16", "FULLY_CONNECTED": "FLOAT16"}
    assert "FLOAT32" not in {t.dtype for t in imported.main.referenced_tensors()
                             if t.is_constant and t.data.size >= 1024}  # fmt: skip


def test_float32_weights_key_writes_float32(tmp_path):
    options = OnnxOptions(float32_weights=True)
    imported = check(decoder_slice(half_weights()), tmp_path, options=options, rtol=1e-3, atol=1e-3)
    assert weight_sources(imported) == {"GATHER": "FLOAT32", "FULLY_CONNECTED": "FLOAT32"}
    assert not [op for op in imported.main.operators if op.opcode == "DEQUANTIZE"]


def test_bfloat16_weights_become_float16_with_overflows_warned(tmp_path):
    weights = half_weights(ml_dtypes.bfloat16)
    weights["w"][3, 5] = 1e5  # beyond float16's range
    path = str(tmp_path / "bf16.onnx")
    onnx.save(decoder_slice(weights), path)
    warnings: list[str] = []
    imported = import_onnx(path, warn=warnings.append)
    assert weight_sources(imported) == {"GATHER": "FLOAT16", "FULLY_CONNECTED": "FLOAT16"}
    assert warnings == [
        "bfloat16 weight 'y/weights': 1 of 6144 values overflow float16 (give float32_weights "
        "to keep them)",
        "graph output 'y' is bfloat16: written as FLOAT32 (LiteRT has no bfloat16 tensors)",
    ]
    ids = np.arange(8, dtype=np.int64).reshape(1, 8)
    wide = import_onnx(path, OnnxOptions(float32_weights=True))
    expected = weights["emb"].astype(np.float32)[ids] @ weights["w"].astype(np.float32)
    (got,) = one_cmds.Interpreter(wide).run([ids])
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_external_weights_are_views_of_the_mapped_file(tmp_path):
    model = decoder_slice(half_weights())
    path = str(tmp_path / "external.onnx")
    onnx.save(model, path, save_as_external_data=True, location="external.data", size_threshold=0)
    imported = import_onnx(path)
    table = next(op for op in imported.main.operators if op.opcode == "DEQUANTIZE"
                 and op.outputs[0].name.startswith("emb")).inputs[0]  # fmt: skip
    span = file_span(table.buffer.raw)
    assert span is not None and span[0].path.endswith("external.data")
    out = str(tmp_path / "external.circle")
    one_cmds.save(imported, out)
    feeds = onnx_inputs(model)
    (expected,) = run_onnxruntime(path, feeds)
    (got,) = one_cmds.Interpreter(one_cmds.load(out)).run(feeds)
    np.testing.assert_allclose(got, expected.astype(np.float32), rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize(
    "convert, expected",
    [
        (lambda m: quantize_weights_chunk(m, ChunkType.q4_0, 0, print),
         {"GATHER": "GGML_Q4_0", "FULLY_CONNECTED": "GGML_Q4_0"}),
        (lambda m: quantize_weights_only(m, "int8", "channel", 0, print),
         {"GATHER": "FLOAT16", "FULLY_CONNECTED": "INT8"}),
        (widen_half_weights, {"GATHER": "FLOAT32", "FULLY_CONNECTED": "FLOAT32"}),
    ],
    ids=["q4_0", "weights_int8", "widened"],
)  # fmt: skip
def test_weights_modes_take_16_bit_weights(tmp_path, convert, expected):
    path = str(tmp_path / "half.onnx")
    onnx.save(decoder_slice(half_weights()), path)
    model = import_onnx(path)
    ids = np.arange(8, dtype=np.int64).reshape(1, 8)
    (before,) = one_cmds.Interpreter(model).run([ids])
    convert(model)
    assert weight_sources(model) == expected
    dequantizes = [op.inputs[0].dtype for op in model.main.operators if op.opcode == "DEQUANTIZE"]
    assert dequantizes == ["FLOAT16"] * (expected["GATHER"] == "FLOAT16")
    (after,) = one_cmds.Interpreter(model).run([ids])
    error = np.abs(after - before).max() / np.abs(before).max()
    assert error < {"GGML_Q4_0": 0.2, "INT8": 0.02, "FLOAT32": 1e-7}[expected["FULLY_CONNECTED"]]


def test_float16_conv_filters_stay_float16(tmp_path):
    rng = np.random.default_rng(1)
    w = rng.normal(0, 0.2, (16, 8, 3, 3)).astype(np.float16)
    b = rng.normal(0, 0.1, 16).astype(np.float16)
    node = helper.make_node("Conv", ["x", "w", "b"], ["y"], pads=[1, 1, 1, 1])
    graph = helper.make_graph(
        [node], "conv", [helper.make_tensor_value_info("x", TensorProto.FLOAT16, [1, 8, 6, 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT16, [1, 16, 6, 6])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")],
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    imported = check(model, tmp_path, rtol=1e-2, atol=1e-2)
    conv = next(op for op in imported.main.operators if op.opcode == "CONV_2D")
    producer = imported.main.producers()[conv.inputs[1]]
    assert producer.opcode == "DEQUANTIZE" and producer.inputs[0].dtype == "FLOAT16"
