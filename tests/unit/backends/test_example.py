"""configs/pack_and_compile.cfg, the example of docs/drivers/backends.md, with the bundled
dummy backend."""

import shutil
from pathlib import Path

from one_cmds.cli import onecc

ROOT = Path(__file__).resolve().parents[3]


def test_pack_and_compile_example(tmp_path, monkeypatch):
    shutil.copytree(ROOT / "configs", tmp_path / "configs")
    (tmp_path / "tests" / "fixtures").mkdir(parents=True)
    shutil.copy(ROOT / "tests/fixtures/mobilenet_tiny.tflite", tmp_path / "tests/fixtures")
    (tmp_path / "out").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ONECC_BACKEND_PATH", raising=False)
    assert onecc.main(["-C", "configs/pack_and_compile.cfg"]) == 0
    package = tmp_path / "out/nnpack/mobilenet.opt"
    circle = (tmp_path / "out/mobilenet.opt.circle").read_bytes()
    assert (package / "mobilenet.opt.circle").read_bytes() == circle
    assert (package / "metadata/MANIFEST").is_file()
    compiled = (tmp_path / "out/mobilenet.tvn").read_text()
    assert (
        compiled
        == f"dummy-compile: out/mobilenet.opt.circle ({len(circle)} bytes) for any target\n"
    )
