"""Without an importable ``ai_edge_litert`` (a platform without its wheel, a broken install):
``engine=auto`` falls back to the reference interpreter and says why in the step log;
``engine=litert`` is one line naming the package and exit 255, never an internal error.

The package is hidden from the import system of a child process (``sys.modules`` entry None,
which makes every ``import ai_edge_litert`` fail as a missing module does)."""

import subprocess
import sys

import pytest

CHILD = """
import sys
sys.modules["ai_edge_litert"] = None
from one_cmds.cli.drivers import {driver} as main
sys.exit(main(sys.argv[1:]))
"""


def _run(driver: str, *args: str, cwd) -> subprocess.CompletedProcess[str]:
    code = CHILD.format(driver=driver)
    return subprocess.run(
        [sys.executable, "-c", code, *args], cwd=cwd, capture_output=True, text=True, timeout=300
    )


@pytest.fixture
def model(fixture_path):
    return fixture_path("mobilenet_tiny.tflite")


def test_engine_litert_is_one_line_naming_the_package(model, tmp_path):
    done = _run("one_quantize", "-i", model, "-o", "q.circle", "--engine", "litert", cwd=tmp_path)
    assert done.returncode == 255, done.stderr
    lines = done.stderr.strip().splitlines()
    assert lines == [
        "one-quantize: LiteRT (ai-edge-litert) is not installed: pip install ai-edge-litert"
    ]
    assert not (tmp_path / "q.circle").exists()


@pytest.mark.parametrize("granularity", ["layer", "channel"])
def test_engine_auto_falls_back_to_the_reference_interpreter(model, tmp_path, granularity):
    args = ["-i", model, "-o", "q.circle", "--granularity", granularity, "--evaluate_result"]
    done = _run("one_quantize", *args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    log = (tmp_path / "q.circle.log").read_text()
    assert "engine: reference (LiteRT (ai-edge-litert) is not installed" in log


def test_optimize_verify_runs_without_litert(model, tmp_path):
    done = _run("one_optimize", "-i", model, "-o", "o.circle", "--O1", "--verify", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "o.circle").is_file()
