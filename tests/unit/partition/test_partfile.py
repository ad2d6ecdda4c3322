"""The .part file: reading, overrides, validation texts (backends-and-packaging.md §5.2)."""

from pathlib import Path

import pytest

from one_cmds.errors import StageError
from one_cmds.ir import Operator, Tensor
from one_cmds.partition.partfile import read_part_config


def read(tmp_path: Path, text: str, *, backends: str | None = None, default: str | None = None):
    path = tmp_path / "m.part"
    path.write_text(text)
    return read_part_config(str(path), backends=backends, default=default)


def op(opcode: str, name: str) -> Operator:
    return Operator(opcode, [], [Tensor(name, "FLOAT32", ())])


def test_keys_and_values_are_stripped_and_comply_defaults_to_opcode(tmp_path: Path) -> None:
    config = read(
        tmp_path,
        "# comment\n; another\n[partition]\n backends = cpu , npu \n default= cpu\n\n"
        "[OPCODE]\n  CONV_2D  =  npu  \n[OPNAME]\nconv1=cpu\n",
    )
    assert config.backends == ["cpu", "npu"]
    assert config.default == "cpu"
    assert config.comply == "opcode"
    assert config.by_opcode == {"CONV_2D": "npu"}
    assert config.backend_of(op("CONV_2D", "conv1")) == "npu"  # OPNAME ignored under opcode
    assert config.backend_of(op("ADD", "add")) == "cpu"


def test_comply_opname_looks_up_the_first_output_name(tmp_path: Path) -> None:
    config = read(
        tmp_path,
        "[partition]\nbackends=cpu,npu\ndefault=cpu\ncomply=opname\n"
        "[OPCODE]\nADD=npu\n[OPNAME]\nconv1=npu\n",
    )
    assert config.backend_of(op("CONV_2D", "conv1")) == "npu"
    assert config.backend_of(op("ADD", "add")) == "cpu"


def test_underscore_overrides_default_in_the_comply_section(tmp_path: Path) -> None:
    text = "[partition]\nbackends=cpu,npu\ndefault=cpu\ncomply=opname\n[OPNAME]\n_=npu\nx=cpu\n"
    config = read(tmp_path, text)
    assert config.default == "npu"
    assert config.by_opname == {"x": "cpu"}
    assert config.backend_of(op("ADD", "y")) == "npu"


def test_underscore_in_the_other_section_is_a_name(tmp_path: Path) -> None:
    text = "[partition]\nbackends=cpu,npu\ndefault=cpu\n[OPNAME]\n_=npu\n"
    assert read(tmp_path, text).default == "cpu"


def test_command_line_overrides_the_file(tmp_path: Path) -> None:
    text = "[partition]\nbackends=cpu,npu\ndefault=cpu\n[OPCODE]\n_=npu\n"
    config = read(tmp_path, text, backends="gpu, dsp", default="dsp")
    assert config.backends == ["gpu", "dsp"]
    assert config.default == "dsp"


BASE = "[partition]\nbackends=cpu,npu\ndefault=cpu\n"


@pytest.mark.parametrize(
    ("text", "options", "message"),
    [
        ("[partition]\ndefault=cpu\n", {}, "ERROR: 'backends' is required"),
        ("[partition]\nbackends=cpu\n", {}, "ERROR: 'default' is required"),
        ("[OPCODE]\nADD=cpu\n", {}, "ERROR: 'backends' is required"),
        ("[partition]\nbackends=\ndefault=cpu\n", {}, "ERROR: There is no 'backends' information"),
        (BASE, {"backends": " , "}, "ERROR: There is no 'backends' information"),
        (
            "[partition]\nbackends=cpu\ndefault=\n",
            {},
            "ERROR: There is no 'default' backend information",
        ),
        (BASE, {"default": "gpu"}, "ERROR: 'default' backend is not one of 'backends' item"),
        (BASE, {"backends": "npu"}, "ERROR: 'default' backend is not one of 'backends' item"),
        (
            BASE + "[OPCODE]\n_=gpu\n",
            {},
            "ERROR: 'default' backend is not one of 'backends' item",
        ),
        (
            BASE + "[OPCODE]\nADD=gpu\n",
            {},
            "ERROR: OPCODE ADD is not assigned to one of 'backends' items",
        ),
        (
            BASE + "[OPNAME]\nadd1=gpu\n",
            {},
            "ERROR: OPNAME add1 is not assigned to one of 'backends' items",
        ),
    ],
)
def test_validation_errors(tmp_path: Path, text: str, options: dict, message: str) -> None:
    with pytest.raises(StageError) as e:
        read(tmp_path, text, **options)
    assert e.value.message == message


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "backends=cpu\n[partition]\n",
            "ERROR: Invalid INI file ({} line 1: key before any section)",
        ),
        (BASE + "default=npu\n", "ERROR: Invalid INI file ({} line 4: duplicate key 'default')"),
        (
            BASE + "[partition]\n default =npu\n",
            "ERROR: Invalid INI file ({} line 5: duplicate key 'default')",
        ),
        (BASE + "just words\n", "ERROR: Invalid INI file ({} line 4: expected key=value)"),
        (BASE + "=cpu\n", "ERROR: Invalid INI file ({} line 4: expected key=value)"),
    ],
)
def test_ini_errors(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(StageError) as e:
        read(tmp_path, text)
    assert e.value.message == message.format(tmp_path / "m.part")


def test_bad_comply(tmp_path: Path) -> None:
    with pytest.raises(StageError, match=r"^ERROR: Invalid 'comply' value 'opkind'"):
        read(tmp_path, BASE + "comply=opkind\n")


def test_missing_part_file(tmp_path: Path) -> None:
    with pytest.raises(StageError, match=r"^ERROR: Failed to read partition file \("):
        read_part_config(str(tmp_path / "none.part"), backends=None, default=None)
