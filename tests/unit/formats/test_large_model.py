"""A model just over 2 GiB: tflite -> circle (profiling data) -> tflite, run in LiteRT.

The weights of the nine 8192 x 8192 FULLY_CONNECTED layers are shifted views of one 256 MiB
array (distinct values per layer, one copy in memory). The files go to the test's temporary
folder and are removed at the end; the test is skipped, saying why, when that folder has
less than 6 GB free.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import numpy as np
import pytest

import one_cmds
from one_cmds.formats.reader import load
from one_cmds.formats.writer import FLATBUFFER_LIMIT
from one_cmds.ir import Graph, Model, Operator, Tensor
from one_cmds.ir.schema import new_options
from support.litert import BUILTIN, run_tflite

UNITS = 8192
LAYERS = 9
NEEDED = 6 * 10**9


@pytest.fixture
def roomy_folder(tmp_path):
    free = shutil.disk_usage(tmp_path).free
    if free < NEEDED:
        pytest.skip(f"needs 6 GB free in {tmp_path}, has {free / 1e9:.1f} GB")
    yield tmp_path
    for path in tmp_path.iterdir():
        path.unlink()


def _weights() -> list[np.ndarray]:
    """Nine distinct [UNITS, UNITS] float32 matrices viewing one array."""
    size = UNITS * UNITS
    base = ((np.arange(size + LAYERS, dtype=np.int64) % 251) - 125).astype(np.float32)
    base *= np.float32(1 / (125 * 64))
    return [base[k : k + size].reshape(UNITS, UNITS) for k in range(LAYERS)]


def _model(weights: list[np.ndarray]) -> Model:
    x = Tensor("x", "FLOAT32", (1, UNITS))
    operators, h = [], x
    for k, w in enumerate(weights):
        y = Tensor(f"fc{k}", "FLOAT32", (1, UNITS))
        inputs = [h, Tensor.constant(f"w{k}", w), None]
        operators.append(
            Operator("FULLY_CONNECTED", inputs, [y], new_options("FullyConnectedOptions"))
        )
        h = y
    model = Model([Graph("main", [x], [h], operators)])
    for i, op in enumerate(operators):
        op.origin = frozenset({i})
        model.source_table[i] = op.outputs[0].name
    return model


def _md5(path: Path) -> str:
    digest = hashlib.md5()
    with path.open("rb") as f:
        while chunk := f.read(2**24):
            digest.update(chunk)
    return digest.hexdigest()


def test_over_2_gib_round_trips_and_runs(roomy_folder):
    weights = _weights()
    model = _model(weights)
    first = roomy_folder / "big.tflite"
    one_cmds.save(model, str(first))
    assert first.stat().st_size > FLATBUFFER_LIMIT

    imported = load(str(first))
    circle = roomy_folder / "big.circle"
    one_cmds.save(imported, str(circle), profile=True)
    again = load(str(circle))
    assert again.source_md5 == _md5(first), "profiling data names the first file"
    assert [op.origin for op in again.main.operators] == [frozenset({i}) for i in range(LAYERS)]
    assert again.source_table == {i: f"fc{i}" for i in range(LAYERS)}

    last = roomy_folder / "back.tflite"
    one_cmds.save(again, str(last))
    x = np.random.default_rng(0).standard_normal((1, UNITS)).astype(np.float32)
    expected = x
    for w in weights:
        expected = expected @ w.T
    scale = float(np.max(np.abs(expected)))
    for path in (first, last):
        (got,) = run_tflite(str(path), [x], BUILTIN)
        assert np.max(np.abs(got - expected)) <= 1e-4 * scale
