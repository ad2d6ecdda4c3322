"""The ``one-import-onnx`` driver and step (onnx-import.md §2, §3): options handed to the
importer, exit codes, the step in a chain with profiling data, ``one_cmds.load`` of ONNX, and
the committed fixtures of ``tests/fixtures/generate_onnx_small.py``."""

import hashlib
import importlib.util
import os
import shutil

import onnx
import pytest

import one_cmds
import one_cmds.frontends.onnx as onnx_format
from one_cmds.cli import drivers, onecc
from one_cmds.config.shapes import ShapeStringError, parse_named_shapes
from one_cmds.frontends.onnx import OnnxOptions
from one_cmds.frontends.onnx.errors import OnnxFileError
from support.onnx_check import check

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures")
CNN = os.path.join(FIXTURES, "onnx_cnn.onnx")
NODE_NAMES = {"conv1", "relu1", "scale", "mul", "conv2", "add", "sigmoid"}


def generator():
    path = os.path.join(FIXTURES, "generate_onnx_small.py")
    spec = importlib.util.spec_from_file_location("generate_onnx_small", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_committed_fixtures_are_what_the_generator_writes():
    for name, data in generator().files().items():
        with open(os.path.join(FIXTURES, name), "rb") as f:
            assert f.read() == data, f"{name}: run tests/fixtures/generate_onnx_small.py"


def test_cnn_fixture_matches_onnxruntime(tmp_path):
    imported = check(generator().cnn(), tmp_path)
    assert set(imported.source_table.values()) == NODE_NAMES


@pytest.fixture
def received(monkeypatch, tmp_path):
    """The OnnxOptions and callbacks the step hands to ``import_onnx`` (which runs as usual)."""
    monkeypatch.chdir(tmp_path)
    calls = []
    real = onnx_format.import_onnx

    def spy(path, options=None, *, warn=None, note=None):
        calls.append((path, options, warn, note))
        return real(path, options, warn=warn, note=note)

    monkeypatch.setattr(onnx_format, "import_onnx", spy)
    return calls


def test_every_import_option_reaches_the_importer(received):
    flags = [f"--{name}" for name, f in OnnxOptions.model_fields.items() if f.annotation is bool]
    argv = ["-i", CNN, "-o", "m.circle", *flags, "--input_shapes", "x[2,3,16,16]"]
    argv += ["--output_shapes", "[2,8,16,16]"]
    assert drivers.one_import_onnx(argv) == 0
    [(path, options, warn, note)] = received
    assert path == CNN
    for name in OnnxOptions.model_fields:
        expected = {
            "input_shapes": (("x", (2, 3, 16, 16)),),
            "output_shapes": ((None, (2, 8, 16, 16)),),
        }
        assert getattr(options, name) == expected.get(name, True), name
    assert warn is not None and note is not None
    shape = one_cmds.load("m.circle").main.inputs[0].shape  # NHWC once the layout pass is in
    assert shape[0] == 2 and sorted(shape[1:]) == [3, 16, 16]


def test_defaults_and_the_verbose_listing(received, capsys):
    assert drivers.one_import_onnx(["-i", CNN, "-o", "m.circle"]) == 0
    options = received[0][1]
    assert all(getattr(options, name) == f.default for name, f in OnnxOptions.model_fields.items())
    assert "(Relu) ->" not in capsys.readouterr().out
    assert drivers.one_import_onnx(["-i", CNN, "-o", "m.circle", "-V"]) == 0
    out = capsys.readouterr().out
    assert "relu1 (Relu) -> " in out and "scale (Mul) -> (folded)" in out
    with open("m.circle.log") as log:
        assert "sigmoid (Sigmoid) -> " in log.read()


def test_exit_codes_and_messages(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert drivers.one_import_onnx(["-o", "m.circle"]) == 2
    assert "required: -i/--input_path\n" in capsys.readouterr().err
    assert drivers.one_import_onnx(["-i", "nope.onnx", "-o", "m.circle"]) == 255
    err = capsys.readouterr().err
    assert err == "one-import-onnx: Failed to open file: nope.onnx (No such file or directory)\n"
    unsupported = os.path.join(FIXTURES, "onnx_unsupported_ops.onnx")
    assert drivers.one_import_onnx(["-i", unsupported, "-o", "u.circle", "-V"]) == 255
    assert capsys.readouterr().err.startswith("one-import-onnx: Unsupported ONNX operators (3): ")
    assert not os.path.exists("m.circle") and not os.path.exists("u.circle")
    assert onecc.main(["import", "onnx", "-i", CNN, "-o", "m.circle", "--force_ext"]) == 0
    assert (
        "WARNING: 'force_ext' is set but one-import-onnx-ext is not installed"
        in capsys.readouterr().err
    )


def test_chain_hands_the_model_on_and_maps_every_operator_to_onnx_nodes(tmp_path):
    config = tmp_path / "build.cfg"
    config.write_text(
        "[onecc]\none-import-onnx=True\none-resize=True\none-optimize=True\n"
        "[profile]\nprofile_info=True\n"
        f"[one-import-onnx]\ninput_path={CNN}\noutput_path={tmp_path}/a.circle\n"
        f"[one-resize]\ninput_path={tmp_path}/a.circle\noutput_path={tmp_path}/b.circle\n"
        "input_shapes=[2,3,16,16]\n"
        f"[one-optimize]\ninput_path={tmp_path}/b.circle\noutput_path={tmp_path}/c.circle\n"
        "O1=True\n"
    )
    results = one_cmds.build(str(config))
    assert [r.driver for r in results] == ["one-import-onnx", "one-resize", "one-optimize"]
    assert [r.in_memory for r in results] == [False, True, True]
    with open(CNN, "rb") as f:
        md5 = hashlib.md5(f.read()).hexdigest()
    for result in results:
        model = one_cmds.load(result.output_path)
        assert model.source_md5 == md5
        for op in model.main.operators:
            assert op.origin, op.opcode
            assert {model.source_table[k] for k in op.origin} <= NODE_NAMES


def test_load_detects_onnx(tmp_path, fixture_path):
    model = one_cmds.load(CNN)
    assert set(model.source_table.values()) == NODE_NAMES
    assert [t.name for t in model.main.inputs] == ["x"]
    disguised = tmp_path / "add2.onnx"  # the identifier wins over the extension
    shutil.copy(fixture_path("add2.tflite"), disguised)
    assert [op.opcode for op in one_cmds.load(str(disguised)).main.operators] == ["ADD"]
    with pytest.raises(OnnxFileError, match=r"^Failed to open file: .*nope\.onnx"):
        one_cmds.load(str(tmp_path / "nope.onnx"))
    with pytest.raises(one_cmds.OneCmdsError, match=r"not a TFLite or circle model"):
        one_cmds.load(os.path.join(FIXTURES, "README.md"))


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("[1,3,16,16]", [(None, (1, 3, 16, 16))]),
        ("[1,-1],[]", [(None, (1, None)), (None, ())]),
        ("x[1,2], y.0:1[-1]", [("x", (1, 2)), ("y.0:1", (None,))]),
    ],
)
def test_import_shape_strings(text, parsed):
    assert parse_named_shapes(text) == parsed


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("abc", "No shapes found in the input string: abc"),
        ("x[1],[2]", "Invalid shape format: x[1],[2]"),
        ("[1],x[2]", "Invalid shape format: [1],x[2]"),
        ("x[1]y[2]", "Invalid shape format: x[1]y[2]"),
        ("x[1],", "Invalid shape format: x[1],"),
        ("x[1,a]", "Error during shape processing: 1,a"),
    ],
)
def test_bad_import_shape_strings(text, message):
    with pytest.raises(ShapeStringError) as e:
        parse_named_shapes(text)
    assert e.value.message == message


def test_declared_output_shape_contradiction_warns(received, capsys):
    path = os.path.join(FIXTURES, "onnx_wrong_output_shape.onnx")
    assert drivers.one_import_onnx(["-i", path, "-o", "m.circle"]) == 0
    err = capsys.readouterr().err
    assert (
        "WARNING: graph output 'y' declared [1,5], computed [1,3,4,4]; the computed shape is used\n"
        in err
    )
    assert one_cmds.load("m.circle").main.outputs[0].shape == (1, 3, 4, 4)


def test_fixture_model_is_valid_onnx():
    onnx.checker.check_model(onnx.load(CNN), full_check=True)
