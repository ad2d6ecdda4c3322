"""Whole models (onnx-import.md §10): the torch exports of tests/fixtures/generate_onnx.py.

Each model: onnxruntime on the ONNX file against LiteRT on the import written as ``.tflite``
(``support.onnx_check.check``), graph I/O names and dtypes kept, no CUSTOM operator, and the
TRANSPOSEs left by the layout pass as §5.5 says: plain CNNs one at each rank-4 input and output,
none with the ``nchw_to_nhwc_*`` options; elsewhere none is an identity, reads a constant or
feeds a TRANSPOSE. The dynamic decoders keep unknown batch and sequence dims and become fully
static models under one-resize.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
import pytest

import one_cmds
from one_cmds.frontends.onnx import OnnxOptions, import_onnx
from support.litert import run_tflite
from support.onnx_check import check, close, run_onnxruntime

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "onnx"
MANIFEST = {
    Path(m["file"]).stem: m for m in json.loads((FIXTURES / "manifest.json").read_text())["models"]
}

CLASSIFIERS = ["resnet18", "resnet50", "mobilenet_v2", "mobilenet_v3", "efficientnet_b0"]
DECODERS = ["gpt2", "llama"]
TESTED = [*CLASSIFIERS, "unet", "vit", "bert", *DECODERS, "lstm_gru"]
TO_NHWC = [0, 2, 3, 1]
TO_NCHW = [0, 3, 1, 2]

IR_DTYPES = {"float32": "FLOAT32", "int64": "INT64"}  # graph I/O keep their dtype (§7.2)


def load(name: str) -> onnx.ModelProto:
    return onnx.load(str(FIXTURES / f"{name}.onnx"))


def tolerance(proto: onnx.ModelProto) -> float:
    """§10: 1e-3 for nets of 50 or more convs, whose accumulation order under XNNPACK
    compounds; else the default 1e-4 (the transformers here have hidden size 32 and at most
    64 positions, far below the 4096-element reductions that allow 1e-3)."""
    convs = sum(n.op_type == "Conv" for n in proto.graph.node)
    return 1e-3 if convs >= 50 else 1e-4


def images(shape) -> np.ndarray:
    """Images in [0, 1) from ``default_rng(0)`` (§10)."""
    return np.random.default_rng(0).uniform(0, 1, shape).astype(np.float32)


def token_feeds(name: str, batch: int, seq: int) -> list[np.ndarray]:
    """Token ids in [0, vocab), masks of ones, token types in [0, token_types) (§10)."""
    entry = MANIFEST[name]
    rng = np.random.default_rng(0)
    feeds = []
    for info in entry["inputs"]:
        if info["name"] == "attention_mask":
            feeds.append(np.ones((batch, seq), np.int64))
        else:
            high = entry["token_types"] if info["name"] == "token_type_ids" else entry["vocab"]
            feeds.append(rng.integers(0, high, (batch, seq)).astype(np.int64))
    return feeds


def input_shape(proto: onnx.ModelProto, batch: int) -> tuple[int, ...]:
    """The first input's shape with the (dynamic) batch set to ``batch``."""
    dims = proto.graph.input[0].type.tensor_type.shape.dim
    return (batch, *(d.dim_value for d in dims[1:]))


def transposes(model: one_cmds.Model) -> list[one_cmds.Operator]:
    return [op for op in model.main.operators if op.opcode == "TRANSPOSE"]


def perm(op: one_cmds.Operator) -> list[int]:
    return [int(p) for p in op.inputs[1].data]


def onnx_transposes(proto: onnx.ModelProto) -> int:
    return sum(n.op_type == "Transpose" for n in proto.graph.node)


def ir_dtype(info: onnx.ValueInfoProto) -> str:
    return IR_DTYPES[onnx.helper.tensor_dtype_to_np_dtype(info.type.tensor_type.elem_type).name]


def assert_structure(model: one_cmds.Model, proto: onnx.ModelProto) -> None:
    """Graph I/O names, order and dtypes as in ONNX; no CUSTOM operator; every TRANSPOSE
    obeys §5.5: not an identity, not reading a constant, not feeding a TRANSPOSE."""
    for tensors, infos in (
        (model.main.inputs, proto.graph.input),
        (model.main.outputs, proto.graph.output),
    ):
        assert [(t.name, t.dtype) for t in tensors] == [(i.name, ir_dtype(i)) for i in infos]
    customs = [op for op in model.main.operators if op.opcode == "CUSTOM"]
    assert not customs, f"CUSTOM operators: {customs}"
    consumers = model.main.consumers()
    for op in transposes(model):
        assert perm(op) != list(range(len(perm(op)))), f"identity TRANSPOSE {op}"
        assert op.inputs[0].data is None, f"TRANSPOSE of a constant {op}"
        fed = [c for c in consumers.get(op.outputs[0], []) if c.opcode == "TRANSPOSE"]
        assert not fed, f"TRANSPOSE {op} feeds TRANSPOSE {fed}"


