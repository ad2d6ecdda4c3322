"""``one-import-pytorch`` at real size (issue 32), on a small float16 model: torch's weights are
handed over, not copied (the imported weights are FLOAT16 views of torch's own tensors), and
the model still equals torch in LiteRT; as separate commands too (nothing but the output and
its log written)."""

from __future__ import annotations

import os

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed")

import one_cmds  # noqa: E402
from one_cmds.cli import drivers  # noqa: E402
from one_cmds.frontends.pytorch import import_pytorch  # noqa: E402
from support.litert import run_model  # noqa: E402


class Mlp(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.up = torch.nn.Linear(64, 128)
        self.down = torch.nn.Linear(128, 32)

    def forward(self, x):
        return self.down(torch.nn.functional.silu(self.up(x)))


@pytest.fixture(scope="module")
def half_pt2(tmp_path_factory):
    torch.manual_seed(0)
    model = Mlp().half().eval()
    x = torch.randn(2, 64, dtype=torch.float16)
    batch = torch.export.Dim("batch", max=16)
    program = torch.export.export(model, (x,), dynamic_shapes=({0: batch},))
    path = tmp_path_factory.mktemp("half") / "mlp.pt2"
    torch.export.save(program, str(path))
    return path, model


def _expected(model, x: np.ndarray) -> np.ndarray:
    with torch.no_grad():
        return model(torch.from_numpy(x)).float().numpy()


def _owner(array: np.ndarray) -> object:
    while isinstance(array, np.ndarray):
        array = array.base
    return array


def test_weights_are_float16_views_of_torch_s_tensors(half_pt2):
    path, model = half_pt2
    imported = import_pytorch(str(path)).model
    producers = imported.main.producers()
    weights = [producers[op.inputs[1]] for op in imported.main.operators
               if op.opcode == "FULLY_CONNECTED"]  # fmt: skip
    assert [w.opcode for w in weights] == ["DEQUANTIZE", "DEQUANTIZE"]
    for dequantize in weights:
        half = dequantize.inputs[0]
        assert half.dtype == "FLOAT16" and isinstance(_owner(half.buffer.raw), torch.Tensor)
    resized = one_cmds.resize(imported, "[3,64]")
    x = np.random.default_rng(0).normal(0, 1, (3, 64)).astype(np.float16)
    (got,) = run_model(resized, [x])
    np.testing.assert_allclose(got, _expected(model, x), rtol=2e-2, atol=2e-2)


def test_separate_commands_import_resize_q8_0(half_pt2, tmp_path):
    path, model = half_pt2
    circle, fixed, q8 = (str(tmp_path / n) for n in ("m.circle", "f.circle", "q.circle"))
    assert drivers.one_import_pytorch(["-i", str(path), "-o", circle]) == 0
    assert sorted(os.listdir(tmp_path)) == ["m.circle", "m.circle.log"]
    assert drivers.one_resize(["-i", circle, "-o", fixed, "-s", "[3,64]"]) == 0
    assert os.path.getsize(fixed) < 64 * 128 * 4  # float16 weights, not float32
    args = ["-i", fixed, "-o", q8, "--quantize_weights_chunk", "q8_0"]
    assert drivers.one_quantize(args) == 0
    quantized = one_cmds.load(q8)
    kinds = {
        op.inputs[1].dtype for op in quantized.main.operators if op.opcode == "FULLY_CONNECTED"
    }
    assert kinds == {"GGML_Q8_0"}
    x = np.random.default_rng(1).normal(0, 1, (3, 64)).astype(np.float16)
    (got,) = one_cmds.Interpreter(quantized).run([x])
    np.testing.assert_allclose(got, _expected(model, x), rtol=5e-2, atol=5e-2)
