"""``one-import-onnx`` beyond the importer (onnx-import.md §2, §8.2; cli-and-config.md §16):
``save_intermediate`` (``<output base>.tflite``), the ``one-import-onnx-ext`` hook (when it
runs, what it receives, options only it knows) and the rank check of ``--input_shapes``."""

import os
import stat

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import one_cmds
from one_cmds.backends import onnx_ext
from one_cmds.cli import onnx_driver, programs
from one_cmds.frontends.onnx import OnnxOptions, import_onnx
from one_cmds.frontends.onnx.errors import OnnxImportError
from one_cmds.ir.shape_list import NamedShapeList
from one_cmds.stages import onnx_import

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures")
CNN = os.path.join(FIXTURES, "onnx_cnn.onnx")


def test_save_intermediate_tflite_matches_onnxruntime(tmp_path):
    ort = pytest.importorskip("onnxruntime")
    litert = pytest.importorskip("ai_edge_litert.interpreter")
    out = tmp_path / "m.circle"
    assert onnx_driver.one_import_onnx(["-i", CNN, "-o", str(out), "--save_intermediate"]) == 0
    tflite = tmp_path / "m.tflite"
    assert tflite.read_bytes()[4:8] == b"TFL3"
    interpreter = litert.Interpreter(model_path=str(tflite))
    interpreter.allocate_tensors()
    (given,), (wanted,) = interpreter.get_input_details(), interpreter.get_output_details()
    x = np.random.default_rng(0).random(given["shape"]).astype(np.float32)
    interpreter.set_tensor(given["index"], x)
    interpreter.invoke()
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(CNN, options, providers=["CPUExecutionProvider"])
    (expected,) = session.run(None, {"x": x})
    np.testing.assert_allclose(interpreter.get_tensor(wanted["index"]), expected, atol=1e-5)


def test_no_intermediate_without_the_key(tmp_path):
    assert onnx_driver.one_import_onnx(["-i", CNN, "-o", str(tmp_path / "m.circle")]) == 0
    assert sorted(os.listdir(tmp_path)) == ["m.circle", "m.circle.log"]


def test_intermediate_with_a_circle_only_operator_warns(tmp_path, monkeypatch):
    model = import_onnx(CNN)
    model.main.operators[1].opcode = "INSTANCE_NORM"
    warnings = []
    monkeypatch.setattr(onnx_import, "warn", warnings.append)
    onnx_import._save_intermediate(model, str(tmp_path / "m.circle"))
    assert warnings == [
        f"'save_intermediate': {tmp_path / 'm.tflite'} is not written (operator INSTANCE_NORM "
        "exists only in circle: graph 0, operator 1)"
    ]
    assert not os.listdir(tmp_path)


@pytest.fixture
def extension(tmp_path, monkeypatch):
    """A stand-in extension in a program folder: records its argv, copies a TFLite model to
    its output."""
    folder = tmp_path / "bin"
    folder.mkdir()
    path = folder / "one-import-onnx-ext"
    record = tmp_path / "argv.txt"
    model = os.path.abspath(os.path.join(FIXTURES, "add2.tflite"))
    path.write_text(f'#!/bin/sh\necho "$@" > {record}\nfor a; do o="$a"; done\ncp {model} "$o"\n')
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setattr(onnx_ext, "program_folder", lambda: str(folder))
    monkeypatch.delenv("ONE_IMPORT_ONNX_EXT_DISABLE", raising=False)
    monkeypatch.delenv("ONE_IMPORT_ONNX_EXT_FORCE", raising=False)
    return record


def test_find_extension(extension, monkeypatch):
    path = onnx_ext.installed_path()
    assert onnx_ext.find_extension(False) == path
    assert onnx_ext.find_extension(True) is None
    monkeypatch.setenv("ONE_IMPORT_ONNX_EXT_DISABLE", "Y")
    assert onnx_ext.find_extension(False) is None
    monkeypatch.delenv("ONE_IMPORT_ONNX_EXT_DISABLE")
    os.chmod(path, 0o644)
    assert onnx_ext.find_extension(False) is None


def test_own_options_go_to_the_extension(extension, tmp_path):
    out = tmp_path / "m.circle"
    argv = ["-i", CNN, "-o", str(out), "--own_option", "--unroll_rnn", "--save_intermediate"]
    assert onnx_driver.one_import_onnx(argv) == 0
    received = extension.read_text().split()
    assert received[:4] == ["--unroll_rnn", "--save_intermediate", "--own_option", CNN]
    assert os.path.dirname(received[4]) == str(tmp_path)
    assert sorted(os.listdir(tmp_path)) == ["argv.txt", "bin", "m.circle", "m.circle.log"]
    assert [op.opcode for op in one_cmds.load(str(out)).main.operators] == ["ADD"]


def test_the_extension_is_not_run_when_the_import_succeeds(extension, tmp_path):
    assert onnx_driver.one_import_onnx(["-i", CNN, "-o", str(tmp_path / "m.circle")]) == 0
    assert not extension.exists()


def test_force_ext_env_runs_the_extension(extension, tmp_path, monkeypatch):
    monkeypatch.setenv("ONE_IMPORT_ONNX_EXT_FORCE", "1")
    assert onnx_driver.one_import_onnx(["-i", CNN, "-o", str(tmp_path / "m.circle")]) == 0
    assert extension.exists()


def test_force_and_disable_in_a_section_exclude_each_other(tmp_path, capsys):
    cfg = tmp_path / "a.cfg"
    cfg.write_text(f"[one-import-onnx]\ninput_path={CNN}\noutput_path=m.circle\n"
                   "force_ext=True\ndisable_ext=True\n")  # fmt: skip
    assert onnx_driver.one_import_onnx(["-C", str(cfg)]) == 255
    assert "'force_ext' is not allowed with 'disable_ext'" in capsys.readouterr().err


def test_unknown_option_without_extension_is_an_argument_error(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(onnx_ext, "program_folder", lambda: str(tmp_path))
    argv = ["-i", CNN, "-o", str(tmp_path / "m.circle"), "--own_option"]
    assert onnx_driver.one_import_onnx(argv) == 2
    assert "one-import-onnx: error: unrecognized arguments: --own_option" in capsys.readouterr().err


def test_input_shape_rank_must_match_a_declared_scalar(tmp_path):
    node = helper.make_node("Abs", ["s"], ["y"])
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("s", TensorProto.FLOAT, [])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [])],
    )
    path = tmp_path / "scalar.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    options = OnnxOptions(input_shapes=NamedShapeList([(None, (1,))], "[1]"))
    with pytest.raises(OnnxImportError, match="origin tensor=s from the model"):
        import_onnx(str(path), options)


def test_launcher_suffix_is_not_part_of_the_program_name():
    assert programs.main_for("/x/bin/one-import-onnx.py") is programs.PROGRAMS["one-import-onnx"]
