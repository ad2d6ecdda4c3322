"""``one-import-pytorch`` (tf-and-pytorch-import.md §5): every input kind of §5.2 imported and
judged against torch's own run of the model in LiteRT (§6.3), shapes and types (§5.3), the
messages of §2.2, §2.3 and §5.5, md5 and origins (§2.4), ``save_intermediate`` (§2.5)."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys

import numpy as np
import pytest

torch = pytest.importorskip(
    "torch", reason="PyTorch is not installed: pip install 'one-cmds[pytorch]'"
)

import one_cmds  # noqa: E402
from one_cmds.cli import drivers, onecc  # noqa: E402
from support.litert import run_model  # noqa: E402
from support.torch_fixtures import GENERATOR, torch_fixtures  # noqa: E402

AUX = str(GENERATOR)
SHAPE = "1,2,3,3"


@pytest.fixture(scope="module")
def files():
    return torch_fixtures()


@pytest.fixture(scope="module")
def generator():
    spec = importlib.util.spec_from_file_location("aux_reference", AUX)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def tiny_net(generator):
    """The generator's seeded TinyNet, the model every fixture file but decoder.pt2 holds."""
    return generator.tiny_net()


@pytest.fixture(scope="module")
def decoder(files):
    """decoder.pt2 imported with its batch and sequence dynamic."""
    return one_cmds.load(str(files / "decoder.pt2"))


def _import(tmp_path, *args: str) -> one_cmds.Model:
    out = str(tmp_path / "out.circle")
    assert drivers.one_import_pytorch([*args, "-o", out]) == 0
    return one_cmds.load(out)


def _torch_equal(model: one_cmds.Model, net, batch: int) -> None:
    x = np.random.default_rng(0).standard_normal((batch, 2, 3, 3)).astype(np.float32)
    with torch.no_grad():
        expected = net(torch.from_numpy(x)).numpy()
    (got,) = run_model(model, [x])
    np.testing.assert_allclose(got, expected, atol=1e-4 * max(1.0, np.abs(expected).max()))


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("test_pytorch_model.pt2", []),
        ("torchscript_model.pth", ["-s", SHAPE, "-t", "float32"]),
        ("entire_model.pth", ["--python_path", AUX, "-s", SHAPE, "-t", "float32"]),
        ("state_dict_model.pth", ["--python_path", AUX, "-s", SHAPE, "-t", "float32"]),
        ("mar_torchscript_model.mar", ["-s", SHAPE, "-t", "float32"]),
        ("mar_state_dict_model.mar", ["-s", SHAPE, "-t", "float32"]),
    ],
)
def test_every_kind_equals_torch(files, tiny_net, tmp_path, name, args):
    model = _import(tmp_path, "-i", str(files / name), *args)
    if name.endswith(".pt2"):
        assert model.main.inputs[0].shape == (None, 2, 3, 3)
        model = one_cmds.resize(model, "[3,2,3,3]")
    _torch_equal(model, tiny_net, model.main.inputs[0].shape[0])


def test_named_dimensions_stay_dynamic_until_resized(files, tiny_net, tmp_path):
    args = ["-i", str(files / "torchscript_model.pth"), "-s", "batch,2,3,3", "-t", "float32"]
    model = _import(tmp_path, *args)
    assert model.main.inputs[0].shape == (None, 2, 3, 3)
    _torch_equal(one_cmds.resize(model, "[3,2,3,3]"), tiny_net, 3)


def test_origins_are_onnx_node_names(files, tmp_path):
    out = tmp_path / "m.circle"
    cfg = tmp_path / "m.cfg"
    cfg.write_text(
        "[onecc]\none-import-pytorch=True\n[profile]\nprofile_info=True\n"
        f"[one-import-pytorch]\ninput_path={files / 'test_pytorch_model.pt2'}\n"
        f"output_path={out}\n"
    )
    assert onecc.main(["-C", str(cfg)]) == 0
    model = one_cmds.load(str(out))
    named = set(model.source_table.values())
    assert {"node_conv2d", "node_linear"} <= named
    sources = {model.source_table[k] for op in model.main.operators for k in op.origin}
    assert sources <= named and "node_relu" in sources
    md5 = hashlib.md5((files / "test_pytorch_model.pt2").read_bytes()).hexdigest()
    assert model.source_md5 == md5


