"""Writing models: formats, determinism, profiling tables, big-model layout (circle spec §5, §7, §10)."""

import os
from pathlib import Path

import numpy as np
import pytest
from circle_schema.v0_10.circle.Model import ModelT

import one_cmds
from one_cmds.errors import ExportError
from one_cmds.formats import metadata as md
from one_cmds.formats import writer
from one_cmds.formats.reader import load
from one_cmds.ir import Graph, Model, Operator, Tensor, composite
from one_cmds.ir.schema import new_options
from support.fixtures import INLINE_MODELS, POST_PROCESSED, RUNNABLE_MODELS
from support.litert import random_inputs, run_tflite

CONVERTER_OUTPUTS = INLINE_MODELS  # weights inline, as the converter writes small models


def metadata_of(path):
    """Metadata entries of a file: name -> bytes (inline or after the flatbuffer)."""
    data = Path(path).read_bytes()
    tree = ModelT.InitFromPackedBuf(data, 0)
    out = {}
    for m in tree.metadata or []:
        b = tree.buffers[m.buffer]
        blob = data[b.offset : b.offset + b.size] if b.offset > 1 else b.data
        out[m.name.decode()] = b"" if blob is None else bytes(blob)
    return out


# Post-processed files are not raw converter output: expand_dims.tflite carries a
# shape_signature equal to its static shape, which the shape rule of the spec (§6) omits on
# write; the hand-built ones were packed by the circle_schema object API.
REPRODUCIBLE = [name for name in CONVERTER_OUTPUTS if name not in POST_PROCESSED]


@pytest.mark.parametrize("name", REPRODUCIBLE)
def test_plain_tflite_write_reproduces_converter_bytes(tmp_path, fixture_path, name):
    out = tmp_path / name
    one_cmds.save(load(fixture_path(name)), str(out))
    assert out.read_bytes() == Path(fixture_path(name)).read_bytes()


def test_static_shape_signature_is_omitted(tmp_path, fixture_path):
    out = str(tmp_path / "m.circle")
    one_cmds.save(load(fixture_path("expand_dims.tflite")), out)
    tree = ModelT.InitFromPackedBuf(Path(out).read_bytes(), 0)
    assert all(t.shapeSignature is None for t in tree.subgraphs[0].tensors)


def test_dynamic_dims_written_as_signature(tmp_path, fixture_path):
    model = load(fixture_path("dynamic_batch.tflite"))
    assert model.main.inputs[0].shape == (None, 8, 8, 4)
    out = str(tmp_path / "m.circle")
    one_cmds.save(model, out)
    tensor = ModelT.InitFromPackedBuf(Path(out).read_bytes(), 0).subgraphs[0].tensors[0]
    assert list(tensor.shape) == [1, 8, 8, 4] and list(tensor.shapeSignature) == [-1, 8, 8, 4]


@pytest.mark.parametrize("name", RUNNABLE_MODELS)
def test_tflite_circle_tflite_runs_bit_identically(tmp_path, fixture_path, name):
    source = fixture_path(name)
    circle = str(tmp_path / "m.circle")
    one_cmds.save(load(source), circle, profile=True)
    assert Path(circle).read_bytes()[4:8] == b"CIR0"
    back = str(tmp_path / "back.tflite")
    one_cmds.save(load(circle), back)
    inputs = random_inputs(load(source))
    expected = run_tflite(source, inputs)
    got = run_tflite(back, inputs)
    assert len(expected) == len(got)
    for e, g in zip(expected, got, strict=True):
        assert e.dtype == g.dtype and np.array_equal(e, g)


def test_circle_header_and_version(tmp_path, fixture_path):
    path = str(tmp_path / "m.circle")
    one_cmds.save(load(fixture_path("add2.tflite")), path)
    data = Path(path).read_bytes()
    assert data[4:8] == b"CIR0"
    assert ModelT.InitFromPackedBuf(data, 0).version == 0
    tfl = str(tmp_path / "m.TFLite")
    one_cmds.save(load(path), tfl)
    assert Path(tfl).read_bytes()[4:8] == b"TFL3"


