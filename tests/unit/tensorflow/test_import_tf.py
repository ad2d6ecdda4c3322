"""``one-import-tf`` in process (tf-and-pytorch-import.md §2-§3): origins and md5 (§2.4),
``save_intermediate`` and determinism (§2.5), the checks and messages of §3.2 that the UI
cases do not run, the extras messages (§2.2), TensorFlow's errors and output (§2.3), and
``one_cmds.load`` of TensorFlow models."""

from __future__ import annotations

import hashlib
import importlib.util
import shutil

import numpy as np
import pytest

import one_cmds
from one_cmds.cli import drivers
from one_cmds.errors import ConfigError, OneCmdsError
from one_cmds.frontends.tensorflow import TfOptions, import_tf, model_format_of
from one_cmds.report.chatter import one_line
from support.tf_reference import structure, tf

INCEPTION = "inception_v3.pb"
OUTPUT = "InceptionV3/Predictions/Reshape_1"
INCEPTION_ARGS = ["-I", "input", "-s", "1,299,299,3", "-O", OUTPUT]


def md5(path) -> str:
    return hashlib.md5(path.read_bytes()).hexdigest()


def _fails(capsys, args: list[str], driver=drivers.one_import_tf) -> str:
    """The one line a failing run prints (exit 255), and nothing else."""
    assert driver(args) == 255
    (line,) = capsys.readouterr().err.strip().splitlines()
    return line


def test_origins_name_tensorflow_nodes(tf_files):
    """A fused operator gets a source per TensorFlow node in its output's name."""
    model = one_cmds.load(
        str(tf_files / INCEPTION), input_arrays="input", output_arrays=OUTPUT,
        input_shapes="1,299,299,3",
    )  # fmt: skip
    named = [sorted(model.source_table[i] for i in op.origin) for op in model.main.operators]
    assert named == [
        ["InceptionV3/Conv2d_1a_3x3/Conv2D", "InceptionV3/Conv2d_1a_3x3/Relu"],
        ["InceptionV3/Logits/AvgPool"],
        ["InceptionV3/Logits/BiasAdd", "InceptionV3/Logits/MatMul"],
        [OUTPUT],
    ]
    assert model.source_md5 == md5(tf_files / INCEPTION)


def test_saved_model_md5_is_its_graph(tf_files):
    model = one_cmds.load(str(tf_files / "test_saved_model"), converter_version="v2")
    assert model.source_md5 == md5(tf_files / "test_saved_model" / "saved_model.pb")
    last = model.main.operators[-1]
    assert [model.source_table[i] for i in last.origin] == ["StatefulPartitionedCall"]


def test_keras_md5_is_the_file(tf_files):
    model = one_cmds.load(str(tf_files / "test_keras_model.keras"))
    assert model.source_md5 == md5(tf_files / "test_keras_model.keras")


def test_model_format_of_paths(tf_files, tmp_path):
    assert model_format_of(str(tf_files / "test_saved_model")) == "saved_model"
    assert model_format_of(str(tf_files / "test_keras_model.h5")) == "keras_model"
    assert model_format_of(str(tf_files / "while_3.pbtxt")) == "graph_def"
    assert model_format_of(str(tmp_path)) is None
    assert model_format_of(str(tf_files / "inception_v3.tflite")) is None


def test_outputs_are_deterministic(tf_files, tmp_path):
    out = tmp_path / "m.circle"
    args = ["-i", str(tf_files / INCEPTION), "-o", str(out), *INCEPTION_ARGS]
    assert drivers.one_import_tf(args) == 0
    first = out.read_bytes()
    assert drivers.one_import_tf(args) == 0
    assert out.read_bytes() == first
    assert not (tmp_path / "m.tflite").exists()


def test_tflite_output(tf_files, tmp_path):
    out = tmp_path / "m.tflite"
    assert drivers.one_import_tf(["-i", str(tf_files / INCEPTION), "-o", str(out),
                                  *INCEPTION_ARGS, "--v2"]) == 0  # fmt: skip
    assert out.read_bytes()[4:8] == b"TFL3"