def test_the_md5_of_an_archive_is_the_archive_s(files):
    from one_cmds.frontends.pytorch import import_pytorch

    path = files / "mar_state_dict_model.mar"
    imported = import_pytorch(str(path), input_shapes=[(1, 2, 3, 3)], input_types=["float32"])
    assert imported.model.source_md5 == hashlib.md5(path.read_bytes()).hexdigest()


def test_save_intermediate_writes_the_exported_onnx(files, tmp_path):
    import onnx
    import onnxruntime

    args = ["-i", str(files / "entire_model.pth"), "-p", AUX, "-s", SHAPE, "-t", "float32"]
    _import(tmp_path, *args, "--save_intermediate")
    assert sorted(os.listdir(tmp_path)) == ["out.circle", "out.circle.log", "out.onnx"]
    onnx.checker.check_model(str(tmp_path / "out.onnx"))
    session = onnxruntime.InferenceSession(str(tmp_path / "out.onnx"))
    assert [i.name for i in session.get_inputs()] == ["x"]


def test_without_save_intermediate_only_the_output_and_log(files, tmp_path):
    _import(tmp_path, "-i", str(files / "test_pytorch_model.pt2"))
    assert sorted(os.listdir(tmp_path)) == ["out.circle", "out.circle.log"]


def test_shapes_and_types_of_a_pt2_are_ignored_with_a_warning(files, tmp_path, capsys):
    _import(tmp_path, "-i", str(files / "test_pytorch_model.pt2"), "-s", "7", "-t", "int8")
    err = capsys.readouterr().err
    assert "WARNING: 'input_shapes' has no effect for an ExportedProgram and is ignored" in err
    assert "WARNING: 'input_types' has no effect for an ExportedProgram" in err


def test_model_format_has_no_effect(files, tmp_path, capsys):
    args = ["-i", str(files / "test_pytorch_model.pt2"), "--model_format", "saved_model"]
    _import(tmp_path, *args)
    assert "'model_format' has no effect" in capsys.readouterr().err


def test_torchscript_falls_back_to_the_torchscript_exporter(
    files, tiny_net, tmp_path, monkeypatch, capfd
):
    """The warning reaches the console (file descriptor 2, as in a terminal), not only the
    step log, though torch's output is caught while it is made."""
    monkeypatch.setattr(sys, "stderr", open(2, "w", buffering=1, closefd=False))  # noqa: SIM115
    import torch._export.converter as converter

    def refuse(*args, **kwargs):  # torch.export's form: the reason, then where
        raise RuntimeError(
            "unsupported node prim::Foo\n\nWhile executing %foo\nOriginal traceback:"
        )

    monkeypatch.setattr(converter, "TS2EPConverter", refuse)
    model = _import(
        tmp_path, "-i", str(files / "torchscript_model.pth"), "-s", SHAPE, "-t", "float32"
    )
    _torch_equal(model, tiny_net, 1)
    assert (
        "WARNING: TorchScript conversion to ExportedProgram failed (RuntimeError: unsupported "
        "node prim::Foo); using the TorchScript ONNX exporter"
    ) in capfd.readouterr().err


def _fails(capsys, args, code=255):
    assert drivers.one_import_pytorch(args) == code
    return capsys.readouterr().err.strip().splitlines()[-1]


def test_missing_shapes_or_types_without_a_pt2(files, tmp_path, capsys):
    args = ["-i", str(files / "torchscript_model.pth"), "-o", str(tmp_path / "o.circle")]
    assert _fails(capsys, args, 2) == (
        "one-import-pytorch: error: the following arguments are required: "
        "-s/--input_shapes -t/--input_types"
    )
    assert _fails(capsys, [*args, "-s", SHAPE], 2).endswith("required: -t/--input_types")


@pytest.mark.parametrize(
    ("shapes", "types", "message"),
    [
        (
            "1,x-y",
            "float32",
            "Invalid input_shapes: '1,x-y' (dimension 'x-y' of input 0 is not an integer >= 0, -1 or a name)",
        ),
        (
            "1,2:3,-2",
            "float32",
            "Invalid input_shapes: '1,2:3,-2' (dimension '-2' of input 1 is not an integer >= 0, -1 or a name)",
        ),
        (SHAPE, "float8", "Unsupported input type: float8"),
        (
            SHAPE + ":4",
            "float32",
            "ValueError: number of input shapes and input types must be equal",
        ),
    ],
)
def test_bad_shapes_and_types(files, tmp_path, capsys, shapes, types, message):
    args = ["-i", str(files / "torchscript_model.pth"), "-o", str(tmp_path / "o.circle")]
    assert _fails(capsys, [*args, "-s", shapes, "-t", types]) == f"one-import-pytorch: {message}"
    assert not os.listdir(tmp_path)