def test_output_is_deterministic(tmp_path, fixture_path):
    paths = [str(tmp_path / f"{i}.circle") for i in range(2)]
    for p in paths:
        one_cmds.save(load(fixture_path("transformer_block.tflite")), p, profile=True)
    assert Path(paths[0]).read_bytes() == Path(paths[1]).read_bytes()


def test_profile_tables(tmp_path, fixture_path):
    source = fixture_path("mobilenet_tiny.tflite")
    model = load(source)
    path = str(tmp_path / "m.circle")
    one_cmds.save(model, path, profile=True)
    meta = metadata_of(path)
    assert list(meta) == ["min_runtime_version", "CONVERSION_METADATA", *md_names()]
    n = len(model.main.operators)
    assert md.decode_source_table(meta[md.SOURCE_TABLE]) == model.source_table
    assert md.decode_op_table(meta[md.OP_TABLE]) == {i: frozenset({i}) for i in range(n)}
    assert meta[md.SOURCE_MD5] == model.source_md5.encode()


def md_names():
    return [md.SOURCE_TABLE, md.OP_TABLE, md.SOURCE_MD5]


def test_no_profile_tables_by_default(tmp_path, fixture_path):
    path = str(tmp_path / "m.circle")
    one_cmds.save(load(fixture_path("mobilenet_tiny.tflite")), path, profile=True)
    again = str(tmp_path / "again.circle")
    one_cmds.save(load(path), again)
    assert not set(md_names()) & set(metadata_of(again))


def test_worked_example_fusion_keeps_origins(tmp_path, fixture_path):
    """Spec §11: a fused operator carries the union; the source table keeps the removed name."""
    source = fixture_path("misc_ops_a.tflite")
    model = load(source)
    ops = model.main.operators
    first, second = ops[0], ops[1]  # ABS -> SQRT: pretend SQRT absorbed ABS
    second.inputs = list(first.inputs)
    second.origin = composite([first.origin, second.origin])
    model.main.operators = ops[1:]
    path = str(tmp_path / "fused.circle")
    one_cmds.save(model, path, profile=True)
    meta = metadata_of(path)
    op_table = md.decode_op_table(meta[md.OP_TABLE])
    assert op_table[0] == frozenset({0, 1})
    assert len(op_table) == len(ops) - 1
    assert md.decode_source_table(meta[md.SOURCE_TABLE])[0] == first.outputs[0].name
    again = load(path)
    assert again.main.operators[0].origin == frozenset({0, 1})
    assert again.source_md5 == model.source_md5
    path2 = str(tmp_path / "again.circle")
    one_cmds.save(again, path2, profile=True)
    assert metadata_of(path2) == meta


def test_profile_needs_a_source_file(tmp_path):
    with pytest.raises(ExportError, match="not loaded from a file"):
        one_cmds.save(
            one_cmds.Model(graphs=[one_cmds.Graph()]), str(tmp_path / "m.circle"), profile=True
        )


def test_circle_only_operator_refused_as_tflite(tmp_path, fixture_path):
    model = load(fixture_path("misc_ops_a.tflite"))
    model.main.operators[5].opcode = "INSTANCE_NORM"
    path = str(tmp_path / "m.tflite")
    with pytest.raises(ExportError) as e:
        one_cmds.save(model, path)
    assert str(e.value) == (
        f"Failed to export: {path} (operator INSTANCE_NORM exists only in circle: graph 0, operator 5)"
    )
    assert not os.path.exists(path)
    one_cmds.save(model, str(tmp_path / "m.circle"))


@pytest.mark.parametrize(
    ("target", "reason"),
    [("missing/m.circle", "does not exist"), ("", "is a directory")],
)
def test_export_failures_leave_nothing(tmp_path, fixture_path, target, reason):
    path = str(tmp_path / target) if target else str(tmp_path)
    before = sorted(os.listdir(tmp_path))
    with pytest.raises(ExportError) as e:
        one_cmds.save(load(fixture_path("add2.tflite")), path)
    assert str(e.value).startswith(f"Failed to export: {path} (")
    assert reason in str(e.value)
    assert sorted(os.listdir(tmp_path)) == before