def test_text_graph_def_equals_binary(tf_files, tmp_path):
    from google.protobuf import text_format

    graph_def = tf.compat.v1.GraphDef()
    graph_def.ParseFromString((tf_files / "two_io.pb").read_bytes())
    (tmp_path / "two_io.pbtxt").write_text(text_format.MessageToString(graph_def))
    options = TfOptions(input_arrays=["a", "b"], output_arrays=["sum", "prod"])
    text = import_tf(str(tmp_path / "two_io.pbtxt"), options)
    binary = import_tf(str(tf_files / "two_io.pb"), options)
    assert structure(text.tflite) == structure(binary.tflite)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-s", "1,299,299"],
         "ValueError: The shape of tensor 'input' cannot be changed from (None, 299, 299, 3) to "
         "[1, 299, 299]. "),
        (["-s", "1,299,299,3", "--v2", "-I", "input:1"], "ValueError: Invalid tensors 'input:1'"),
        (["--input_shapes", "2,299,299,3", "--output_arrays", "a,b"],
         "ValueError: Invalid tensors 'a,b' were found."),
    ],
    ids=["rank-v1", "port", "outputs-listed"],
)  # fmt: skip
def test_tensorflow_checks(tf_files, tmp_path, capsys, args, message):
    base = ["-i", str(tf_files / INCEPTION), "-o", str(tmp_path / "m.circle"), "-I", "input",
            "-O", OUTPUT]  # fmt: skip
    assert _fails(capsys, [*base, *args]).startswith(f"one-import-tf: {message}")
    assert not (tmp_path / "m.circle").exists()


def test_empty_file_is_not_a_graph_def(tmp_path, capsys):
    (tmp_path / "empty.pb").write_bytes(b"")
    args = [
        "-i",
        str(tmp_path / "empty.pb"),
        "-o",
        str(tmp_path / "m.circle"),
        "-I",
        "x",
        "-O",
        "y",
    ]
    assert _fails(capsys, args) == (
        f"one-import-tf: Unable to parse input file: {tmp_path / 'empty.pb'} (not a TensorFlow GraphDef: "
        "no nodes)"
    )


def test_saved_model_must_be_a_folder(tf_files, tmp_path, capsys):
    path = tf_files / INCEPTION
    args = ["-i", str(path), "-o", str(tmp_path / "m.circle"), "--saved_model"]
    assert _fails(capsys, args) == f"one-import-tf: Failed to open file: {path} (not a directory)"


def test_not_a_keras_model(tf_files, tmp_path, capsys):
    path = tf_files / "inception_v3_test_data.h5"
    args = ["-i", str(path), "-o", str(tmp_path / "m.circle"), "--keras_model"]
    assert _fails(capsys, args).startswith(
        f"one-import-tf: Invalid input file: {path} (not a Keras model: "
    )


def _custom_op_graph(path) -> None:
    """``input`` → ReLU → an op TensorFlow does not know."""
    graph = tf.Graph()
    with graph.as_default():
        tf.nn.relu(tf.compat.v1.placeholder(tf.float32, [1, 4], name="input"), name="relu")
    graph_def = graph.as_graph_def()
    node = graph_def.node.add()
    node.name, node.op = "custom", "MyCustomOp"
    node.input.append("relu")
    path.write_bytes(graph_def.SerializeToString())


def test_unknown_ops_take_from_frozen_graphs_form(tmp_path, capsys):
    """Ops unknown to TensorFlow: 1.x needs the shapes, then converts as ``from_frozen_graph``
    does (TensorFlow 2.21's converter refuses unregistered ops itself)."""
    path = tmp_path / "custom.pb"
    _custom_op_graph(path)
    args = ["-i", str(path), "-o", str(tmp_path / "m.circle"), "-I", "input", "-O", "custom"]
    assert _fails(capsys, args) == (
        "one-import-tf: ValueError: input_shapes must be defined for this model."
    )
    converter = tf.compat.v1.lite.TFLiteConverter.from_frozen_graph(
        str(path), ["input"], ["custom"], {"input": [1, 4]}
    )
    converter.allow_custom_ops = True
    try:
        converter.convert()
    except Exception as e:
        expected = f"one-import-tf: {one_line(e)}"
    else:
        pytest.fail("TensorFlow converted an op it does not know: update this test")
    assert _fails(capsys, [*args, "-s", "1,4"]) == expected


