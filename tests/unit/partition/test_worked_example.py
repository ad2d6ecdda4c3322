"""The worked example of backends-and-packaging.md §5.4 (Net_InstanceNorm_003, DIV=acl_cl)."""

from pathlib import Path

import numpy as np
import pytest

import one_cmds
from one_cmds.interp import Interpreter
from support.partition import PART_DIV_ACL_CL, instance_norm_003, partition_in, run_parts

SPEC_CONN_JSON = """\
{
  "source" : {
    "file" : "Net_InstanceNorm_003.circle",
    "inputs" : [ "Input" ],
    "outputs" : [ "Add_as_terminal" ]
  },
  "parts" : [
    {
      "file" : "Net_InstanceNorm_003.00001_cpu.circle",
      "inputs" : [ "Input" ],
      "outputs" : [ "Pow", "Sub" ]
    },
    {
      "file" : "Net_InstanceNorm_003.00002_acl_cl.circle",
      "inputs" : [ "Sub", "Pow" ],
      "outputs" : [ "Div" ]
    },
    {
      "file" : "Net_InstanceNorm_003.00003_cpu.circle",
      "inputs" : [ "Div" ],
      "outputs" : [ "Add_as_terminal" ]
    }
  ]
}
"""

SPEC_CONN_INI = """\
[source]
file=Net_InstanceNorm_003.circle
i1=Input
o1=Add_as_terminal

[models]
m1=Net_InstanceNorm_003.00001_cpu.circle
m2=Net_InstanceNorm_003.00002_acl_cl.circle
m3=Net_InstanceNorm_003.00003_cpu.circle

[Net_InstanceNorm_003.00001_cpu.circle]
file=Net_InstanceNorm_003.00001_cpu.circle
i1=Input
o1=Pow
o2=Sub

[Net_InstanceNorm_003.00002_acl_cl.circle]
file=Net_InstanceNorm_003.00002_acl_cl.circle
i1=Sub
i2=Pow
o1=Div

[Net_InstanceNorm_003.00003_cpu.circle]
file=Net_InstanceNorm_003.00003_cpu.circle
i1=Div
o1=Add_as_terminal

"""

NAME = "Net_InstanceNorm_003"
PARTS = [f"{NAME}.00001_cpu.circle", f"{NAME}.00002_acl_cl.circle", f"{NAME}.00003_cpu.circle"]


def run(tmp_path: Path, model=None, **options) -> list[str]:
    (tmp_path / f"{NAME}.part").write_text(PART_DIV_ACL_CL)
    return partition_in(tmp_path, model, f"{NAME}.circle", part_file=f"{NAME}.part", **options)


@pytest.fixture
def written(tmp_path: Path) -> list[str]:
    return run(tmp_path, instance_norm_003())


def test_files_written_in_order(tmp_path: Path, written: list[str]) -> None:
    names = [*PARTS, f"{NAME}.conn.json", f"{NAME}.conn.ini"]
    assert written == [str(tmp_path / n) for n in names]


def test_conn_json_is_the_spec_example(tmp_path: Path, written: list[str]) -> None:
    assert (tmp_path / f"{NAME}.conn.json").read_bytes() == SPEC_CONN_JSON.encode()


def test_conn_ini(tmp_path: Path, written: list[str]) -> None:
    assert (tmp_path / f"{NAME}.conn.ini").read_bytes() == SPEC_CONN_INI.encode()


def test_part_models(tmp_path: Path, written: list[str]) -> None:
    parts = [one_cmds.load(str(tmp_path / p)) for p in PARTS]
    assert [[op.opcode for op in m.main.operators] for m in parts] == [
        ["MEAN", "SQUARED_DIFFERENCE", "MEAN", "ADD", "POW", "SUB"],
        ["DIV"],
        ["MUL", "ADD"],
    ]
    assert [m.main.name for m in parts] == ["main_cpu", "main_acl_cl", "main_cpu"]
    first = parts[0].main
    assert [t.name for t in first.inputs] == ["Input"]
    assert [t.name for t in first.outputs] == ["Pow", "Sub"]
    assert first.inputs[0].shape == (1, 8, 6, 12) and first.inputs[0].dtype == "FLOAT32"
    # the constants each part uses are copied in, and only those
    consts = sorted(t.name for t in first.tensors if t.is_constant)
    assert consts == ["Epsilon", "Reduction_indices", "Zero_point_five"]
    assert sorted(t.name for t in parts[2].main.tensors if t.is_constant) == ["Beta", "Gamma"]


def test_parts_in_sequence_equal_the_whole_model(tmp_path: Path, written: list[str]) -> None:
    x = np.random.default_rng(1).standard_normal((1, 8, 6, 12)).astype(np.float32)
    expected = Interpreter(instance_norm_003()).run([x])
    got = run_parts(str(tmp_path / f"{NAME}.conn.json"), {"Input": x})
    np.testing.assert_array_equal(got[0], expected[0])


def test_model_loaded_from_work_path(tmp_path: Path) -> None:
    one_cmds.save(instance_norm_003(), str(tmp_path / f"{NAME}.circle"))
    run(tmp_path)
    assert (tmp_path / f"{NAME}.conn.json").read_text() == SPEC_CONN_JSON


def test_profile_tables_map_parts_back_to_the_source(tmp_path: Path) -> None:
    model = instance_norm_003()
    run(tmp_path, model, profile=True)
    for part in PARTS:
        loaded = one_cmds.load(str(tmp_path / part))
        assert loaded.source_table == model.source_table
        assert loaded.source_md5 == model.source_md5
        names = {op.outputs[0].name: op.origin for op in model.main.operators}
        for op in loaded.main.operators:
            assert op.origin == names[op.outputs[0].name]


def test_default_override_flips_the_backends(tmp_path: Path) -> None:
    """--default acl_cl: every operator but DIV goes to acl_cl, DIV too: one part."""
    written = run(tmp_path, instance_norm_003(), default="acl_cl")
    assert [Path(p).name for p in written] == [
        f"{NAME}.00001_acl_cl.circle",
        f"{NAME}.conn.json",
        f"{NAME}.conn.ini",
    ]
