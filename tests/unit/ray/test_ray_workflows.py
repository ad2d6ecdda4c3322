"""``onecc -W --ray``: workflows as Ray tasks on the session's local cluster build the bytes
``onecc -W`` builds; a failure stops only the workflows after it; a worker killed mid-task is
replaced; Ray missing or a cluster out of reach is one line."""

from __future__ import annotations

import glob
import importlib.util
import json
import os
import socket
import stat
import sys
from pathlib import Path

import pytest

from one_cmds.cli import onecc

pytestmark = pytest.mark.xdist_group("ray")

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def _import(source: str, output: str) -> dict:
    return {
        "steps": ["I"],
        "I": {
            "one-cmd": "one-import-tflite",
            "commands": {"input_path": source, "output_path": output},
        },
    }


def _optimize(source: str, output: str, after: list[str]) -> dict:
    return {
        "run-after": after,
        "steps": ["O"],
        "O": {
            "one-cmd": "one-optimize",
            "commands": {
                "input_path": source,
                "output_path": output,
                "fuse_activation_function": "True",
            },
        },
    }


def _quantize(source: str, output: str, after: list[str]) -> dict:
    commands = {
        "input_path": source,
        "output_path": output,
        "input_data": str(FIXTURES / "mobilenet_tiny_calibration.npz"),
        "input_data_format": "npz",
    }
    return {
        "run-after": after,
        "steps": ["Q"],
        "Q": {"one-cmd": "one-quantize", "commands": commands},
    }


def _write(folder: Path, workflows: dict) -> str:
    (folder / "build.workflow.json").write_text(
        json.dumps({"workflows": list(workflows), **workflows}), encoding="utf-8"
    )
    return "build.workflow.json"


def _outputs(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.glob("*.circle"))}


def _clear(folder: Path) -> None:
    for path in [*folder.glob("*.circle"), *folder.glob("*.log")]:
        path.unlink()


def _onecc(args: list[str], capsys) -> tuple[int, str, str]:
    code = onecc.main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The current directory of the test: configs name their files relative to it."""
    monkeypatch.chdir(tmp_path)
    for name in ("mobilenet_tiny.tflite", "add2.tflite"):
        (tmp_path / name).write_bytes((FIXTURES / name).read_bytes())
    return tmp_path


def test_six_workflows_build_the_bytes_of_a_local_run(ray_cluster, folder: Path, capsys) -> None:
    (folder / "final.cfg").write_text(
        "[onecc]\none-import-tflite=True\none-optimize=True\n"
        "[one-import-tflite]\ninput_path=add2.tflite\noutput_path=final.circle\n"
        "[one-optimize]\ninput_path=final.circle\noutput_path=final_opt.circle\n",
        encoding="utf-8",
    )
    workflow = _write(
        folder,
        {
            "QUANT": _quantize("m_opt.circle", "m_q.circle", ["OPT"]),
            "OPT": _optimize("m.circle", "m_opt.circle", ["IMPORT"]),
            "IMPORT": _import("mobilenet_tiny.tflite", "m.circle"),
            "ADD": _import("add2.tflite", "add.circle"),
            "ADD_OPT": _optimize("add.circle", "add_opt.circle", ["ADD"]),
            "FINAL": {"cfg-reference": {"path": "final.cfg"}, "run-after": ["QUANT", "ADD_OPT"]},
        },
    )
    code, _, err = _onecc(["-W", workflow], capsys)
    assert code == 0, err
    local = _outputs(folder)
    assert len(local) == 7
    _clear(folder)

    code, out, _ = _onecc(["-W", workflow, "--ray"], capsys)
    assert code == 0, out
    assert _outputs(folder) == local
    for name in ("QUANT", "OPT", "IMPORT", "ADD", "ADD_OPT", "FINAL"):
        assert f"\n{name}: running\n" in out
        assert f"\n{name}: done (" in out
    lines = [line.split(" (")[0] for line in out.splitlines()]
    assert lines.index("IMPORT: done") < lines.index("OPT: running") < lines.index("OPT: done")
    assert lines.index("OPT: done") < lines.index("QUANT: running")
    assert "Workflows on Ray (local cluster)" in out
    assert not glob.glob(str(folder / ".*.tmp"))


def test_a_failure_stops_the_workflows_after_it_only(ray_cluster, folder: Path, capsys) -> None:
    workflow = _write(
        folder,
        {
            "BAD": _optimize("missing.circle", "bad.circle", []),
            "AFTER_BAD": _optimize("bad.circle", "after.circle", ["BAD"]),
            "LAST": _optimize("after.circle", "last.circle", ["AFTER_BAD"]),
            "GOOD": _import("add2.tflite", "good.circle"),
        },
    )
    local_code, _, local_err = _onecc(["-W", workflow], capsys)
    assert local_code == 255
    _clear(folder)

    code, out, err = _onecc(["-W", workflow, "--ray"], capsys)
    assert code == local_code
    assert err == local_err  # the first failure's line, as a local run prints it
    assert f"BAD: failed: {local_err.strip().removeprefix('onecc: ')}" in out
    assert "AFTER_BAD: not run (it runs after BAD, which failed)" in out
    assert "LAST: not run (it runs after AFTER_BAD, which was not run)" in out
    assert "GOOD: done" in out
    assert sorted(_outputs(folder)) == ["good.circle"]
    assert not glob.glob(str(folder / ".*.tmp"))


KILLER = """#!{python}
import os, signal, sys
if not os.path.exists("killed.pid") or os.path.exists("always"):  # kill the Ray worker
    with open("killed.pid", "w") as f:
        f.write(str(os.getppid()))
    os.kill(os.getppid(), signal.SIGKILL)
    sys.exit(0)