def assert_one_reads_the_input(found: list[one_cmds.Operator], model: one_cmds.Model) -> None:
    """Exactly one of ``found`` reads graph input 0: its layout TRANSPOSE (§5.5 (a))."""
    at_input = [op for op in found if op.inputs[0] is model.main.inputs[0]]
    assert len(at_input) == 1, f"{len(at_input)} TRANSPOSEs read the input: {found}"
    assert perm(at_input[0]) == TO_NHWC


def check_channels_last(proto, tmp_path, feeds, options: OnnxOptions, tol: float):
    """Import with the ``nchw_to_nhwc_*`` ``options`` and compare LiteRT, fed NHWC inputs
    (and giving NHWC outputs with ``nchw_to_nhwc_output_shape``), with onnxruntime."""
    path = str(tmp_path / "model.onnx")
    onnx.save(proto, path)
    expected = run_onnxruntime(path, feeds)
    imported = import_onnx(path, options)
    nhwc = [x.transpose(TO_NHWC) for x in feeds]
    shapes = [t.shape[1:] for t in imported.main.inputs]
    assert shapes == [x.shape[1:] for x in nhwc], f"input shapes {shapes} are not NHWC"
    tflite = str(tmp_path / "model.tflite")
    one_cmds.save(one_cmds.resize(imported, [x.shape for x in nhwc]), tflite)
    got = run_tflite(tflite, nhwc)
    for e, g in zip(expected, got, strict=True):
        if options.nchw_to_nhwc_output_shape and e.ndim == 4:
            e = e.transpose(TO_NHWC)
        assert close(e, g, tol, tol), f"max abs diff {np.max(np.abs(e - g))}"
    return imported


def shape_id(shape: tuple[int, int]) -> str:
    return f"{shape[0]}x{shape[1]}"


def test_every_fixture_has_a_test():
    assert sorted(MANIFEST) == sorted(TESTED)
    assert sorted(p.stem for p in FIXTURES.glob("*.onnx")) == sorted(TESTED)


# -- plain CNNs -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", CLASSIFIERS)
def test_classifier_matches_onnxruntime_with_one_transpose_at_the_input(name, tmp_path):
    proto = load(name)
    tol = tolerance(proto)
    imported = check(proto, tmp_path, inputs=[images(input_shape(proto, 2))], rtol=tol, atol=tol)
    assert_structure(imported, proto)
    assert imported.main.inputs[0].shape == (None, 3, 64, 64)
    found = transposes(imported)
    assert len(found) == 1, f"{len(found)} TRANSPOSEs: {found}"
    assert_one_reads_the_input(found, imported)


@pytest.mark.parametrize("name", CLASSIFIERS)
def test_classifier_with_nhwc_input_has_no_transpose(name, tmp_path):
    proto = load(name)
    options = OnnxOptions(nchw_to_nhwc_input_shape=True)
    tol = tolerance(proto)
    imported = check_channels_last(proto, tmp_path, [images(input_shape(proto, 2))], options, tol)
    assert_structure(imported, proto)
    assert imported.main.inputs[0].shape == (None, 64, 64, 3)
    assert transposes(imported) == []


def test_unet_matches_onnxruntime_with_transposes_at_input_and_output(tmp_path):
    proto = load("unet")
    imported = check(proto, tmp_path, inputs=[images(input_shape(proto, 2))])
    assert_structure(imported, proto)
    found = transposes(imported)
    assert len(found) == 2, f"{len(found)} TRANSPOSEs: {found}"
    assert_one_reads_the_input(found, imported)
    at_output = [op for op in found if op.outputs[0] is imported.main.outputs[0]]
    assert len(at_output) == 1
    assert perm(at_output[0]) == TO_NCHW


@pytest.mark.parametrize(
    ("output_too", "left"), [(False, 1), (True, 0)], ids=["input", "input_and_output"]
)
def test_unet_with_nhwc_io(output_too, left, tmp_path):
    proto = load("unet")
    options = OnnxOptions(nchw_to_nhwc_input_shape=True, nchw_to_nhwc_output_shape=output_too)
    imported = check_channels_last(proto, tmp_path, [images((2, 3, 32, 32))], options, 1e-4)
    assert_structure(imported, proto)
    assert imported.main.inputs[0].shape == (None, 32, 32, 3)
    assert imported.main.outputs[0].shape == (
        (None, 32, 32, 2) if output_too else (None, 2, 32, 32)
    )
    found = transposes(imported)
    assert len(found) == left, f"{len(found)} TRANSPOSEs: {found}"
    if left:
        assert found[0].outputs[0] is imported.main.outputs[0]
        assert perm(found[0]) == TO_NCHW


