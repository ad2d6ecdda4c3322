from one_cmds.cli import onecc
from one_cmds.cli.one_build import main as one_build

CONFIG = (
    "[onecc]\none-import-tflite=True\none-optimize=True\n"
    "[one-import-tflite]\ninput_path=m.tflite\noutput_path=m.circle\n"
    "[one-optimize]\ninput_path=m.circle\noutput_path=o.circle\n"
)


def write(path: str, text: str) -> str:
    with open(path, "w") as stream:
        stream.write(text)
    return path


def test_config_runs_the_plan(runs):
    write("a.cfg", CONFIG)
    assert onecc.main(["-C", "a.cfg"]) == 0
    [(plan, verbose)] = runs
    assert [s.driver for s in plan.steps] == ["one-import-tflite", "one-optimize"]
    assert verbose is False


def test_verbose_and_optimization_reach_the_plan(runs):
    write("a.cfg", CONFIG)
    assert onecc.main(["-C", "a.cfg", "-V", "-O1"]) == 0
    [(plan, verbose)] = runs
    assert verbose is True
    assert "fold_cast" in plan.steps[1].options.enabled_passes


def test_dry_run_runs_nothing(runs, capsys):
    write("a.cfg", CONFIG + "fuse_bcq=True\n[profile]\nprofile_info=True\n")
    assert onecc.main(["-C", "a.cfg", "--dry-run"]) == 0
    assert runs == []
    out = capsys.readouterr().out.splitlines()
    assert out[:6] == [
        "plan: a.cfg",
        "1. one-import-tflite [one-import-tflite]",
        "  input: m.tflite",
        "  output: m.circle",
        "  profiling metadata: yes",
        "  options:",
    ]
    assert "  input: in memory from one-import-tflite" in out
    assert "    passes = fuse_bcq" in out


def test_no_step_runs_nothing(runs, capsys):
    write("a.cfg", "[onecc]\n")
    assert onecc.main(["-C", "a.cfg"]) == 0
    assert runs == []
    assert "WARNING: no step is enabled" in capsys.readouterr().err


def test_workflow_runs_each_plan(runs):
    write(
        "w.json",
        '{"workflows": ["A", "B"], "A": {"steps": []}, "B": {"cfg-reference": {"path": "a.cfg"}}}',
    )
    write("a.cfg", CONFIG)
    assert onecc.main(["-W", "w.json"]) == 0
    assert [len(plan.steps) for plan, _ in runs] == [2]


def test_argument_checks(runs, capsys):
    assert onecc.main([]) == 2
    assert onecc.main(["-C", "a.cfg", "-O", "X Y"]) == 2
    assert onecc.main(["-C", "a.cfg", "-O3"]) == 2
    assert onecc.main(["-W", "w.json", "-b", "x"]) == 2
    assert onecc.main(["-C", "a.cfg", "-b", "x", "-T", "y"]) == 2
    errors = [line for line in capsys.readouterr().err.splitlines() if "error" in line]
    assert errors == [
        "onecc: error: -C/--config or -W/--workflow argument is required",
        "onecc: error: Not allowed to have space in the optimization name",
        "onecc: error: unrecognized arguments: -O3 (Invalid optimization option)",
        "onecc: error: 'backend' option can be used only with 'config' option",
        "onecc: error: 'backend' and 'target' are mutually exclusive option. 'target' option "
        "automatically set a backend.",
    ]


def test_version(capsys):
    assert onecc.main(["-v"]) == 0
    assert capsys.readouterr().out.startswith("onecc version ")


def test_subcommands(runs, capsys):
    assert onecc.main(["optimize", "-i", "a", "-o", "b", "--fuse_bcq"]) == 0
    assert runs[-1][0].steps[0].options.enabled_passes == ["fuse_bcq"]
    assert onecc.main(["import", "circle", "-i", "a", "-o", "b"]) == 0
    assert runs[-1][0].steps[0].driver == "one-import-circle"
    assert onecc.main(["resize", "-i", "a", "-o", "b", "-s", "[1,2]"]) == 0
    assert str(runs[-1][0].steps[0].options.input_shapes) == "[1,2]"
    assert onecc.main(["quantize", "-i", "a", "-o", "b", "--granularity", "channel"]) == 0
    assert runs[-1][0].steps[0].options.granularity == "channel"
    assert onecc.main(["pack", "-i", "a", "-o", "b"]) == 0
    assert runs[-1][0].steps[0].driver == "one-pack"
    assert onecc.main(["import", "tf", "-i", "a.pb", "-o", "b", "-I", "x", "-O", "y"]) == 0
    assert runs[-1][0].steps[0].driver == "one-import-tf"
    assert onecc.main(["import", "bcq", "-i", "a.pb", "-o", "b", "-I", "x", "-O", "y"]) == 0
    assert runs[-1][0].steps[0].driver == "one-import-bcq"
    assert onecc.main(["import"]) == 2
    err = capsys.readouterr().err
    assert "one-import: error: the following arguments are required: driver" in err


def test_subcommand_help_reaches_the_driver(capsys):
    assert onecc.main(["import", "tflite", "-h"]) == 0
    assert capsys.readouterr().out.startswith("usage: one-import-tflite")


def test_one_build(runs, capsys):
    write("a.cfg", CONFIG.replace("[onecc]", "[one-build]"))
    assert one_build(["-C", "a.cfg"]) == 0
    assert len(runs) == 1
    assert one_build([]) == 2
    assert "one-build: error: -C/--config argument is required" in capsys.readouterr().err
    write("b.cfg", CONFIG)
    assert one_build(["-C", "b.cfg"]) == 255
    assert "[one-build] section is required in configuraion file" in capsys.readouterr().err
