"""The PyTorch fixtures of one-import-pytorch (tests/fixtures/torch/aux_generator.py), made at
test time into a cache keyed by the torch version (tf-and-pytorch-import.md §6.2): ``.pt2`` and
TorchScript files are tied to the torch release that wrote them."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

GENERATOR = Path(__file__).resolve().parents[1] / "fixtures" / "torch" / "aux_generator.py"
CACHE = Path(os.environ.get("ONE_CMDS_CACHE", Path.home() / ".cache" / "one-cmds"))


def torch_fixtures() -> Path:
    """The folder of the generated files (made once per torch version and generator); the
    calling test is skipped with the extras message when torch is not installed."""
    torch = pytest.importorskip(
        "torch", reason="PyTorch is not installed: pip install 'one-cmds[pytorch]'"
    )
    stamp = f"{torch.__version__}-{hashlib.md5(GENERATOR.read_bytes()).hexdigest()[:12]}"
    folder = CACHE / "fixtures" / f"torch-{stamp}"
    if not folder.is_dir():
        folder.parent.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(dir=folder.parent))
        subprocess.run([sys.executable, str(GENERATOR), str(work)], check=True)
        try:
            work.rename(folder)
        except OSError:  # another test process made it first
            shutil.rmtree(work)
    return folder