def test_weights_after_flatbuffer_when_too_big(tmp_path, fixture_path, monkeypatch):
    """Above the 2 GiB limit (lowered here) every weight goes after the flatbuffer, 16-aligned."""
    monkeypatch.setattr(writer, "FLATBUFFER_LIMIT", 4096)
    source = fixture_path("mobilenet_tiny.tflite")
    path = str(tmp_path / "big.tflite")
    one_cmds.save(load(source), path)
    data = Path(path).read_bytes()
    tree = ModelT.InitFromPackedBuf(data, 0)
    placed = [b for b in tree.buffers if b.offset > 1]
    assert placed and all(b.data is None for b in placed)
    assert all(b.offset % 16 == 0 for b in placed)
    assert metadata_of(path)["buffer_location"] == b"outside flatbuffers"
    inputs = random_inputs(load(source))
    for e, g in zip(run_tflite(source, inputs), run_tflite(path, inputs), strict=True):
        assert np.array_equal(e, g)
    inline = str(tmp_path / "inline.tflite")
    monkeypatch.undo()
    one_cmds.save(load(path), inline)
    assert Path(inline).read_bytes() == Path(source).read_bytes()


def test_an_empty_constant_in_a_file_over_the_limit(tmp_path, monkeypatch):
    """An empty constant (a decoder's empty cache, say) has no bytes to place after the
    flatbuffer: the 3B Llama of issue 32 failed with a KeyError here."""
    monkeypatch.setattr(writer, "FLATBUFFER_LIMIT", 64)
    empty = Tensor.constant("empty", np.zeros((1, 0), np.float32))
    x = Tensor("x", "FLOAT32", (1, 300))
    y = Tensor("y", "FLOAT32", (1, 300))
    weights = Tensor.constant("w", np.arange(300, dtype=np.float32).reshape(1, 300))
    z = Tensor("z", "FLOAT32", (1, 300))
    ops = [Operator("CONCATENATION", [x, empty], [y], new_options("ConcatenationOptions", axis=1)),
           Operator("ADD", [y, weights], [z], new_options("AddOptions"))]  # fmt: skip
    model = Model([Graph("main", [x], [z], ops)])
    path = str(tmp_path / "empty.circle")
    one_cmds.save(model, path)
    assert metadata_of(path)["buffer_location"] == b"outside flatbuffers"
    (got,) = one_cmds.Interpreter(load(path)).run([np.ones((1, 300), np.float32)])
    assert np.array_equal(got, 1 + np.arange(300, dtype=np.float32).reshape(1, 300))


def _repacked(data: bytes, ident: bytes) -> bytes:
    """What the bindings pack for the object tree of ``data`` (weights inline)."""
    import flatbuffers

    builder = flatbuffers.Builder(len(data))
    builder.Finish(ModelT.InitFromPackedBuf(data, 0).Pack(builder), file_identifier=ident)
    return bytes(builder.Output())


@pytest.mark.parametrize("name", RUNNABLE_MODELS)
def test_streamed_inline_file_is_what_the_bindings_pack(tmp_path, fixture_path, name):
    """Weights poured into holes of a small pack give the bytes of a plain pack of the same
    tree, for optimized circle files with new buffers and profiling tables too."""
    model = one_cmds.optimize(load(fixture_path(name)), O1=True)
    path = tmp_path / "m.circle"
    one_cmds.save(model, str(path), profile=True)
    data = path.read_bytes()
    assert data == _repacked(data, b"CIR0")


def test_every_weight_size_modulo_16_streams_exactly(tmp_path):
    """Constants of 0 to 40 bytes (every remainder modulo 16, empty ones) and a signature."""
    from support.passes import Net

    net = Net()
    x = net.input("x", [1])
    outputs = []
    for n in range(41):
        c = net.const(f"c{n}", np.arange(n, dtype=np.uint8))
        outputs.append(net.op("SHAPE", [c], name=f"s{n}"))
    net.outputs(*outputs, x)
    model = net.model()
    path = tmp_path / "sizes.circle"
    one_cmds.save(model, str(path), profile=True)
    data = path.read_bytes()
    assert data == _repacked(data, b"CIR0")
    again = load(str(path))
    for n, op in enumerate(again.main.operators):
        assert op.inputs[0].data.tolist() == list(range(n))  # the empty one is a constant too
