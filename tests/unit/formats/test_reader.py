"""Loading models: messages for bad files, structure checks, origins and md5 (circle spec §3, §8, §12)."""

import hashlib
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from ai_edge_litert import schema_py_generated as tfl

import one_cmds
from one_cmds.errors import ModelFileError
from one_cmds.formats import metadata as md
from one_cmds.formats.reader import load
from one_cmds.ir import Buffer, MetadataEntry

FIXTURES = [
    "mobilenet_tiny.tflite",
    "conv_spatial.tflite",
    "dynamic_batch.tflite",
    "int8_quant.tflite",
    "two_subgraphs.tflite",
    "buffer_offset.tflite",
    "add2.tflite",
    "transformer_block.tflite",
]


def error_of(path: str) -> str:
    with pytest.raises(ModelFileError) as e:
        load(path)
    return str(e.value)


def test_missing_file(tmp_path):
    path = str(tmp_path / "nope.circle")
    assert error_of(path) == f"Failed to open file: {path} (No such file or directory)"


def test_directory(tmp_path):
    assert error_of(str(tmp_path)) == f"Failed to open file: {tmp_path} (is a directory)"


@pytest.mark.parametrize(
    "content", [b"", b"TFL3", b"1234567", b"hello world, not a model", b"\0\0\0\0PK\3\4"]
)
def test_not_a_model(tmp_path, content):
    path = tmp_path / "m.tflite"
    path.write_bytes(content)
    assert error_of(str(path)) == f"Invalid input file: {path} (not a TFLite or circle model)"


def test_identifier_decides_not_extension(tmp_path, fixture_path):
    path = tmp_path / "model.circle"
    shutil.copy(fixture_path("add2.tflite"), path)
    model = load(str(path))
    assert [op.opcode for op in model.main.operators] == ["ADD"]


