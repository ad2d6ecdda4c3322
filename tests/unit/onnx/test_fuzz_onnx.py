"""The ONNX door under damage (issue 33's doors): damaged ``.onnx`` files and external data,
given to ``one-import-onnx`` in process; every case ends in a model that loads or in one line
naming the file at fault (:mod:`support.fuzz`)."""

from __future__ import annotations

import shutil

import one_cmds
from support.fuzz import Case, check_door, damaged_files


def test_damaged_onnx_files(tmp_path, capsys, fixture_path):
    source = shutil.copy(fixture_path("onnx_cnn.onnx"), tmp_path / "cnn.onnx")
    cases = [
        Case(
            f"{damage} cnn.onnx",
            ["-i", path.name, "-o", "out.circle"],
            path.name,
            may_pass=damage == "flipped",
        )
        for damage, path in damaged_files(source, tmp_path).items()
    ]
    for name in (
        "onnx_external_missing.onnx",
        "onnx_external_short.onnx",
        "onnx_external_short.bin",
    ):
        shutil.copy(fixture_path(name), tmp_path / name)
    cases += [
        Case(
            "external data missing",
            ["-i", "onnx_external_missing.onnx", "-o", "out.circle"],
            "onnx_external_missing",
        ),
        Case(
            "external data short",
            ["-i", "onnx_external_short.onnx", "-o", "out.circle"],
            "onnx_external_short",
        ),
        Case(
            "unknown option",
            ["-i", "cnn.onnx", "-o", "out.circle", "--unroll_gru_x"],
            "--unroll_gru_x",
            code=2,
        ),
    ]
    assert check_door("one-import-onnx", cases, tmp_path, capsys, one_cmds.load) == []
