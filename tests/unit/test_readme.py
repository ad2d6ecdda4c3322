"""The README's two set-up commands are what CI runs."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_ci_runs_the_readme_commands():
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```sh\n(.*?)\n```", readme.split("## Using it")[0], re.S)
    assert len(blocks) == 2, "the Set up section has exactly two commands"
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    for command in blocks:
        assert command in ci
