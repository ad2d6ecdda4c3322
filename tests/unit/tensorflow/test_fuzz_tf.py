"""The TensorFlow and Keras doors under bad inputs (issue 33): damaged GraphDefs, SavedModels
and Keras files, wrong arrays and shapes, each run by ``one-import-tf`` (and the GraphDefs by
``one-import-bcq``) in process; every case ends in a model that loads or in one line naming
the file or option at fault (:mod:`support.fuzz`)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import one_cmds
from support.fuzz import Case, check_door, copied_tree, damaged_bytes, damaged_files, without_member

TWO_IO = ["-I", "a,b", "-O", "sum,prod"]


def _graph_def_cases(tf_files: Path, folder: Path) -> list[Case]:
    files = damaged_files(shutil.copy(tf_files / "two_io.pb", folder), folder)
    cases = [
        Case(
            f"graph_def {d}",
            ["-i", f.name, "-o", "out.circle", *TWO_IO],
            f.name,
            may_pass=d == "flipped",
        )
        for d, f in files.items()
    ]
    shutil.copy(tf_files / "inception_v3.tflite", folder / "tflite.pb")
    (folder / "text.pbtxt").write_text("node { name: 'a' op: \n")
    cases += [
        Case(
            "a .tflite as GraphDef", ["-i", "tflite.pb", "-o", "out.circle", *TWO_IO], "tflite.pb"
        ),
        Case("broken text", ["-i", "text.pbtxt", "-o", "out.circle", *TWO_IO], "text.pbtxt"),
    ]
    good = ["-i", "two_io.pb", "-o", "out.circle"]
    wrong_options = {
        "unknown input": (["-I", "a,nope", "-O", "sum"], "nope"),
        "unknown output": (["-I", "a,b", "-O", "nope"], "nope"),
        "shape not int": ([*TWO_IO, "-s", "1,x:1,4"], "'x'"),
        "shape zero": ([*TWO_IO, "-s", "0,4:1,4"], "input_shapes"),
        "shape count": ([*TWO_IO, "-s", "1,4"], "input_arrays"),
        "shape rank": ([*TWO_IO, "-s", "1,4,1:1,4"], "'a'"),
        "shapes without arrays": (["-O", "sum", "-s", "1,4"], "--input_arrays"),
        "no arrays": ([], "--input_arrays"),
    }
    cases += [Case(n, [*good, *a], blame) for n, (a, blame) in wrong_options.items()]
    cases.append(Case("bad version", [*good, *TWO_IO, "--converter_version", "v3"], "v3", code=2))
    return cases


def _remove(relative: str):
    def change(folder: Path) -> None:
        target = folder / relative
        shutil.rmtree(target) if target.is_dir() else target.unlink()

    return change


def _damage(relative: str, damage: str):
    def change(folder: Path) -> None:
        target = folder / relative
        target.write_bytes(damaged_bytes(target.read_bytes())[damage])

    return change


def _saved_model_cases(tf_files: Path, folder: Path) -> list[Case]:
    source = tf_files / "test_saved_model"
    data = "variables/variables.data-00000-of-00001"
    changes = {
        "data half": _damage(data, "half"),
        "data empty": _damage(data, "empty"),
        "index flipped": _damage("variables/variables.index", "flipped"),
        "index random": _damage("variables/variables.index", "random"),
        "index removed": _remove("variables/variables.index"),
        "variables removed": _remove("variables"),
        "graph half": _damage("saved_model.pb", "half"),
        "graph random": _damage("saved_model.pb", "random"),
        "graph empty": _damage("saved_model.pb", "empty"),
        "graph removed": _remove("saved_model.pb"),
    }
    cases = []
    for k, (name, change) in enumerate(changes.items()):
        copied_tree(source, folder / f"sm{k}", change)
        for version in ("v1", "v2"):
            args = ["--saved_model", f"--{version}", "-i", f"sm{k}", "-o", "out.circle"]
            cases.append(Case(f"saved_model {name} {version}", args, f"sm{k}"))
    (folder / "not_a_folder").write_bytes(b"x")
    cases.append(
        Case(
            "saved_model file",
            ["--saved_model", "-i", "not_a_folder", "-o", "out.circle"],
            "not_a_folder",
        )
    )
    return cases


def _keras_cases(tf_files: Path, folder: Path) -> list[Case]:
    cases = []
    for suffix in ("h5", "keras"):
        source = shutil.copy(tf_files / f"test_keras_model.{suffix}", folder / f"k.{suffix}")
        files = damaged_files(Path(source), folder)
        cases += [
            Case(
                f"keras .{suffix} {d}",
                ["--keras_model", "-i", f.name, "-o", "out.circle"],
                f.name,
                may_pass=d == "flipped",
            )
            for d, f in files.items()
        ]
    for member in ("config.json", "model.weights.h5"):
        damaged = without_member(folder / "k.keras", member, folder / f"no_{member}.keras")
        cases.append(
            Case(
                f"keras without {member}",
                ["--keras_model", "-i", damaged.name, "-o", "out.circle"],
                damaged.name,
            )
        )
    return cases


DOORS = {"graph_def": _graph_def_cases, "saved_model": _saved_model_cases, "keras": _keras_cases}


@pytest.mark.parametrize("door", DOORS)
def test_bad_inputs_get_one_line_naming_the_fault(tf_files, tmp_path, capsys, door):
    cases = DOORS[door](tf_files, tmp_path)
    wrong = check_door("one-import-tf", cases, tmp_path, capsys, one_cmds.load)
    assert wrong == []


def test_bcq_bad_graph_defs(tf_files, tmp_path, capsys):
    files = damaged_files(shutil.copy(tf_files / "bcq.pb", tmp_path), tmp_path)
    cases = [
        Case(
            f"bcq {d}",
            ["-i", f.name, "-o", "out.circle", "-I", "Placeholder", "-O", "MatMul"],
            f.name,
            may_pass=d == "flipped",
        )
        for d, f in files.items()
    ]
    assert check_door("one-import-bcq", cases, tmp_path, capsys, one_cmds.load) == []
