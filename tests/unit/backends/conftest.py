"""Test backends installed into a temporary ONECC_BACKEND_PATH: copies of
tests/fixtures/backends/backend_tool.py that record their argv and environment."""

import json
import os
import shutil
from pathlib import Path

import pytest

TOOL = Path(__file__).resolve().parents[2] / "fixtures" / "backends" / "backend_tool.py"
NAMES = ("dummy-compile", "dummyV2-compile", "dummy-profile", "help-compile", "sch-compile")
SCHEMA = """from onelib import argumentparse
from onelib.argumentparse import DriverName, NormalOption, TargetOption


def command_schema():
    parser = argumentparse.ArgumentParser()
    parser.add_argument("dummy-compile", action=DriverName)
    parser.add_argument("--target", action=TargetOption)
    parser.add_argument("--verbose", "-v", action=NormalOption, dtype=bool)
    parser.add_argument("--quiet", action=NormalOption, dtype=bool)
    parser.add_argument("-o", action=NormalOption)
    parser.add_argument("input", action=NormalOption)
    parser.add_argument("--command", action=NormalOption, dtype=bool)
    return parser
"""


def install(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    shutil.copy(TOOL, path)
    path.chmod(0o755)
    return path


class Backends:
    """The temporary backend root, target folder and the calls the tools recorded."""

    def __init__(self, tmp: Path) -> None:
        self.root = tmp / "backends"
        self.targets = tmp / "targets"
        self.record = tmp / "calls.jsonl"
        for name in NAMES:
            install(self.root, name)
        install(self.root / "vendor" / "bin", "dummy-infer")
        (self.root / "command" / "sch").mkdir(parents=True)
        (self.root / "command" / "sch" / "codegen.py").write_text(SCHEMA)
        self.targets.mkdir()
        for target, backend in (("tgt", "dummy"), ("tgt2", "dummy"), ("sch_tgt", "sch")):
            (self.targets / f"{target}.ini").write_text(f"TARGET={target}\nBACKEND={backend}\n")

    def calls(self) -> list[tuple[str, list[str]]]:
        if not self.record.exists():
            return []
        rows = [json.loads(line) for line in self.record.read_text().splitlines()]
        return [(row["tool"], row["argv"]) for row in rows]

    def envs(self) -> list[dict[str, str]]:
        return [json.loads(line)["env"] for line in self.record.read_text().splitlines()]


@pytest.fixture
def backends(tmp_path, monkeypatch):
    made = Backends(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ONECC_BACKEND_PATH", str(made.root))
    monkeypatch.setenv("ONECC_TARGET_PATH", str(made.targets))
    monkeypatch.setenv("BACKEND_RECORD", str(made.record))
    for key in [k for k in os.environ if k.startswith("ONECC_TEST")]:
        monkeypatch.delenv(key)
    return made