def test_file_errors(files, tmp_path, capsys):
    out = ["-o", str(tmp_path / "o.circle"), "-s", SHAPE, "-t", "float32"]
    missing = str(tmp_path / "absent.pt")
    assert _fails(capsys, ["-i", missing, *out]) == (
        f"one-import-pytorch: Failed to open file: {missing} (No such file or directory)"
    )
    text = tmp_path / "model.pt"
    text.write_text("not a model")
    assert _fails(capsys, ["-i", str(text), *out]) == (
        f"one-import-pytorch: Invalid input file: {text} (not a PyTorch model)"
    )
    assert _fails(capsys, ["-i", str(files / "entire_model.pth"), *out]) == (
        f"one-import-pytorch: Cannot load {files / 'entire_model.pth'}: class "
        "'__main__.TinyNet' not found (give python_path, the file that defines it)"
    )
    assert _fails(capsys, ["-i", str(files / "state_dict_model.pth"), *out]) == (
        f"one-import-pytorch: {files / 'state_dict_model.pth'} holds only a state dict: give "
        "python_path, the file that defines the model class"
    )
    assert not (tmp_path / "o.circle").exists()


def test_python_file_errors(files, tmp_path, capsys):
    out = ["-o", str(tmp_path / "o.circle"), "-s", SHAPE, "-t", "float32"]
    state = str(files / "state_dict_model.pth")
    broken = tmp_path / "broken.py"
    broken.write_text("x = 1 / 0\n")
    assert _fails(capsys, ["-i", state, "-p", str(broken), *out]) == (
        f"one-import-pytorch: ValueError: Failed to execute given python model file {broken} "
        "(ZeroDivisionError: division by zero)"
    )
    two = tmp_path / "two.py"
    two.write_text("import torch\nclass A(torch.nn.Module): pass\nclass B(torch.nn.Module): pass\n")
    assert _fails(capsys, ["-i", state, "-p", str(two), *out]) == (
        f"one-import-pytorch: ValueError: Expected only one class as model definition. ['A', 'B'] "
        f"({two})"
    )
    missing = str(tmp_path / "absent.py")
    assert _fails(capsys, ["-i", state, "-p", missing, *out]) == (
        f"one-import-pytorch: Failed to open file: {missing} (No such file or directory)"
    )
    exits = tmp_path / "exits.py"
    exits.write_text("import sys\nsys.exit(3)\n")  # user code never ends the tool
    assert _fails(capsys, ["-i", state, "-p", str(exits), *out]) == (
        f"one-import-pytorch: ValueError: Failed to execute given python model file {exits} "
        "(SystemExit: 3)"
    )


def test_input_count_is_checked_against_forward(files, tmp_path, capsys):
    """Two shapes for a one-input model: the model's inputs named before torch runs (it said
    ``ValueError: zip() argument 2 is longer than argument 1``)."""
    two = ["-s", f"{SHAPE}:{SHAPE}", "-t", "float32,float32", "-o", str(tmp_path / "o.circle")]
    for name, extra in (("torchscript_model.pth", []), ("entire_model.pth", ["-p", AUX])):
        assert _fails(capsys, ["-i", str(files / name), *extra, *two]) == (
            "one-import-pytorch: -s/--input_shapes and -t/--input_types give 2 inputs; the "
            "model's forward takes 1 (x)"
        )


