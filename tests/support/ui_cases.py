"""The config-file UI cases of tests/ui/cases: listing them, copying one to a temporary folder
with its placeholders substituted (tests/ui/test_ui.py says which), and running its program
there as a user does."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from one_cmds.config.reader import tomllib
from support.tf_fixtures import tf_fixtures
from support.torch_fixtures import torch_fixtures

REPO = Path(__file__).resolve().parents[2]
CASES = REPO / "tests" / "ui" / "cases"
FIXTURES = REPO / "tests" / "fixtures"
TEXT_SUFFIXES = (".cfg", ".toml", ".json", ".txt", ".py")
CONFIG_SUFFIXES = (".cfg", ".toml", ".workflow.json")
KEYS = {
    "program",
    "args",
    "env",
    "mkdirs",
    "exit_code",
    "stdout_contains",
    "stderr_contains",
    "stdout_absent",
    "stderr_absent",
    "stdout_in_order",
    "files_exist",
    "files_absent",
    "file_contains",
    "models",
}


def case_names() -> list[str]:
    return sorted(p.parent.name for p in CASES.glob("*/expect.toml"))


def launcher(program: str, work: Path) -> Path:
    """The program's launcher: the repository's, or with a ``/`` a file of the case."""
    if "/" in program:
        return work / program
    return REPO / "onecc" if program == "onecc" else REPO / "drivers" / program


def substitute(text: str, work: Path) -> str:
    if "{torch_fixtures}" in text:
        text = text.replace("{torch_fixtures}", str(torch_fixtures()))
    if "{tf_fixtures}" in text:
        text = text.replace("{tf_fixtures}", str(tf_fixtures()))
    return text.replace("{fixtures}", str(FIXTURES)).replace("{case}", str(work))


def default_args(work: Path) -> list[str]:
    configs = [
        p.name
        for p in work.iterdir()
        if p.name.endswith(CONFIG_SUFFIXES) and not p.name.startswith("O")
    ]
    assert len(configs) == 1, f"give args: several or no configurations {configs}"
    flag = "-W" if configs[0].endswith(".workflow.json") else "-C"
    return [flag, configs[0]]


def prepare(name: str, tmp_path: Path) -> tuple[Path, dict]:
    work = tmp_path / name
    shutil.copytree(CASES / name, work)
    for path in work.rglob("*"):
        if path.is_file() and path.name.endswith(TEXT_SUFFIXES) and path.name != "expect.toml":
            path.write_text(substitute(path.read_text(), work))
    expect = tomllib.loads(substitute((work / "expect.toml").read_text(), work))
    (work / "expect.toml").unlink()
    unknown = set(expect) - KEYS
    assert not unknown, f"unknown expect.toml keys: {unknown}"
    return work, expect


def case_environment(expect: dict) -> dict[str, str]:
    """The environment a case runs in: this one without ``ONECC_OPTIMIZATION_PATH``, plus
    ``NO_COLOR`` and the case's ``env``."""
    env = {k: v for k, v in os.environ.items() if k != "ONECC_OPTIMIZATION_PATH"}
    return {**env, "NO_COLOR": "1", **expect.get("env", {})}


def run_case(work: Path, expect: dict) -> subprocess.CompletedProcess[str]:
    for folder in expect.get("mkdirs", []):
        (work / folder).mkdir(parents=True, exist_ok=True)
    args = expect.get("args")
    command = [sys.executable, str(launcher(expect.get("program", "onecc"), work))]
    return subprocess.run(
        [*command, *(default_args(work) if args is None else args)],
        cwd=work,
        env=case_environment(expect),
        capture_output=True,
        text=True,
        timeout=300,
    )
