"""Config-file UI tests: each folder of ``cases/`` is a configuration plus ``expect.toml``.

The folder is copied to a temporary directory, ``{fixtures}`` (the absolute path of
``tests/fixtures``), ``{torch_fixtures}`` (the PyTorch files of tests/fixtures/torch, made at
test time; the case is skipped without torch), ``{tf_fixtures}`` (the TensorFlow files of
tests/fixtures/tf, likewise) and ``{case}`` (the copy's path) are substituted in its text
files, and the
program runs there as a user runs it (the repository launchers, current directory = the copy).
A case that runs two or more steps with success runs again as one command per step, which
must write the same files (tests/support/ui_handoff.py).

``expect.toml`` keys (all optional except ``exit_code``):
  program           "onecc" (default), "one-build" or a single-step driver
  args              command line after the program; default ``-C <config>`` (or ``-W`` for
                    ``*.workflow.json``) when the folder holds exactly one configuration
  env               extra environment variables (``ONECC_OPTIMIZATION_PATH`` is unset by default)
  mkdirs            folders to create before the run
  exit_code         expected exit code
  stdout_contains / stderr_contains     strings that must appear
  stdout_absent / stderr_absent         strings that must not appear
  stdout_in_order   strings that must appear in this order
  files_exist       files that must exist and be non-empty
  files_absent      glob patterns that must match nothing
  file_contains     table: file -> strings it must contain
  models            table: model file -> properties of the written model:
                      identifier ("CIR0"/"TFL3"), operators (count in graph 0), kinds
                      (operator kinds of graph 0 in order, e.g. "CUSTOM(Erf)"),
                      inputs / outputs (shapes of graph 0, -1 for unknown), static
                      (whether every tensor of every graph has known dims), metadata /
                      metadata_absent (entry names), source_md5_of (a file whose md5 the
                      model records), same_bytes_as (a file with identical bytes)
"""

from __future__ import annotations

import glob
import hashlib
import subprocess
from pathlib import Path

import pytest
from circle_schema.v0_10.circle.Model import ModelT

import one_cmds
from support.ui_cases import case_names, prepare, run_case
from support.ui_handoff import check_separate_commands, files, separate_steps

MODEL_KEYS = {
    "identifier",
    "operators",
    "kinds",
    "inputs",
    "outputs",
    "static",
    "metadata",
    "metadata_absent",
    "source_md5_of",
    "same_bytes_as",
}


def check(result: subprocess.CompletedProcess[str], work: Path, expect: dict) -> None:
    shown = f"\n--- stdout\n{result.stdout}\n--- stderr\n{result.stderr}"
    assert result.returncode == expect["exit_code"], shown
    assert "Traceback" not in result.stderr, shown
    for stream, text in (("stdout", result.stdout), ("stderr", result.stderr)):
        for needle in expect.get(f"{stream}_contains", []):
            assert needle in text, f"{needle!r} not in {stream}" + shown
        for needle in expect.get(f"{stream}_absent", []):
            assert needle not in text, f"{needle!r} in {stream}" + shown
    position = 0
    for needle in expect.get("stdout_in_order", []):
        found = result.stdout.find(needle, position)
        assert found >= 0, f"{needle!r} not in stdout after position {position}" + shown
        position = found + len(needle)
    for name in expect.get("files_exist", []):
        path = work / name
        assert path.is_file() and path.stat().st_size > 0, f"{name} missing or empty" + shown
    for pattern in expect.get("files_absent", []):
        assert not glob.glob(str(work / pattern)), f"{pattern} exists" + shown
    for name, needles in expect.get("file_contains", {}).items():
        text = (work / name).read_text()
        for needle in needles:
            assert needle in text, f"{needle!r} not in {name}:\n{text}"


def check_model(path: Path, expect: dict, work: Path) -> None:
    """The properties ``expect`` lists of the model file at ``path``."""
    unknown = set(expect) - MODEL_KEYS
    assert not unknown, f"unknown model keys: {unknown}"
    data = path.read_bytes()
    if "identifier" in expect:
        assert data[4:8].decode() == expect["identifier"]
    names = [m.name.decode() for m in ModelT.InitFromPackedBuf(data, 0).metadata or []]
    for name in expect.get("metadata", []):
        assert name in names, f"{path.name}: no metadata entry {name} in {names}"
    for name in expect.get("metadata_absent", []):
        assert name not in names, f"{path.name}: unexpected metadata entry {name}"
    model = one_cmds.load(str(path))
    graph = model.main
    if "operators" in expect:
        assert len(graph.operators) == expect["operators"]
    if "kinds" in expect:
        assert [op.kind for op in graph.operators] == expect["kinds"]
    for key, tensors in (("inputs", graph.inputs), ("outputs", graph.outputs)):
        if key in expect:
            shapes = [[-1 if d is None else d for d in t.shape] for t in tensors]
            assert shapes == expect[key], f"{path.name}: {key} {shapes}"
    if "static" in expect:
        tensors = [t for g in model.graphs for t in g.referenced_tensors()]
        assert all(t.is_static for t in tensors) == expect["static"], f"{path.name}: static"
    if "source_md5_of" in expect:
        source = (work / expect["source_md5_of"]).read_bytes()
        assert model.source_md5 == hashlib.md5(source).hexdigest()
    if "same_bytes_as" in expect:
        assert data == (work / expect["same_bytes_as"]).read_bytes()


@pytest.mark.parametrize("name", case_names())
def test_ui_case(name: str, tmp_path: Path) -> None:
    work, expect = prepare(name, tmp_path)
    before = files(work)
    check(run_case(work, expect), work, expect)
    for file, properties in expect.get("models", {}).items():
        check_model(work / file, properties, work)
    if len(separate_steps(name)) > 1:  # the hand-off does not matter (support/ui_handoff.py)
        check_separate_commands(name, work, before, expect, tmp_path / "steps")
