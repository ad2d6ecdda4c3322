from one_cmds.cli.app import ArgumentParser, run
from one_cmds.errors import ConfigError, StageError, UsageError


def test_usage_error_prints_usage_and_exits_2(capsys):
    def body(invocation):
        invocation.parser = ArgumentParser(prog="tool")
        raise UsageError("bad")

    assert run("tool", body) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: tool [-h]\n")
    assert err.endswith("tool: error: bad\n")


def test_argparse_errors_use_their_parser(capsys):
    def body(invocation):
        ArgumentParser(prog="one-import").parse_args(["x"])

    assert run("onecc", body) == 2
    assert "one-import: error: unrecognized arguments: x" in capsys.readouterr().err


def test_help_exits_0(capsys):
    assert run("tool", lambda invocation: ArgumentParser(prog="tool").parse_args(["-h"])) == 0
    assert "usage: tool" in capsys.readouterr().out


def test_project_errors_exit_255_with_prog(capsys):
    def config_error(invocation):
        raise ConfigError("Not found given configuration file")

    def step_error(invocation):
        raise StageError("Change outputs failed", prog="one-optimize")

    assert run("onecc", config_error) == 255
    assert capsys.readouterr().err == "onecc: Not found given configuration file\n"
    assert run("onecc", step_error) == 255
    assert capsys.readouterr().err == "one-optimize: Change outputs failed\n"


def test_internal_error(capsys):
    def broken(invocation):
        raise KeyError("x")

    assert run("onecc", broken) == 255
    assert capsys.readouterr().err == "onecc: internal error: KeyError: 'x'\n"

    def verbose(invocation):
        invocation.verbose = True
        raise ValueError("boom")

    assert run("onecc", verbose) == 255
    err = capsys.readouterr().err
    assert "Traceback" in err
    assert err.endswith("onecc: internal error: ValueError: boom\n")