# -- transformers ---------------------------------------------------------------------------


def test_vit_matches_onnxruntime(tmp_path):
    proto = load("vit")
    imported = check(proto, tmp_path, inputs=[images((2, 3, 32, 32))])
    assert_structure(imported, proto)
    found = transposes(imported)
    # The patch conv's input TRANSPOSE stays (§5.5 (a)); its output TRANSPOSE merges with the
    # patch flatten (Reshape + Transpose, §5.3 rule 3), so there are no more TRANSPOSEs than
    # ONNX Transposes.
    assert_one_reads_the_input(found, imported)
    assert len(found) <= onnx_transposes(proto)


def assert_no_added_transposes(imported: one_cmds.Model, proto: onnx.ModelProto) -> None:
    """No layout-sensitive operator: every TRANSPOSE comes from an ONNX Transpose (§5.5 (c)),
    and propagation never raises the count."""
    assert len(transposes(imported)) <= onnx_transposes(proto)


@pytest.mark.parametrize("shape", [(2, 16), (1, 1), (3, 7)], ids=shape_id)
def test_bert_matches_onnxruntime(shape, tmp_path):
    proto = load("bert")
    imported = check(proto, tmp_path, inputs=token_feeds("bert", *shape))
    assert_structure(imported, proto)
    assert all(t.shape == (None, None) for t in imported.main.inputs)
    assert_no_added_transposes(imported, proto)


def test_bert_attention_mask_with_padding(tmp_path):
    """Padded positions (mask 0) get finfo.min added to their scores: a wrong mask lowering
    changes every row of the padded sequence."""
    ids, mask, types = token_feeds("bert", 2, 16)
    mask[0, 10:] = 0
    mask[1, 3:] = 0
    check(load("bert"), tmp_path, inputs=[ids, mask, types])


@pytest.mark.parametrize("name", DECODERS)
def test_decoder_imports_with_unknown_batch_and_sequence(name, tmp_path):
    proto = load(name)
    imported = import_onnx(str(FIXTURES / f"{name}.onnx"))
    assert_structure(imported, proto)
    assert_no_added_transposes(imported, proto)
    path = str(tmp_path / f"{name}.circle")
    one_cmds.save(imported, path)
    written = one_cmds.load(path)
    assert written.main.inputs[0].shape == (None, None)  # shape_signature [-1, -1]
    assert written.main.outputs[0].shape == (None, None, MANIFEST[name]["vocab"])


@pytest.mark.parametrize("shape", [(1, 16), (2, 64), (1, 1)], ids=shape_id)
@pytest.mark.parametrize("name", DECODERS)
def test_decoder_resized_is_static_and_matches_onnxruntime(name, shape, tmp_path):
    resize = f"[{shape[0]},{shape[1]}]"
    imported = check(load(name), tmp_path, inputs=token_feeds(name, *shape), resize=resize)
    resized = one_cmds.resize(imported, resize)
    dynamic = [t.name for t in resized.main.referenced_tensors() if None in t.shape]
    assert not dynamic, f"unknown dims left after resizing to {resize}: {dynamic}"
    assert resized.main.outputs[0].shape == (*shape, MANIFEST[name]["vocab"])


# -- recurrent ------------------------------------------------------------------------------


UNROLLED = OnnxOptions(unroll_lstm=True, unroll_rnn=True)


@pytest.mark.parametrize("options", [OnnxOptions(), UNROLLED], ids=["default", "unrolled"])
def test_lstm_gru_matches_onnxruntime(options, tmp_path):
    proto = load("lstm_gru")
    imported = check(proto, tmp_path, options=options)  # batch 2, floats in [-1, 1)
    assert_structure(imported, proto)
    assert imported.main.inputs[0].shape == (None, 8, 6)


SINGLE_BATCH = OnnxOptions(dynamic_batch_to_single_batch=True)


@pytest.mark.parametrize(
    ("options", "expected"),
    [(SINGLE_BATCH, 2), (OnnxOptions(), 0), (UNROLLED, 0)],
    ids=["single-batch", "dynamic-batch", "unrolled"],
)
def test_lstm_lowers_to_sequence_operators_unless_unrolled(options, expected):
    """§6.4: a bidirectional LSTM is two UNIDIRECTIONAL_SEQUENCE_LSTMs (torch exports zero
    initial states of the runtime batch: ConstantOfShape) unless ``unroll_lstm``. **Adopted:**
    with an unknown batch it is unrolled too: LiteRT sizes the state variables once, so a
    sequence LSTM would not run at any other batch after one-resize."""
    imported = import_onnx(str(FIXTURES / "lstm_gru.onnx"), options)
    ops = [op.opcode for op in imported.main.operators]
    assert ops.count("UNIDIRECTIONAL_SEQUENCE_LSTM") == expected
