"""The exact argv of every way of selecting a backend and its command
(backends-and-packaging.md §1.1, §2.3, §2.4, §3)."""

import json

import pytest

from one_cmds.cli import onecc
from one_cmds.cli.backend_drivers import one_codegen, one_infer, one_profile

CODEGEN = "[onecc]\none-codegen=True\n\n[one-codegen]\n"
A = ["-o", "a.tvn", "in.circle"]
B = ["-O", "b.tvn", "in.circle"]


@pytest.mark.parametrize(
    ("main", "args", "config", "expected"),
    [
        (one_codegen, ["-b", "dummy", "--", *A], None, [("dummy-compile", A)]),
        (one_codegen, ["-b", "dummy", *A], None, [("dummy-compile", A)]),
        (one_codegen, ["-T", "tgt", *A], None, [("dummy-compile", ["--target", "tgt", *A])]),
        (one_profile, ["-b", "dummy", "--", "x.tvn"], None, [("dummy-profile", ["x.tvn"])]),
        (
            one_codegen,
            ["-C", "c.cfg"],
            CODEGEN + "backend=dummy\ncommand=-o a.tvn   in.circle\n",
            [("dummy-compile", A)],
        ),
        (
            one_codegen,
            ["-C", "c.cfg"],
            CODEGEN + "backends= dummyV2, ,dummy\ndummy=-o a.tvn in.circle\n"
            "dummyV2=-O b.tvn in.circle\n",
            [("dummyV2-compile", B), ("dummy-compile", A)],
        ),
        (
            one_codegen,
            ["-C", "c.cfg", "-b", "dummy"],
            CODEGEN + "backends=dummyV2,dummy\ndummy=-o a.tvn in.circle\ndummyV2=-O b\n",
            [("dummy-compile", A)],
        ),
        (
            one_codegen,
            ["-C", "c.cfg", "--", "-o", "c.tvn", "d"],
            CODEGEN + "backend=dummy\ncommand=-o a.tvn in.circle\n",
            [("dummy-compile", ["-o", "c.tvn", "d"])],
        ),
        (
            one_codegen,
            ["-C", "c.cfg", "-o", "c.tvn", "d"],
            CODEGEN + "backend=dummy\ncommand=-o a.tvn in.circle\n",
            [("dummy-compile", ["-o", "c.tvn", "d"])],
        ),
        (
            one_profile,
            ["-C", "c.cfg", "-T", "no_file"],
            "[one-profile]\nbackend=dummy\ncommand=x.tvn\n",
            [("dummy-profile", ["--target", "no_file", "x.tvn"])],
        ),
        (
            one_codegen,
            ["-C", "c.cfg"],
            CODEGEN + "command=True\n\n[backend]\ntarget=sch_tgt\n",
            [("dummy-compile", ["--target", "sch_tgt", "--command"])],
        ),
        (
            one_codegen,
            ["-C", "c.cfg"],
            CODEGEN + "command=True\n__command=-o a.tvn in.circle\n\n[backend]\ntarget=sch_tgt\n",
            [("sch-compile", ["--target", "sch_tgt", *A])],
        ),
        (
            one_codegen,
            ["-C", "c.cfg"],
            CODEGEN + "backend=dummy\ncommand=-o a.tvn in.circle\n\n[backend]\ntarget=tgt\n",
            [("dummy-compile", ["--target", "tgt", *A])],
        ),
        (
            one_codegen,
            ["-C", "c.cfg", "-T", "tgt2"],
            CODEGEN + "command=-o a.tvn in.circle\n\n[backend]\ntarget=tgt\n",
            [("dummy-compile", ["--target", "tgt2", *A])],
        ),
        (
            one_codegen,
            ["-C", "c.cfg"],
            CODEGEN
            + "o=a.tvn\ninput=in.circle\nv=True\nquiet=False\n\n[backend]\ntarget=sch_tgt\n",
            [("dummy-compile", ["--target", "sch_tgt", "--verbose", *A])],
        ),
        (
            onecc.main,
            ["-C", "c.cfg", "-b", "dummyV2"],
            CODEGEN + "backends=dummy,dummyV2\ndummy=-o a.tvn in.circle\n"
            "dummyV2=-O b.tvn in.circle\n",
            [("dummyV2-compile", B)],
        ),
        (
            onecc.main,
            ["-C", "c.cfg", "-T", "tgt"],
            CODEGEN + "backend=dummy\ncommand=-o a.tvn in.circle\n",
            [("dummy-compile", ["--target", "tgt", *A])],
        ),
        (
            onecc.main,
            ["codegen", "-b", "dummy", "--", *A],
            None,
            [("dummy-compile", A)],
        ),
        (
            one_infer,
            ["-C", "c.cfg", "--", "x"],
            "[one-infer]\ndriver=dummy-infer\ncommand=y\n",
            [("dummy-infer", ["x", "y"])],
        ),
    ],
)
def test_argv(backends, main, args, config, expected):
    if config is not None:
        (backends.root.parent / "c.cfg").write_text(config)
    main(args)  # the exit status depends on whether the test tool accepts the argv
    assert backends.calls() == expected


