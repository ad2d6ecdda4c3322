"""The documentation (issue 34): the site builds with ``mkdocs build --strict`` (a broken link
or a missing page fails), the key reference is the option tables' (regenerated, not edited),
every configuration in the pages runs, every program's ``--help`` names its page, and the
README stays a README."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from one_cmds.cli import drivers, onecc
from one_cmds.cli.docs_pages import DRIVER_PAGES, OTHER_PAGES, docs_lines
from one_cmds.config.drivers import DRIVERS

ROOT = Path(__file__).resolve().parents[3]
DOCS = ROOT / "docs"
CONFIG_BLOCK = re.compile(r"^```(ini|toml)[^\n]*\n(.*?)^```", re.M | re.S)


def _generator():
    spec = importlib.util.spec_from_file_location(
        "key_reference", ROOT / "tools" / "key_reference.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_site_builds_strictly(tmp_path):
    """mkdocs in strict mode: every page of the nav exists, every link and anchor resolves,
    the API pages' docstrings render."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    mkdocs = [
        sys.executable,
        "-m",
        "mkdocs",
        "build",
        "--strict",
        "-q",
        "-d",
        str(tmp_path / "site"),
    ]
    result = subprocess.run(mkdocs, cwd=ROOT, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "site" / "reference" / "keys" / "index.html").is_file()


def test_the_key_reference_is_generated_from_the_tables():
    """docs/reference/keys.md is what tools/key_reference.py writes now: a changed option
    table makes it stale (run ``python tools/key_reference.py``)."""
    assert (DOCS / "reference" / "keys.md").read_text(encoding="utf-8") == _generator().page()


def test_every_key_has_a_row_in_its_section():
    text = (DOCS / "reference" / "keys.md").read_text(encoding="utf-8")
    sections = dict(re.findall(r"^## \[([\w-]+)\]\n(.*?)(?=^## |\Z)", text, re.M | re.S))
    for name, spec in DRIVERS.items():
        rows = set(re.findall(r"^\| `([\w-]+)` \|", sections[name], re.M))
        keys = {o.name for o in spec.options if o.config and not o.hidden}
        assert keys <= rows, (name, keys - rows)


def _configs() -> list[tuple[str, str, str]]:
    """(page, language, text) of every ```ini / ```toml block of the pages."""
    found = []
    for page in sorted(DOCS.rglob("*.md")):
        for language, text in CONFIG_BLOCK.findall(page.read_text(encoding="utf-8")):
            found.append((str(page.relative_to(DOCS)), language, text))
    return found


def test_the_pages_have_configurations():
    assert len(_configs()) >= 10


def test_every_configuration_in_the_pages_runs(tmp_path, capsys, monkeypatch):
    """``onecc -C <block> --dry-run`` from an empty folder, each block a whole configuration
    (a ``.pt2`` it names is a real ExportedProgram: the plan asks what the file holds)."""
    monkeypatch.chdir(tmp_path)
    failed = []
    for k, (page, language, text) in enumerate(_configs()):
        for name in re.findall(r"^\s*input_path\s*[=:]\s*['\"]?([^\s'\"#;]+\.pt2)", text, re.M):
            if not (tmp_path / name).exists():
                (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(_exported_program(), tmp_path / name)
        path = tmp_path / f"example{k}.{'toml' if language == 'toml' else 'cfg'}"
        path.write_text(text, encoding="utf-8")
        code = onecc.main(["-C", str(path), "--dry-run"])
        err = capsys.readouterr().err
        if code != 0:
            failed.append((page, text.splitlines()[:3], err.strip().splitlines()[-1:]))
    assert failed == []


def _exported_program() -> Path:
    from support.torch_fixtures import torch_fixtures

    return torch_fixtures() / "test_pytorch_model.pt2"


@pytest.mark.parametrize("prog", sorted({*DRIVER_PAGES, "onecc"}))
def test_help_names_the_pages(prog, capsys):
    main = onecc.main if prog == "onecc" else drivers.MAINS[prog]
    assert main(["-h"]) == 0
    out = capsys.readouterr().out
    lines = docs_lines(prog)
    assert out.rstrip().endswith("\n".join(lines))
    for line in lines:
        page = line.split(": ", 1)[1].split("#")[0]
        assert (ROOT / page).is_file(), page


def test_every_page_named_exists():
    for page in {*DRIVER_PAGES.values(), *OTHER_PAGES.values()}:
        assert (DOCS / page).is_file(), page


def test_the_readme_is_short_lined():
    long = [
        n
        for n, line in enumerate((ROOT / "README.md").read_text().splitlines(), 1)
        if len(line) > 200
    ]
    assert long == []