@pytest.mark.parametrize("name", FIXTURES)
def test_truncated_files_are_rejected(tmp_path, fixture_path, name):
    data = Path(fixture_path(name)).read_bytes()
    for cut in sorted({8, 12, 64, len(data) // 3, len(data) // 2, len(data) - 100}):
        path = tmp_path / f"cut{cut}.tflite"
        path.write_bytes(data[:cut])
        assert error_of(str(path)).startswith(f"Invalid input file: {path} (")


@pytest.mark.parametrize(
    "name", ["mobilenet_tiny.tflite", "two_subgraphs.tflite", "int8_quant.tflite"]
)
def test_corrupted_bytes_never_crash(tmp_path, fixture_path, name):
    """Random byte damage gives a model or a clean ModelFileError, never another exception."""
    data = bytearray(Path(fixture_path(name)).read_bytes())
    rng = np.random.default_rng(1)
    path = tmp_path / "bad.tflite"
    for _ in range(150):
        damaged = bytearray(data)
        for pos in rng.integers(8, len(data), size=4):
            damaged[pos] = int(rng.integers(0, 256))
        path.write_bytes(bytes(damaged))
        try:
            load(str(path))
        except ModelFileError as e:
            assert str(e).startswith("Invalid input file:")


def test_root_offset_outside_file(tmp_path, fixture_path):
    data = bytearray(Path(fixture_path("add2.tflite")).read_bytes())
    data[0:4] = (10**6).to_bytes(4, "little")
    path = tmp_path / "m.tflite"
    path.write_bytes(bytes(data))
    assert "outside the file" in error_of(str(path))


def test_weights_after_the_flatbuffer_are_views(fixture_path):
    path = fixture_path("buffer_offset.tflite")
    raw = Path(path).read_bytes()
    model = load(path)
    constants = [t for t in model.main.referenced_tensors() if t.is_constant]
    assert constants
    for t in constants:
        assert not t.buffer.raw.flags.writeable
    tree = tfl.ModelT.InitFromPackedBuf(raw, 0)
    by_name = {t.name: t for t in model.main.referenced_tensors()}
    for t in tree.subgraphs[0].tensors:
        b = tree.buffers[t.buffer]
        if b.offset > 1:
            ours = by_name[t.name.decode()]
            assert ours.buffer.raw.tobytes() == raw[b.offset : b.offset + b.size]


def _repack_tflite(tree, path):
    import flatbuffers

    builder = flatbuffers.Builder(1024)
    builder.Finish(tree.Pack(builder), file_identifier=b"TFL3")
    path.write_bytes(bytes(builder.Output()))


def test_buffer_pointing_outside_the_file(tmp_path, fixture_path):
    tree = tfl.ModelT.InitFromPackedBuf(Path(fixture_path("buffer_offset.tflite")).read_bytes(), 0)
    index = next(i for i, b in enumerate(tree.buffers) if b.offset > 1)
    tree.buffers[index].offset = 10**7
    path = tmp_path / "m.tflite"
    _repack_tflite(tree, path)
    assert (
        error_of(str(path))
        == f"Invalid input file: {path} (buffer {index} points outside the file)"
    )


def test_tflite_external_buffer_field_is_unsupported(tmp_path, fixture_path):
    tree = tfl.ModelT.InitFromPackedBuf(Path(fixture_path("add2.tflite")).read_bytes(), 0)
    tree.subgraphs[0].tensors[0].externalBuffer = 1
    path = tmp_path / "m.tflite"
    _repack_tflite(tree, path)
    assert error_of(str(path)) == f"Invalid input file: {path} (external buffers is not supported)"


def test_tensor_index_out_of_range(tmp_path, fixture_path):
    tree = tfl.ModelT.InitFromPackedBuf(Path(fixture_path("add2.tflite")).read_bytes(), 0)
    tree.subgraphs[0].operators[0].inputs = np.array([0, 300], np.int32)
    path = tmp_path / "m.tflite"
    _repack_tflite(tree, path)
    assert error_of(str(path)) == (
        f"Invalid input file: {path} (operator 0 of graph 0: input tensor index 300 out of range)"
    )


def test_origins_and_md5_are_stamped(fixture_path):
    path = fixture_path("mobilenet_tiny.tflite")
    model = load(path)
    ops = model.main.operators
    assert [op.origin for op in ops] == [frozenset({i}) for i in range(len(ops))]
    assert model.source_table == {i: op.outputs[0].name for i, op in enumerate(ops)}
    assert model.source_md5 == hashlib.md5(Path(path).read_bytes()).hexdigest()


def test_other_subgraphs_get_no_origin(fixture_path):
    model = load(fixture_path("two_subgraphs.tflite"))
    assert all(op.origin == frozenset() for g in model.graphs[1:] for op in g.operators)


def _with_tables(model, tables):
    model.metadata += [MetadataEntry(name, Buffer.from_bytes(blob)) for name, blob in tables]
    return model


def _saved(tmp_path, model, name="m.circle"):
    path = str(tmp_path / name)
    one_cmds.save(model, path)
    return path


def test_tables_restore_origins_verbatim(tmp_path, fixture_path):
    model = load(fixture_path("add2.tflite"))
    sources = {0: "gone", 7: "sum"}
    path = _saved(
        tmp_path,
        _with_tables(
            model,
            [
                (md.SOURCE_TABLE, md.encode_source_table(sources)),
                (md.OP_TABLE, md.encode_op_table({0: {0, 7}})),
                (md.SOURCE_MD5, md.encode_md5("0123456789abcdef0123456789abcdef")),
            ],
        ),
    )
    again = load(path)
    assert again.main.operators[0].origin == frozenset({0, 7})
    assert again.source_table == sources
    assert again.source_md5 == "0123456789abcdef0123456789abcdef"
    assert again.metadata == [] or all(not e.name.startswith("ONE_") for e in again.metadata)


def test_orphan_source_table_is_rebuilt_with_a_warning(tmp_path, fixture_path):
    model = load(fixture_path("add2.tflite"))
    path = _saved(
        tmp_path, _with_tables(model, [(md.SOURCE_TABLE, md.encode_source_table({5: "x"}))])
    )
    warnings = []
    again = load(path, warn=warnings.append)
    assert warnings == [
        "ONE_source_table ignored: ONE_source_table and ONE_op_table must both be present"
    ]
    assert again.source_table == {0: "Identity"}
    assert again.main.operators[0].origin == frozenset({0})


def test_op_table_entry_beyond_graph_is_ignored(tmp_path, fixture_path):
    model = load(fixture_path("add2.tflite"))
    tables = [
        (md.SOURCE_TABLE, md.encode_source_table({0: "a"})),
        (md.OP_TABLE, md.encode_op_table({0: {0}, 4: {0}})),
    ]
    warnings = []
    again = load(_saved(tmp_path, _with_tables(model, tables)), warn=warnings.append)
    assert warnings == ["ONE_op_table entry 4 ignored: graph 0 has 1 operators"]
    assert again.main.operators[0].origin == frozenset({0})


def test_op_without_entry_gets_no_origin(tmp_path, fixture_path):
    model = load(fixture_path("mobilenet_tiny.tflite"))
    tables = [
        (md.SOURCE_TABLE, md.encode_source_table({3: "a"})),
        (md.OP_TABLE, md.encode_op_table({1: {3}})),
    ]
    again = load(_saved(tmp_path, _with_tables(model, tables)))
    assert [op.origin for op in again.main.operators][:3] == [
        frozenset(),
        frozenset({3}),
        frozenset(),
    ]


@pytest.mark.parametrize(
    ("tables", "reason"),
    [
        (
            [
                (md.SOURCE_TABLE, md.encode_source_table({0: "a"})),
                (md.OP_TABLE, md.encode_op_table({0: {9}})),
            ],
            "Op table decode error : unknown source ID 9",
        ),
        ([(md.SOURCE_TABLE, b"\x01\0\0")], "Source table decode error : invalid entry number"),
        ([(md.OP_TABLE, b"\x01\0\0\0\0\0")], "Op table decode error : invalid entry item"),
        (
            [
                (md.SOURCE_TABLE, md.encode_source_table({})),
                (md.SOURCE_TABLE, md.encode_source_table({})),
            ],
            "Source table decode error : duplicated metadata entry",
        ),
        ([(md.SOURCE_MD5, b"xyz")], "ONE_source_md5 decode error : invalid digest"),
        (
            [(md.SOURCE_MD5, md.encode_md5("0" * 32)), (md.SOURCE_MD5, md.encode_md5("0" * 32))],
            "ONE_source_md5 decode error : duplicated metadata entry",
        ),
        (
            [(md.EXECUTION_PLAN_TABLE, b"\x01\0\0\0\0\0\0\0\0\0\0\0")],
            "Execution plan table decode error : empty execution plan entry",
        ),
    ],
)
def test_malformed_tables(tmp_path, fixture_path, tables, reason):
    path = _saved(tmp_path, _with_tables(load(fixture_path("add2.tflite")), tables))
    assert error_of(path) == f"Invalid input file: {path} ({reason})"


def test_md5_kept_without_origin_tables(tmp_path, fixture_path):
    model = load(fixture_path("add2.tflite"))
    path = _saved(tmp_path, _with_tables(model, [(md.SOURCE_MD5, md.encode_md5("f" * 32))]))
    again = load(path)
    assert again.source_md5 == "f" * 32
    assert again.source_table == {0: "Identity"}


def test_input_file_is_not_modified(tmp_path, fixture_path):
    path = tmp_path / "m.tflite"
    shutil.copy(fixture_path("mobilenet_tiny.tflite"), path)
    before = path.read_bytes(), os.stat(path).st_mtime_ns
    model = load(str(path))
    one_cmds.save(model, str(path.with_suffix(".circle")))
    assert (path.read_bytes(), os.stat(path).st_mtime_ns) == before
