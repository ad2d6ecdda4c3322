"""What today's exporters emit, kept as a test (issue 17): every operator type of every
committed export (torch.onnx dynamo and TorchScript exporters, tests/fixtures/onnx and
tests/fixtures/hf) has a converter, each manifest lists every ``.onnx`` file beside it and
exactly what that file holds, so a regenerated export that starts to emit a new operator
fails here by name."""

from __future__ import annotations

import collections
import json
from pathlib import Path

import onnx
import pytest

import one_cmds.frontends.onnx.ops  # noqa: F401  (importing registers the converters)
from one_cmds.frontends.onnx.lowering import CONVERTERS

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
# Nodes without inputs are evaluated at import (frontends/onnx/folding.py), never lowered.
FOLDED = frozenset({"Constant"})
MANIFESTS = (FIXTURES / "onnx" / "manifest.json", FIXTURES / "hf" / "manifest.json")


def _entries(manifest: Path) -> list[dict]:
    models = json.loads(manifest.read_text())["models"]
    return list(models.values() if isinstance(models, dict) else models)


def _exports() -> list[tuple[Path, dict]]:
    return [(m.parent / entry["file"], entry) for m in MANIFESTS for entry in _entries(m)]


@pytest.mark.parametrize("manifest", MANIFESTS, ids=lambda m: m.parent.name)
def test_manifest_lists_every_export(manifest):
    listed = sorted(entry["file"] for entry in _entries(manifest))
    assert listed == sorted(p.name for p in manifest.parent.glob("*.onnx"))


@pytest.mark.parametrize(("path", "entry"), _exports(), ids=lambda v: getattr(v, "stem", ""))
def test_every_emitted_operator_has_a_converter(path, entry):
    counted = collections.Counter(node.op_type for node in onnx.load(str(path)).graph.node)
    assert dict(counted) == entry["operators"], f"{path.name}: regenerate its manifest"
    missing = sorted(set(counted) - set(CONVERTERS) - FOLDED)
    assert missing == [], f"{path.name} emits operators without a converter: {missing}"
