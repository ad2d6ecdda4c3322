"""``onecc -C`` and ``onecc -W`` under bad inputs (issue 33): damaged configuration and
workflow files, workflows that reference damaged or missing configurations or each other in a
cycle, an unreachable Ray address; run in process, every case ends in built models or in one
line naming the file, section or key at fault (:mod:`support.fuzz`)."""

from __future__ import annotations

import json
import shutil

import one_cmds
from support.fuzz import Case, check_door, damaged_files

CONFIG = "[onecc]\none-import-tflite=True\n[one-import-tflite]\ninput_path=m.tflite\noutput_path=out.circle\n"


def _workflow(**workflows: dict) -> str:
    return json.dumps({"workflows": list(workflows), **workflows})


def test_damaged_config_and_workflow_files(tmp_path, capsys, fixture_path):
    shutil.copy(fixture_path("add2.tflite"), tmp_path / "m.tflite")
    (tmp_path / "build.cfg").write_text(CONFIG)
    (tmp_path / "build.workflow.json").write_text(
        _workflow(WF={"cfg-reference": {"path": "build.cfg"}})
    )
    cases = []
    for flag, name in (("-C", "build.cfg"), ("-W", "build.workflow.json")):
        for damage, path in damaged_files(tmp_path / name, tmp_path).items():
            cases.append(
                Case(f"{flag} {damage}", [flag, path.name], path.name, may_pass=damage == "flipped")
            )
    assert check_door("onecc", cases, tmp_path, capsys, one_cmds.load) == []


def test_bad_workflows(tmp_path, capsys, fixture_path):
    shutil.copy(fixture_path("add2.tflite"), tmp_path / "m.tflite")
    (tmp_path / "build.cfg").write_text(CONFIG)
    (tmp_path / "random.cfg").write_bytes(bytes(range(256)))
    step = {
        "steps": ["S"],
        "S": {
            "one-cmd": "one-import-tflite",
            "commands": {"input_path": "m.tflite", "output_path": "out.circle"},
        },
    }
    workflows = {
        "cycle": (
            _workflow(A={**step, "run-after": ["B"]}, B={**step, "run-after": ["A"]}),
            "cycle",
        ),
        "unknown run-after": (_workflow(A={**step, "run-after": ["Z"]}), "Z"),
        "missing cfg": (_workflow(A={"cfg-reference": {"path": "absent.cfg"}}), "absent.cfg"),
        "binary cfg": (_workflow(A={"cfg-reference": {"path": "random.cfg"}}), "random.cfg"),
        "unknown driver": (
            _workflow(A={**step, "S": {**step["S"], "one-cmd": "one-nothing"}}),
            "one-nothing",
        ),
        "unknown key": (
            _workflow(
                A={
                    **step,
                    "S": {**step["S"], "commands": {**step["S"]["commands"], "input_pth": "x"}},
                }
            ),
            "input_pth",
        ),
        "missing model": (
            _workflow(
                A={
                    **step,
                    "S": {
                        **step["S"],
                        "commands": {"input_path": "nope.tflite", "output_path": "out.circle"},
                    },
                }
            ),
            "nope.tflite",
        ),
    }
    cases = []
    for k, (name, (text, blame)) in enumerate(workflows.items()):
        (tmp_path / f"w{k}.workflow.json").write_text(text)
        cases.append(Case(name, ["-W", f"w{k}.workflow.json"], blame))
    (tmp_path / "ok.workflow.json").write_text(_workflow(A=step))
    cases.append(
        Case("unreachable ray", ["-W", "ok.workflow.json", "--ray", "127.0.0.1:9"], "127.0.0.1:9")
    )
    assert check_door("onecc", cases, tmp_path, capsys, one_cmds.load) == []
