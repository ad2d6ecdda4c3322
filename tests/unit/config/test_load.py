import pytest

from one_cmds.config.load import plan_from_arguments, plan_from_config
from one_cmds.errors import ConfigError, UsageError

IMPORT = "[one-import-tflite]\ninput_path=m.tflite\noutput_path=m.circle\n"
OPT = "[one-optimize]\ninput_path=m.circle\noutput_path=o.circle\n"
QUANT = "[one-quantize]\ninput_path=o.circle\noutput_path=q.circle\n"


def config(write, onecc: str, *sections: str, name: str = "a.cfg") -> str:
    return write(name, f"[onecc]\n{onecc}\n" + "\n".join(sections))


def error_of(path: str, kind=ConfigError, **kwargs) -> str:
    with pytest.raises(kind) as error:
        plan_from_config(path, **kwargs)
    return error.value.message


def test_steps_run_in_fixed_order(write):
    path = config(
        write,
        "one-quantize=True\none-optimize=True\none-import-tflite=True",
        QUANT,
        OPT,
        IMPORT,
    )
    plan = plan_from_config(path)
    assert [s.driver for s in plan.steps] == ["one-import-tflite", "one-optimize", "one-quantize"]
    assert [s.section for s in plan.steps] == ["one-import-tflite", "one-optimize", "one-quantize"]
    assert plan.config_path == "a.cfg"
    assert (plan.profile, plan.environment) == (False, {})


def test_environment_and_profile(write):
    path = config(
        write,
        "one-import-tflite=True",
        IMPORT + "generate_profile_data=False\n",
        '[Environment]\nSPM_SIZE=256KB\nQ="x"\n',
        "[profile]\ngenerate_profile_data=on\n",
    )
    plan = plan_from_config(path)
    assert plan.environment == {"SPM_SIZE": "256KB", "Q": '"x"'}
    assert plan.profile is True
    assert plan.steps[0].options.generate_profile_data is False


def test_o1_then_section_then_groups_then_cli(write, tmp_path, monkeypatch):
    write("groups/OG.cfg", "[one-optimize]\nfuse_bcq=True\nfold_cast=False\nfold_gather=False\n")
    monkeypatch.setenv("ONECC_OPTIMIZATION_PATH", str(tmp_path / "groups"))
    path = config(
        write,
        "one-optimize=True\ninclude=OG",
        OPT + "O1=True\nfold_add_v2=False\nconvert_nchw_to_nhwc=True\nfold_cast=True\n",
    )
    plan = plan_from_config(path, cli={"one-optimize": {"fold_gather": True}})
    passes = plan.steps[0].options.passes
    assert passes["fold_dwconv"] is True  # O1
    assert passes["fold_add_v2"] is False  # section beats O1
    assert passes["convert_nchw_to_nhwc"] is True
    assert passes["fuse_bcq"] is True  # group
    assert passes["fold_cast"] is False  # group beats section
    assert passes["fold_gather"] is True  # command line beats group


@pytest.mark.parametrize(("include", "optimization"), [("O1", None), ("", "O1")])
def test_builtin_o1_group_is_the_o1_key(write, include, optimization):
    """include=O1 or -O1 (no O1.cfg file): the O1 passes, below the section's keys (onecc_044)."""
    section = OPT + "fold_add_v2=False\nconvert_nchw_to_nhwc=True\n"
    path = config(write, f"one-optimize=True\ninclude={include}", section)
    passes = plan_from_config(path, optimization=optimization).steps[0].options.passes
    assert passes["fold_dwconv"] is True
    assert passes["fold_add_v2"] is False
    assert passes["convert_nchw_to_nhwc"] is True


@pytest.mark.parametrize(
    ("include", "optimization", "enabled"),
    [
        ("OA", None, ["fold_cast", "fuse_bcq"]),
        ("OA OB", None, ["fuse_bcq"]),  # every group, in order
        ("OA", "OB", []),  # -O replaces include
    ],
)
def test_groups(write, tmp_path, monkeypatch, include, optimization, enabled):
    write("OA.cfg", "[one-optimize]\nfold_cast=True\nfuse_bcq=True\n")
    write("OB.cfg", "[one-optimize]\nfold_cast=False\n")
    monkeypatch.setenv("ONECC_OPTIMIZATION_PATH", str(tmp_path))
    path = config(write, f"one-optimize=True\ninclude={include}", OPT)
    plan = plan_from_config(path, optimization=optimization)
    assert plan.steps[0].options.enabled_passes == enabled


def test_ini_and_toml_give_the_same_plan(write):
    ini = config(
        write,
        "one-import-tflite=True\none-quantize=True",
        IMPORT,
        QUANT + "granularity=channel\ninput_type=uint8,int16\nmin_percentile=2\nscale=2.1\n",
        "[profile]\nprofile_info=True\n",
    )
    toml = write(
        "a.toml",
        '[onecc]\none-import-tflite = true\none-quantize = "True"\n'
        '[one-import-tflite]\ninput_path = "m.tflite"\noutput_path = "m.circle"\n'
        '[one-quantize]\ninput_path = "o.circle"\noutput_path = "q.circle"\n'
        'granularity = "channel"\ninput_type = ["uint8", "int16"]\nmin_percentile = 2\n'
        "scale = [2.1]\n[profile]\nprofile_info = true\n",
    )
    first, second = plan_from_config(ini), plan_from_config(toml)
    assert first.steps == second.steps
    assert (first.profile, first.environment) == (second.profile, second.environment)