def test_workflow_steps(backends, tmp_path):
    steps = {
        "C": {"one-cmd": "one-codegen", "commands": {"backend": "dummy", "command": " ".join(A)}},
        "P": {"one-cmd": "one-profile", "commands": {"target": "tgt", "command": "a.tvn"}},
        "I": {"one-cmd": "one-infer", "commands": {"driver": "dummy-infer", "command": "a.tvn"}},
    }
    workflow = {"workflows": ["W"], "W": {"steps": ["C", "P", "I"], **steps}}
    (tmp_path / "w.workflow.json").write_text(json.dumps(workflow))
    assert onecc.main(["-W", "w.workflow.json"]) == 0
    assert backends.calls() == [
        ("dummy-compile", A),
        ("dummy-profile", ["--target", "tgt", "a.tvn"]),
        ("dummy-infer", ["a.tvn"]),
    ]


def test_environment_reaches_the_tool(backends, tmp_path):
    (tmp_path / "c.cfg").write_text(
        CODEGEN + "backend=dummy\ncommand=-o a.tvn in.circle\n\n[Environment]\nONECC_TEST_X=1\n"
    )
    assert onecc.main(["-C", "c.cfg"]) == 0
    assert backends.envs() == [{"ONECC_TEST_X": "1"}]


def test_dry_run_runs_nothing(backends, capsys):
    assert one_codegen(["-b", "dummy", "--dry-run", "--", *A]) == 0
    assert one_codegen(["-b", "nothere", "--dry-run", "--", *A]) == 0
    out = capsys.readouterr().out
    assert f"runs: {backends.root / 'dummy-compile'} -o a.tvn in.circle" in out
    assert "runs: nothere-compile (not found)" in out
    assert backends.calls() == []


def test_child_output(backends, capfd, monkeypatch):
    assert one_profile(["-b", "dummy", "--", "x"]) == 0
    out, err = capfd.readouterr()
    assert out == "dummy-profile dummy output!!!\n"
    assert err == "dummy-profile: dummy-profile started\n"
    monkeypatch.setenv("ONECC_TEST_FAIL", "dummy-profile")
    assert one_profile(["-b", "dummy", "--", "x"]) == 255
    err = capfd.readouterr().err
    assert err.splitlines() == [
        "dummy-profile: dummy-profile started",
        "dummy-profile: dummy-profile failed on purpose",
        "one-profile: dummy-profile exited with code 3",
    ]


def test_post_process_after_success_only(backends, tmp_path, capfd):
    (tmp_path / "post.py").write_text("import sys\nprint('post', *sys.argv[1:])\n")
    assert one_infer(["-d", "dummy-infer", "--post-process", "post.py a  b", "--", "x"]) == 0
    assert capfd.readouterr().out == "dummy-infer dummy output!!!\npost a b\n"
    assert one_infer(["-d", "dummy-infer", "--post-process", "post.py", "--", "x", "y"]) == 255
    out, err = capfd.readouterr()
    assert "post" not in out
    assert "one-infer: dummy-infer exited with code 1" in err


@pytest.mark.parametrize(
    ("main", "config", "message"),
    [
        (
            one_codegen,
            "[one-codegen]\nbackend=dummy\n",
            "one-codegen: error: 'command' key is missing in the configuration file (file "
            "'c.cfg', section [one-codegen])",
        ),
        (
            one_profile,
            "[one-profile]\nbackend=dummy\n",
            "one-profile: error: 'command' key is missing in the configuration file",
        ),
        (
            one_codegen,
            "[one-codegen]\nbackend=dummy\ncommand=-o a b\n__command=-o a b\n",
            "one-codegen: 'command' and '__command' keys cannot be used simultaneously.",
        ),
    ],
)
def test_command_key_errors(backends, capsys, main, config, message):
    (backends.root.parent / "c.cfg").write_text(config)
    assert main(["-b", "dummy", "-C", "c.cfg"]) == 255
    assert message in capsys.readouterr().err
    assert backends.calls() == []
