import pytest

from one_cmds.cli import drivers
from one_cmds.cli.programs import PROGRAMS, main_for
from one_cmds.config.backend_steps import BACKEND_DRIVERS
from one_cmds.config.drivers import DRIVERS


def test_optimize_options_from_the_command_line(runs):
    argv = [
        "-i",
        "a.circle",
        "-o",
        "b.circle",
        "--O1",
        "--fuse_bcq",
        "-p",
        "--change_outputs",
        "x,y",
        "-V",
    ]
    assert drivers.one_optimize(argv) == 0
    [(plan, verbose)] = runs
    options = plan.steps[0].options
    assert verbose is True
    assert "fuse_bcq" in options.enabled_passes and "fold_cast" in options.enabled_passes
    assert options.generate_profile_data is True
    assert options.change_outputs == ["x", "y"]


def test_quantize_repeatable_options(runs):
    argv = [
        "-i",
        "a",
        "-o",
        "b",
        "--force_quantparam",
        "--tensor_name",
        "t1",
        "--scale",
        "1.5",
        "--zero_point",
        "3",
        "--tensor_name",
        "t2",
        "--scale",
        "2",
        "--zero_point",
        "4",
    ]
    assert drivers.one_quantize(argv) == 0
    options = runs[0][0].steps[0].options
    assert (options.tensor_name, options.scale, options.zero_point) == (
        ["t1", "t2"],
        [1.5, 2.0],
        [3, 4],
    )


def test_config_section_and_overrides(runs):
    with open("a.cfg", "w") as stream:
        stream.write(
            "[one-resize]\ninput_path=a\noutput_path=b\ninput_shapes=[1]\n"
            "[other]\ninput_path=c\noutput_path=d\ninput_shapes=[2]\n"
        )
    assert drivers.one_resize(["-C", "a.cfg", "-s", "[3]"]) == 0
    assert drivers.one_resize(["-C", "a.cfg", "-S", "other"]) == 0
    assert [str(plan.steps[0].options.input_shapes) for plan, _ in runs] == ["[3]", "[2]"]
    assert runs[1][0].steps[0].options.input_path == "c"


def test_hidden_optimization_option(runs, capsys):
    assert drivers.one_optimize(["-i", "a", "-o", "b", "-O1"]) == 0
    assert "fold_cast" in runs[0][0].steps[0].options.enabled_passes
    assert drivers.one_optimize(["-i", "a", "-o", "b", "-O7"]) == 2
    assert "one-optimize: error: Invalid optimization option" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("main", "argv", "message"),
    [
        (
            drivers.one_resize,
            ["-i", "a"],
            "The following arguments are required: output_path input_shapes",
        ),
        (drivers.one_import_tflite, ["-o", "b"], "required: -i/--input_path"),
        (drivers.one_optimize, ["-i", "a", "--fold_cst"], "unrecognized arguments: --fold_cst"),
        (drivers.one_optimize, ["-i", "a", "--fold"], "unrecognized arguments: --fold"),
        (
            drivers.one_quantize,
            ["-i", "a", "-o", "b", "--granularity", "x"],
            "Unsupported granularity",
        ),
    ],
)
def test_argument_errors_exit_2(runs, capsys, main, argv, message):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.startswith("usage: ")
    assert runs == []


def test_version(capsys):
    assert drivers.one_quantize(["-v"]) == 0
    assert capsys.readouterr().out.startswith("one-quantize version ")


def test_programs():
    assert set(drivers.MAINS) == set(DRIVERS) | set(BACKEND_DRIVERS)
    assert main_for("/x/drivers/one-optimize") is drivers.one_optimize
    assert main_for("onecc") is PROGRAMS["onecc"]
    assert main_for("renamed") is PROGRAMS["onecc"]