with open(sys.argv[-1], "w") as f:
    f.write("compiled")
"""


def _killer_workflow(folder: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """KILL imports a model, then its codegen step's tool kills the worker; OPT runs after
    KILL; ADD is independent."""
    backends = folder / "backends"
    backends.mkdir()
    tool = backends / "killer-compile"
    tool.write_text(KILLER.format(python=sys.executable), encoding="utf-8")
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("ONECC_BACKEND_PATH", str(backends))  # forwarded to the task
    kill = _import("mobilenet_tiny.tflite", "k.circle")
    kill["steps"].append("C")
    kill["C"] = {"one-cmd": "one-codegen", "commands": {"backend": "killer", "command": "k.tvn"}}
    return _write(
        folder,
        {
            "KILL": kill,
            "OPT": _optimize("k.circle", "k_opt.circle", ["KILL"]),
            "ADD": _import("add2.tflite", "add.circle"),
        },
    )


def test_a_worker_killed_mid_task_is_replaced(
    ray_cluster, folder: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    workflow = _killer_workflow(folder, monkeypatch)
    (folder / "killed.pid").write_text("0")  # the local run is not killed
    assert _onecc(["-W", workflow], capsys)[0] == 0
    local = _outputs(folder)
    _clear(folder)
    (folder / "killed.pid").unlink()
    (folder / "k.tvn").unlink()

    code, out, err = _onecc(["-W", workflow, "--ray"], capsys)
    assert code == 0, err
    assert int((folder / "killed.pid").read_text()) != os.getpid()
    assert "KILL: running (attempt 2: its worker process died)" in out
    assert (folder / "k.tvn").read_text() == "compiled"
    assert _outputs(folder) == local
    assert "OPT: done" in out and "ADD: done" in out


def test_a_task_whose_worker_keeps_dying_fails_its_workflow(
    ray_cluster, folder: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    workflow = _killer_workflow(folder, monkeypatch)
    (folder / "always").write_text("")
    code, out, err = _onecc(["-W", workflow, "--ray"], capsys)
    assert code == 255
    assert err.startswith(
        "onecc: workflow 'KILL' did not finish on the Ray cluster (run 3 times): "
    )
    assert err.count("\n") == 1
    assert "KILL: running (attempt 3: its worker process died)" in out
    assert "OPT: not run (it runs after KILL, which failed)" in out
    assert "ADD: done" in out
    assert not (folder / "k.tvn").exists()


def test_a_killed_writers_temporary_files_are_removed(folder: Path) -> None:
    from one_cmds.pipeline import Plan, Step
    from one_cmds.pipeline.ray_workflows import _remove_temporaries

    left = folder / ".k.circle.4242.tmp"
    left.write_bytes(b"partial")
    kept = folder / ".k.circle.77.tmp"  # another process's
    kept.write_bytes(b"partial")
    options = type("Options", (), {"output_path": "k.circle"})()
    _remove_temporaries(Plan(steps=[Step("one-import-tflite", options)]), [4242, 1])
    assert not left.exists()
    assert kept.exists()


def test_ray_missing_is_one_line(folder: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    workflow = _write(folder, {"ADD": _import("add2.tflite", "add.circle")})
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "ray" else find_spec(name, *a)
    )
    code, _, err = _onecc(["-W", workflow, "--ray"], capsys)
    assert code == 255
    assert err == "onecc: Ray is not installed: pip install 'one-cmds[ray]'\n"
    assert not _outputs(folder)


def test_an_unreachable_cluster_is_one_line_with_its_address(
    ray_cluster, folder: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    with socket.socket() as probe:  # a port where nothing listens
        probe.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{probe.getsockname()[1]}"
    monkeypatch.setattr(ray_cluster, "is_initialized", lambda: False)
    monkeypatch.setenv("ONECC_RAY_ADDRESS", address)
    workflow = _write(folder, {"ADD": _import("add2.tflite", "add.circle")})
    code, _, err = _onecc(["-W", workflow], capsys)
    assert code == 255
    assert err.startswith(f"onecc: Ray cluster {address} cannot be reached: ")
    assert err.count("\n") == 1


def test_a_config_with_ray_runs_on_the_connected_process(ray_cluster, folder: Path, capsys) -> None:
    (folder / "one.cfg").write_text(
        "[onecc]\none-import-tflite=True\n"
        "[one-import-tflite]\ninput_path=add2.tflite\noutput_path=one.circle\n",
        encoding="utf-8",
    )
    code, out, _ = _onecc(["-C", "one.cfg", "--ray", "auto"], capsys)
    assert code == 0
    assert out.startswith("ray: auto ready in ")
    assert (folder / "one.circle").exists()


def test_ray_without_an_address_asks_for_a_local_cluster() -> None:
    from one_cmds.engines.ray_cluster import LOCAL

    parser = onecc.onecc_parser()
    assert parser.parse_args(["-W", "w.json", "--ray"]).ray == LOCAL
    assert parser.parse_args(["-W", "w.json", "--ray", "auto"]).ray == "auto"
    assert parser.parse_args(["-W", "w.json"]).ray is None
