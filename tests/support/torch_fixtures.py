"""The PyTorch fixtures of one-import-pytorch (tests/fixtures/torch/aux_generator.py), made at
test time into a cache keyed by the torch version (tf-and-pytorch-import.md §6.2): ``.pt2`` and
TorchScript files are tied to the torch release that wrote them."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.generated import generated

GENERATOR = Path(__file__).resolve().parents[1] / "fixtures" / "torch" / "aux_generator.py"


def torch_fixtures() -> Path:
    """The folder of the generated files (made once per torch version and generator); the
    calling test is skipped with the extras message when torch is not installed."""
    torch = pytest.importorskip(
        "torch", reason="PyTorch is not installed: pip install 'one-cmds[pytorch]'"
    )
    return generated("torch", torch.__version__, GENERATOR)