def test_a_bad_file_is_named_before_missing_options(tmp_path, capsys):
    """The documented way for a .pt2 gives no -s/-t: a missing, folder, empty or damaged file
    is reported with its path, not as missing options (issue 33)."""
    folder, empty, damaged = tmp_path / "folder", tmp_path / "empty.pt2", tmp_path / "cut.pt2"
    folder.mkdir()
    empty.write_bytes(b"")
    damaged.write_bytes(b"PK\x03\x04" + bytes(range(256)) * 4)  # a zip's magic, then garbage
    missing = tmp_path / "absent.pt2"
    expected = {
        missing: f"Failed to open file: {missing} (No such file or directory)",
        folder: f"Failed to open file: {folder} (is a directory)",
        empty: f"Invalid input file: {empty} (not a PyTorch model)",
        damaged: f"Invalid input file: {damaged} (not a PyTorch model)",
    }
    for path, message in expected.items():
        args = ["-i", str(path), "-o", str(tmp_path / "o.circle")]
        assert _fails(capsys, args) == f"one-import-pytorch: {message}"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cut.pt2", "empty.pt2", "folder"]


def test_output_path_is_checked_before_torch_runs(files, tmp_path, capsys, monkeypatch):
    from one_cmds.frontends.pytorch import loading

    monkeypatch.setattr(loading, "load_model", None)  # torch must not be reached
    out = str(tmp_path / "no" / "o.circle")
    assert _fails(capsys, ["-i", str(files / "test_pytorch_model.pt2"), "-o", out]) == (
        f"one-import-pytorch: Failed to write circle: {out} (folder {tmp_path / 'no'} does not exist)"
    )


def test_torch_errors_are_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import torch\nclass Bad(torch.nn.Module):\n"
        "    def forward(self, x):\n        return x.reshape(5, -1)\n"
    )
    torch.save(torch.nn.Module(), tmp_path / "unused.pth")
    sys.modules.pop("bad", None)
    spec = importlib.util.spec_from_file_location("bad", bad)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    torch.save(module.Bad().state_dict(), tmp_path / "bad.pth")
    args = ["-i", str(tmp_path / "bad.pth"), "-p", str(bad), "-o", str(tmp_path / "o.circle")]
    line = _fails(capsys, [*args, "-s", "2,3", "-t", "float32"])
    prefix = (
        f"one-import-pytorch: Failed to export the model ({tmp_path / 'bad.pth'}) with x: "
        "float32[2,3]: "
    )
    assert line.startswith(prefix) and "Error: " in line and len(line) < 400
    assert "\n" not in line and "Traceback" not in capsys.readouterr().err
    assert not (tmp_path / "o.circle").exists()


def test_the_reason_of_a_failed_export_or_load_comes_first(files, tmp_path, capsys):
    """The innermost cause's reason, after the file and the inputs as given (issue 33): a
    Linear(8) given -s 1,9 printed 1,691 characters of traceback with the reason at the end; a
    damaged .pt2 member printed json's message without the file."""
    model = tmp_path / "linear.py"
    model.write_text(
        "import torch\nclass Net(torch.nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self.fc = torch.nn.Linear(8, 16)\n"
        "    def forward(self, x):\n        return self.fc(x)\n"
    )
    sys.modules.pop("linear", None)
    spec = importlib.util.spec_from_file_location("linear", model)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    state = tmp_path / "linear.pth"
    torch.save(module.Net().state_dict(), state)
    out = ["-o", str(tmp_path / "o.circle")]
    line = _fails(capsys, ["-i", str(state), "-p", str(model), *out, "-s", "1,9", "-t", "float32"])
    assert line == (
        f"one-import-pytorch: Failed to export the model ({state}) with x: float32[1,9]: "
        "RuntimeError: a and b must have same reduction dim, but got [1, 9] X [8, 16]."
    )
    import zipfile

    damaged = tmp_path / "damaged.pt2"
    with (
        zipfile.ZipFile(files / "test_pytorch_model.pt2") as source,
        zipfile.ZipFile(damaged, "w") as copy,
    ):
        for info in source.infolist():
            data = source.read(info)
            copy.writestr(info, data[:-7] if info.filename.endswith("models/model.json") else data)
    line = _fails(capsys, ["-i", str(damaged), *out])
    assert line.startswith(f"one-import-pytorch: Failed to load the model ({damaged}): ")
    assert "Error" in line and len(line) < 400


@pytest.mark.parametrize(("module", "label"), [("torch", "PyTorch"), ("onnxscript", "onnxscript")])
def test_missing_extra(files, tmp_path, capsys, monkeypatch, module, label):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == module else real(name, *a)
    )
    out = str(tmp_path / "o.circle")
    assert _fails(capsys, ["-i", str(files / "test_pytorch_model.pt2"), "-o", out]) == (
        f"one-import-pytorch: {label} is not installed: pip install 'one-cmds[pytorch]'"
    )
    assert not os.listdir(tmp_path)


