"""Model checks of one-partition (backends-and-packaging.md §5.2, §5.3)."""

from pathlib import Path

import pytest

from one_cmds.errors import StageError
from one_cmds.ir import Model
from support.partition import PART_DIV_ACL_CL, instance_norm_003, partition_in


def run(tmp_path: Path, model: Model | None, input_file: str = "m.circle") -> list[str]:
    (tmp_path / "m.part").write_text(PART_DIV_ACL_CL)
    return partition_in(tmp_path, model, input_file)


def rename_op(k: int, name: str):
    def edit(model: Model) -> None:
        model.main.operators[k].outputs[0].name = name

    return edit


def rename_input(model: Model) -> None:
    model.main.inputs[0].name = ""


def output_input(model: Model) -> None:
    model.main.outputs.append(model.main.inputs[0])


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (rename_op(3, ""), "ERROR: circle model has empty name"),
        (rename_input, "ERROR: circle model has empty name"),
        (rename_op(5, "Pow"), "ERROR: circle model has duplicate names ('Pow')"),
        (rename_op(5, "Input"), "ERROR: circle model has duplicate names ('Input')"),
        (output_input, "ERROR: output 'Input' is not produced by any operator"),
    ],
)
def test_model_errors(tmp_path: Path, edit, message: str) -> None:
    model = instance_norm_003()
    edit(model)
    with pytest.raises(StageError) as e:
        run(tmp_path, model)
    assert e.value.message == message
    assert not list(tmp_path.glob("m.0*")) and not list(tmp_path.glob("m.conn.*"))


def test_invalid_model_file(tmp_path: Path) -> None:
    (tmp_path / "m.circle").write_bytes(b"not a model at all")
    with pytest.raises(StageError, match=r"^ERROR: Invalid circle model \("):
        run(tmp_path, None)


def test_part_file_is_read_before_the_model(tmp_path: Path) -> None:
    (tmp_path / "m.part").write_text("[partition]\ndefault=cpu\n")
    with pytest.raises(StageError, match="backends"):
        partition_in(tmp_path, None, "missing.circle")


def test_name_without_extension(tmp_path: Path) -> None:
    written = run(tmp_path, instance_norm_003(), input_file="net")
    assert [Path(p).name for p in written] == [
        "net.00001_cpu",
        "net.00002_acl_cl",
        "net.00003_cpu",
        "net.conn.json",
        "net.conn.ini",
    ]