def test_both_switch_sections_enable_steps(write):
    path = write(
        "a.cfg", "[onecc]\none-optimize=True\n[one-build]\none-import-tflite=True\n" + IMPORT + OPT
    )
    assert [s.driver for s in plan_from_config(path).steps] == ["one-import-tflite", "one-optimize"]


def test_legacy_one_build(write, capsys):
    path = write("a.cfg", "[one-build]\none-import-tflite=True\none-infer=False\n" + IMPORT)
    assert len(plan_from_config(path, legacy=True).steps) == 1
    err = capsys.readouterr().err
    assert "WARNING: 'one-infer' has no effect in [one-build] and is ignored" in err
    assert "UserWarning" not in err
    plan_from_config(path)
    assert capsys.readouterr().err.startswith(
        "UserWarning: [one-build] section will be deprecated. Please use [onecc] section.\n"
    )
    other = config(write, "one-import-tflite=True", IMPORT, name="b.cfg")
    assert error_of(other, legacy=True).startswith(
        "[one-build] section is required in configuraion file"
    )


def test_validation_order(write):
    # Unrecognized sections are reported before a missing [onecc].
    path = write("a.cfg", "[bogus]\n" + IMPORT)
    assert error_of(path).startswith("the following sections are unrecognized: bogus")
    # [profile] before [Environment] before step sections.
    path = config(
        write, "one-optimize=True", OPT + "x=1\n", "[profile]\nbad=1\n", "[Environment]\n"
    )
    assert "unrecognized: bad" in error_of(path)
    # Enabled steps in execution order, then disabled sections.
    path = config(write, "one-optimize=True", OPT + "x=1\n", QUANT + "y=1\n")
    assert "unrecognized: x" in error_of(path)
    path = config(write, "one-import-tflite=True", IMPORT, QUANT + "mode=1\ny=1\n")
    assert "unrecognized: y" in error_of(path)


def test_enabled_step_needs_its_section(write):
    path = config(write, "one-codegen=True")
    assert error_of(path) == "configuration file must have 'one-codegen' section (file 'a.cfg')"


def test_disabled_sections_are_checked(write, capsys):
    tf = "[one-import-tf]\ninput_path=m.pb\noutput_path=m.circle\n"
    path = config(write, "one-import-tflite=True", IMPORT, tf, QUANT)
    assert len(plan_from_config(path).steps) == 1
    err = capsys.readouterr().err
    assert "is not used" not in err and "no step is enabled" not in err
    path = config(write, "one-import-tflite=True", IMPORT, tf + "anything=1\n", QUANT)
    assert "the following arguments are unrecognized: anything" in error_of(path)


def test_no_step(write, capsys):
    assert plan_from_config(config(write, "")).steps == []
    assert capsys.readouterr().err == "WARNING: no step is enabled\n"


def test_cli_values_for_disabled_or_unknown_sections(write, capsys):
    path = config(write, "one-import-tflite=True", IMPORT)
    plan_from_config(path, cli={"one-optimize": {"fold_cast": True}})
    assert "options given for [one-optimize] have no effect" in capsys.readouterr().err
    message = error_of(path, cli={"one-optimise": {}})
    assert message.startswith("the following sections are unrecognized: one-optimise")
    assert "did you mean 'one-optimize'?" in message


def test_cli_values_are_checked(write):
    path = config(write, "one-optimize=True", OPT)
    message = error_of(path, cli={"one-optimize": {"fold_cst": True}})
    assert message == (
        "the following arguments are unrecognized: fold_cst (command line, did you mean "
        "'fold_cast'?)"
    )


def test_backend_check(write):
    path = config(write, "one-codegen=True", "[one-codegen]\nbackends=a,b\na=x\n")
    assert error_of(path, backend="c").startswith("Not found the command of given backend")
    assert error_of(path, backend="a").startswith("Not found the command for b")


def test_expanduser(write, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    config(write, "one-import-tflite=True", IMPORT)
    assert plan_from_config("~/a.cfg").config_path == str(tmp_path / "a.cfg")


def test_arguments_without_config():
    plan = plan_from_arguments(
        "one-optimize", {"input_path": "a", "output_path": "b", "fuse_bcq": True, "O1": True}
    )
    assert plan.config_path is None
    step = plan.steps[0]
    assert (step.driver, step.section) == ("one-optimize", None)
    assert "fold_cast" in step.options.enabled_passes
    with pytest.raises(UsageError, match=r"required: -o/--output_path$"):
        plan_from_arguments("one-optimize", {"input_path": "a"})


def test_arguments_with_config_section(write):
    path = write(
        "a.cfg",
        "[one-optimize]\ninput_path=a\noutput_path=b\nfold_cast=False\n"
        "[custom]\ninput_path=c\noutput_path=d\n",
    )
    plan = plan_from_arguments("one-optimize", {"fold_cast": True}, config=path)
    assert plan.steps[0].options.enabled_passes == ["fold_cast"]
    assert plan.steps[0].section == "one-optimize"
    plan = plan_from_arguments("one-optimize", {}, config=path, section="custom", optimization="O1")
    assert plan.steps[0].options.input_path == "c"
    assert "fold_cast" in plan.steps[0].options.enabled_passes
    with pytest.raises(ConfigError, match="configuration file must have 'one-resize' section"):
        plan_from_arguments("one-resize", {}, config=path)
    with pytest.raises(ConfigError, match="required: input_shapes \\(file"):
        plan_from_arguments("one-resize", {}, config=path, section="custom")
