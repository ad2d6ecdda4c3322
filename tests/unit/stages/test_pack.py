"""The one-pack step: nnpackage layout, MANIFEST bytes, errors (backends-and-packaging.md §4)."""

import hashlib
import os
from pathlib import Path

import pytest

import one_cmds
from one_cmds.errors import ExportError, StageError
from one_cmds.formats import metadata as md
from one_cmds.stages.pack import manifest, pack

SPEC_MANIFEST = """{
  "major-version": "1",
  "minor-version": "2",
  "patch-version": "0",
  "configs": [
    ""
  ],
  "models": [
    "inception_v3.circle"
  ],
  "model-types": [
    "circle"
  ]
}
"""


@pytest.fixture
def circle(tmp_path, fixture_path):
    """Write add2.tflite as a circle file named ``name`` in tmp_path; return its path."""

    def make(name: str) -> str:
        path = str(tmp_path / name)
        one_cmds.save(one_cmds.load(fixture_path("add2.tflite")), path)
        return path

    return make


def test_manifest_text_is_the_spec_example():
    assert manifest("inception_v3.circle", "circle") == SPEC_MANIFEST


def test_package_layout_and_manifest_bytes(tmp_path, circle):
    source = circle("inception_v3.circle")
    out = str(tmp_path / "nnpack")
    line = pack(None, source, out, profile=False)
    assert line == f"model2nnpkg: Generating nnpkg inception_v3 in {out}"
    package = tmp_path / "nnpack" / "inception_v3"
    assert sorted(os.listdir(package)) == ["inception_v3.circle", "metadata"]
    assert os.listdir(package / "metadata") == ["MANIFEST"]
    assert (package / "metadata" / "MANIFEST").read_bytes() == SPEC_MANIFEST.encode()


def test_name_is_basename_up_to_last_dot(tmp_path, circle):
    source = circle("m.opt.circle")
    line = pack(None, source, str(tmp_path / "out"), profile=False)
    assert line.startswith("model2nnpkg: Generating nnpkg m.opt in ")
    package = tmp_path / "out" / "m.opt"
    assert (package / "m.opt.circle").is_file()
    text = (package / "metadata" / "MANIFEST").read_text()
    assert '"models": [\n    "m.opt.circle"\n  ]' in text
    assert '"model-types": [\n    "circle"\n  ]' in text


def test_any_extension_is_the_model_type(tmp_path):
    source = tmp_path / "a.tvn"
    source.write_bytes(b"compiled")
    pack(None, str(source), str(tmp_path / "out"), profile=False)
    package = tmp_path / "out" / "a"
    assert (package / "a.tvn").read_bytes() == b"compiled"
    assert '"tvn"' in (package / "metadata" / "MANIFEST").read_text()


def test_byte_copy_without_model(tmp_path, circle):
    source = circle("add2.circle")
    os.utime(source, (1_000_000_000, 1_000_000_000))
    pack(None, source, str(tmp_path / "out"), profile=True)
    packed = tmp_path / "out" / "add2" / "add2.circle"
    assert packed.read_bytes() == Path(source).read_bytes()
    assert os.stat(packed).st_mtime == 1_000_000_000


def test_empty_file_is_copied(tmp_path):
    source = tmp_path / "e.bin"
    source.write_bytes(b"")
    pack(None, str(source), str(tmp_path / "out"), profile=False)
    assert (tmp_path / "out" / "e" / "e.bin").read_bytes() == b""


def metadata_names(model):
    return {entry.name for entry in model.metadata}


@pytest.mark.parametrize("profile", [True, False])
def test_in_memory_model_keeps_origins(tmp_path, fixture_path, circle, profile):
    tflite = fixture_path("add2.tflite")
    model = one_cmds.load(tflite)
    source = circle("add2.circle")  # the previous step's output file
    pack(model, source, str(tmp_path / "out"), profile=profile)
    packed = str(tmp_path / "out" / "add2" / "add2.circle")
    again = one_cmds.load(packed)
    if profile:
        tflite_md5 = hashlib.md5(Path(tflite).read_bytes()).hexdigest()
        assert again.source_md5 == model.source_md5 == tflite_md5
        assert again.source_table == model.source_table
        ops = again.main.operators
        assert [op.origin for op in ops] == [op.origin for op in model.main.operators]
    else:
        assert again.source_md5 == hashlib.md5(Path(packed).read_bytes()).hexdigest()
    tables = {md.SOURCE_TABLE, md.OP_TABLE, md.SOURCE_MD5}
    # the reader consumes the tables; a plain save keeps none in the file either
    assert not tables & metadata_names(again)
    raw = Path(packed).read_bytes()
    assert (md.OP_TABLE.encode() in raw) == profile