def test_tensorflow_errors_are_one_line_full_with_verbose(tf_files, tmp_path, capsys):
    args = ["-i", str(tf_files / "while_3.pbtxt"), "-o", str(tmp_path / "w.circle"),
            "-I", "Hole,Hole_2", "-s", "1,1:1,1", "-O", "Output"]  # fmt: skip
    line = _fails(capsys, args)
    assert line.startswith("one-import-tf: ConverterError: ")
    assert drivers.one_import_tf([*args, "-V"]) == 255
    out = capsys.readouterr().out
    assert "Traceback (most recent call last)" in out and "ConverterError" in out
    log = (tmp_path / "w.circle.log").read_text()
    assert "Traceback (most recent call last)" in log


@pytest.mark.parametrize("driver", [drivers.one_import_tf, drivers.one_import_bcq])
def test_missing_tensorflow(tf_files, tmp_path, capsys, monkeypatch, driver):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "tensorflow" else real(name, *a))  # fmt: skip
    args = ["-i", str(tf_files / "bcq.pb"), "-o", str(tmp_path / "m.circle"),
            "-I", "Placeholder", "-O", "MatMul"]  # fmt: skip
    name = "one-import-tf" if driver is drivers.one_import_tf else "one-import-bcq"
    assert _fails(capsys, args, driver) == (
        f"{name}: TensorFlow is not installed: pip install 'one-cmds[tf]'"
    )
    assert list(tmp_path.iterdir()) == []


def test_too_old_tensorflow(tf_files, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(tf, "__version__", "2.12.0")
    args = ["-i", str(tf_files / INCEPTION), "-o", str(tmp_path / "m.circle"), *INCEPTION_ARGS]
    assert _fails(capsys, args) == (
        "one-import-tf: TensorFlow 2.12.0 is too old (2.16 or newer is needed): "
        "pip install -U 'one-cmds[tf]'"
    )


def test_flags_beat_keys(tf_files, tmp_path):
    config = tmp_path / "a.cfg"
    config.write_text(
        f"[one-import-tf]\ninput_path={tf_files / INCEPTION}\noutput_path={tmp_path / 'm.circle'}"
        f"\ninput_arrays=input\ninput_shapes=1,299,299,3\noutput_arrays={OUTPUT}\nv1=True\n"
    )
    assert drivers.one_import_tf(["-C", str(config), "--v2"]) == 0
    assert "--converter_version v2" in (tmp_path / "m.circle.log").read_text()


def test_dynamic_batch_resized_equals_its_static_conversion(tf_files):
    """A dynamic batch kept by the 2.x converter, then fixed by resize: the same results as
    TensorFlow converting the graph for that batch."""
    dynamic = one_cmds.load(str(tf_files / "dynamic_batch.pb"), converter_version="v2",
                            input_arrays="input", output_arrays="output")  # fmt: skip
    assert dynamic.main.inputs[0].shape == (None, 8, 8, 3)
    resized = one_cmds.resize(dynamic, "[3,8,8,3]")
    static = one_cmds.load(str(tf_files / "dynamic_batch.pb"), converter_version="v2",
                           input_arrays="input", output_arrays="output", input_shapes="3,8,8,3")  # fmt: skip
    x = np.random.default_rng(0).standard_normal((3, 8, 8, 3)).astype(np.float32)
    (got,) = one_cmds.Interpreter(resized).run([x])
    (want,) = one_cmds.Interpreter(static).run([x])
    np.testing.assert_array_equal(got, want)


def test_load_options_are_for_tensorflow(tf_files, fixture_path):
    with pytest.raises(ConfigError, match="apply to TensorFlow models"):
        one_cmds.load(fixture_path("add2.tflite"), input_arrays="x")
    with pytest.raises(OneCmdsError, match="--input_arrays must be provided"):
        one_cmds.load(str(tf_files / INCEPTION))


def test_corrupt_saved_model_variables_name_the_folder(tf_files, tmp_path, capsys):
    """TensorFlow's restore error said ``OutOfRangeError: Graph execution error: | Read less
    bytes than requested | [[{{node RestoreV2}}]]`` without the folder (issue 33)."""
    folder = tmp_path / "sm"
    shutil.copytree(tf_files / "test_saved_model", folder)
    data = folder / "variables" / "variables.data-00000-of-00001"
    data.write_bytes(data.read_bytes()[:100])
    args = ["--saved_model", "-i", str(folder), "-o", str(tmp_path / "m.circle")]
    assert _fails(capsys, [*args, "--v1"]) == (
        f"one-import-tf: Failed to load the model ({folder}): OutOfRangeError: Read less bytes "
        "than requested"
    )
    assert not (tmp_path / "m.circle").exists()
