"""What today's exporters emit, kept as a test (issue 17): every operator type of every
committed export (torch.onnx dynamo and TorchScript exporters, tests/fixtures/onnx and
tests/fixtures/hf) has a converter, and each manifest lists exactly what its file holds, so
a regenerated export that starts to emit a new operator fails here by name."""

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


def _exports() -> list[tuple[Path, dict]]:
    found = []
    for manifest in MANIFESTS:
        models = json.loads(manifest.read_text())["models"]
        entries = models.values() if isinstance(models, dict) else models
        found += [(manifest.parent / entry["file"], entry) for entry in entries]
    return found


@pytest.mark.parametrize(("path", "entry"), _exports(), ids=lambda v: getattr(v, "stem", ""))
def test_every_emitted_operator_has_a_converter(path, entry):
    counted = collections.Counter(node.op_type for node in onnx.load(str(path)).graph.node)
    assert dict(counted) == entry["operators"], f"{path.name}: regenerate its manifest"
    missing = sorted(set(counted) - set(CONVERTERS) - FOLDED)
    assert missing == [], f"{path.name} emits operators without a converter: {missing}"