def test_in_memory_model_with_tflite_name_is_written_as_tflite(tmp_path, fixture_path):
    model = one_cmds.load(fixture_path("add2.tflite"))
    pack(model, fixture_path("add2.tflite"), str(tmp_path / "out"), profile=False)
    packed = tmp_path / "out" / "add2" / "add2.tflite"
    assert packed.read_bytes()[4:8] == b"TFL3"
    assert '"tflite"' in (tmp_path / "out" / "add2" / "metadata" / "MANIFEST").read_text()


def test_missing_input(tmp_path):
    with pytest.raises(StageError) as e:
        pack(None, "./inception_v2.circle", str(tmp_path / "out"), profile=False)
    assert e.value.message == "./inception_v2.circle does not exist."
    assert e.value.exit_code == 255
    assert not (tmp_path / "out").exists()


def test_directory_input_does_not_exist(tmp_path):
    folder = tmp_path / "d.circle"
    folder.mkdir()
    with pytest.raises(StageError, match=r"d\.circle does not exist\.$"):
        pack(None, str(folder), str(tmp_path / "out"), profile=False)


def test_input_without_extension(tmp_path):
    source = tmp_path / "model"
    source.write_bytes(b"x")
    with pytest.raises(StageError) as e:
        pack(None, str(source), str(tmp_path / "out"), profile=False)
    assert e.value.message == "modelfile does not have extension."
    assert not (tmp_path / "out").exists()


def test_missing_input_is_reported_before_extension(tmp_path):
    with pytest.raises(StageError, match=r"^nofile does not exist\.$"):
        pack(None, "nofile", str(tmp_path / "out"), profile=False)


@pytest.mark.parametrize("blocker", ["out", "out/add2", "out/add2/metadata"])
def test_file_in_the_way(tmp_path, circle, blocker):
    source = circle("add2.circle")
    path = tmp_path / blocker
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("a file")
    with pytest.raises(ExportError) as e:
        pack(None, source, str(tmp_path / "out"), profile=False)
    assert e.value.message == f"Failed to export: {path} (not a directory)"
    assert path.read_text() == "a file"


def test_directory_at_model_path(tmp_path, circle):
    source = circle("add2.circle")
    (tmp_path / "out" / "add2" / "add2.circle").mkdir(parents=True)
    with pytest.raises(ExportError, match=r"^Failed to export: .*add2\.circle \(is a directory\)"):
        pack(None, source, str(tmp_path / "out"), profile=False)


def test_existing_package_updated_and_other_files_kept(tmp_path, circle):
    source = circle("add2.circle")
    package = tmp_path / "out" / "add2"
    (package / "metadata").mkdir(parents=True)
    (package / "add2.circle").write_bytes(b"stale")
    (package / "metadata" / "MANIFEST").write_text("stale")
    (package / "notes.txt").write_text("keep")
    (package / "metadata" / "config.cfg").write_text("keep too")
    pack(None, source, str(tmp_path / "out"), profile=False)
    assert (package / "add2.circle").read_bytes() == Path(source).read_bytes()
    assert (package / "metadata" / "MANIFEST").read_text().startswith('{\n  "major-version"')
    assert (package / "notes.txt").read_text() == "keep"
    assert (package / "metadata" / "config.cfg").read_text() == "keep too"
    assert sorted(os.listdir(package)) == ["add2.circle", "metadata", "notes.txt"]
    assert sorted(os.listdir(package / "metadata")) == ["MANIFEST", "config.cfg"]


def test_packing_the_package_file_itself(tmp_path, circle):
    """Input already inside the package: the copy onto itself keeps the bytes."""
    (tmp_path / "out" / "add2").mkdir(parents=True)
    source = circle("out/add2/add2.circle")
    before = Path(source).read_bytes()
    pack(None, source, str(tmp_path / "out"), profile=False)
    assert Path(source).read_bytes() == before
    assert sorted(os.listdir(tmp_path / "out" / "add2")) == ["add2.circle", "metadata"]