def test_too_old_torch(files, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(torch, "__version__", "2.5.1+cpu")
    out = str(tmp_path / "o.circle")
    assert _fails(capsys, ["-i", str(files / "test_pytorch_model.pt2"), "-o", out]) == (
        "one-import-pytorch: PyTorch 2.5.1 is too old (2.6 or newer is needed): "
        "pip install -U 'one-cmds[pytorch]'"
    )


def test_load_imports_an_exported_program(files, tiny_net):
    model = one_cmds.load(str(files / "test_pytorch_model.pt2"))
    assert (
        model.source_md5 == hashlib.md5((files / "test_pytorch_model.pt2").read_bytes()).hexdigest()
    )
    _torch_equal(one_cmds.resize(model, "[2,2,3,3]"), tiny_net, 2)


@pytest.mark.parametrize("shape", [(1, 16), (2, 32), (1, 1), (3, 7)])
def test_decoder_resized_equals_torch(decoder, generator, shape):
    """A Llama-style decoder (causal mask by Trilu over the dynamic sequence, rotary over a
    range of it): static after one-resize; LiteRT and the interpreter equal torch."""
    assert decoder.main.inputs[0].shape == (None, None)
    resized = one_cmds.resize(decoder, str(list(shape)))
    assert all(t.is_static for g in resized.graphs for t in g.referenced_tensors())
    ids = np.random.default_rng(0).integers(0, 256, shape)
    with torch.no_grad():
        want = generator.tiny_decoder()(torch.from_numpy(ids)).numpy()
    tolerance = 1e-4 * np.abs(want).max()
    (litert,) = run_model(resized, [ids])
    (ours,) = one_cmds.Interpreter(resized).run([ids])
    np.testing.assert_allclose(litert, want, rtol=0, atol=tolerance)
    np.testing.assert_allclose(ours, want, rtol=0, atol=tolerance)


@pytest.mark.parametrize(("dtype", "floor"), [("uint8", 0.9), ("int16", 0.95)])
def test_decoder_quantized_argmax_agrees(decoder, tmp_path, dtype, floor):
    """Top-1 token agreement of the quantized decoder with float on 8 records of 16 tokens,
    calibrated on 16 records (the note gives the figures)."""
    static = one_cmds.optimize(one_cmds.resize(decoder, "[1,16]"), "O1")
    rng = np.random.default_rng(0)
    np.savez(tmp_path / "ids.npz", **{"0": rng.integers(0, 256, (16, 1, 16))})
    q = one_cmds.quantize(
        static, quantized_dtype=dtype, granularity="channel", output_type="float32",
        input_data=str(tmp_path / "ids.npz"), input_data_format="npz",
    )  # fmt: skip
    float_run, integer_run = one_cmds.Interpreter(static), one_cmds.Interpreter(q)
    records = rng.integers(0, 256, (8, 1, 16))
    agreement = np.mean(
        [
            np.argmax(integer_run.run([r])[0], -1) == np.argmax(float_run.run([r])[0], -1)
            for r in records
        ]
    )
    print(f"decoder {dtype} top-1 agreement {agreement:.3f}")
    assert agreement >= floor


def test_a_damaged_archive_gets_no_python_path_hint(files, tmp_path, capsys):
    """A TorchScript archive without constants.pkl loads as a pickle naming TorchScript's own
    classes: python_path cannot help, so the file is called damaged (issue 33)."""
    import zipfile

    damaged = tmp_path / "nocode.pth"
    with (
        zipfile.ZipFile(files / "torchscript_model.pth") as source,
        zipfile.ZipFile(damaged, "w") as out,
    ):
        for info in source.infolist():
            if not info.filename.endswith("constants.pkl"):
                out.writestr(info, source.read(info))
    args = ["-i", str(damaged), "-o", str(tmp_path / "o.circle"), "-s", SHAPE, "-t", "float32"]
    assert _fails(capsys, args) == (
        f"one-import-pytorch: Invalid input file: {damaged} (a TorchScript archive without its "
        "code or constants: '__torch__.TinyNet' cannot be loaded)"
    )
