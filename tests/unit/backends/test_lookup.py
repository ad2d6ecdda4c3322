"""Tool, schema and target lookup (backends-and-packaging.md §1.4, §1.5) and schema checks
(§2.4)."""

import os

import pytest

from one_cmds.backends import lookup, schema
from one_cmds.backends.target import target_backend
from one_cmds.errors import ConfigError

from .conftest import install


def test_roots_in_order(tmp_path, monkeypatch):
    first, second = tmp_path / "a", tmp_path / "b"
    install(first / "deep", "x-compile")
    install(second, "x-compile")
    monkeypatch.setenv("ONECC_BACKEND_PATH", os.pathsep.join(["", str(first), str(second)]))
    assert lookup.backend_roots() == [str(first), str(second), str(lookup.PACKAGE_BACKENDS)]
    assert lookup.find_tool("x-compile") == str(first / "deep" / "x-compile")
    (first / "deep" / "x-compile").chmod(0o644)
    assert lookup.find_tool("x-compile") == str(second / "x-compile")
    assert lookup.available("compile") == ["x-compile"]


def test_path_is_last(tmp_path, monkeypatch):
    install(tmp_path / "bin", "y-infer")
    monkeypatch.setenv("ONECC_BACKEND_PATH", str(tmp_path / "empty"))
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    assert lookup.find_tool("y-infer") == str(tmp_path / "bin" / "y-infer")
    assert lookup.find_tool("z-infer") is None
    assert lookup.available("infer") == []
    assert lookup.backend_help("compile") == (
        "backend name to use (There is no available backend drivers)"
    )


def test_the_package_root_holds_no_tool(monkeypatch):
    monkeypatch.delenv("ONECC_BACKEND_PATH", raising=False)
    assert lookup.available("compile") == lookup.available("profile") == []
    assert lookup.find_schema("dummy", "codegen") is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (None, "Not found given target configuration: t"),
        ("TARGET=u\nBACKEND=b\n", "Invalid target file."),
        ("BACKEND=b\n", "Invalid target file."),
        ("TARGET=t\n", "Not found 'BACKEND' key in target configuration."),
        ("TARGET=t\nBACKEND=\n", "Not found t target."),
    ],
)
def test_target_errors(tmp_path, monkeypatch, text, message):
    monkeypatch.setenv("ONECC_TARGET_PATH", str(tmp_path))
    if text is not None:
        (tmp_path / "t.ini").write_text(text)
    with pytest.raises(ConfigError) as error:
        target_backend("t")
    assert error.value.message == message


def test_target_backend(tmp_path, monkeypatch):
    monkeypatch.setenv("ONECC_TARGET_PATH", str(tmp_path))
    (tmp_path / "t.ini").write_text("# comment\nTARGET=t\nBACKEND = npu\nOTHER=1\n")
    assert target_backend("t") == "npu"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            '("--a", action=NormalOption)\n    p.add_argument("--a", action=NormalOption)',
            "Duplicate option names",
        ),
        ('("--a")', '"action" keyword argument is required'),
        ('("--a", action=int)', "Invalid action"),
        ('("", action=NormalOption)', "Invalid option name"),
        ('("d-compile", action=DriverName)', "onecc doesn't support multiple driver name"),
        ('("--t", action=TargetOption, dtype=bool)', "Only normal option can be boolean type"),
        (
            '("flag", action=NormalOption, dtype=bool)',
            'Boolean type option should start with dash("-")',
        ),
        (
            '("--a", "a", action=NormalOption)',
            "Invalid option names. Only either of option type is allowed: positional or optional",
        ),
    ],
)
def test_schema_errors(tmp_path, arguments, message):
    path = tmp_path / "codegen.py"
    path.write_text(
        "from onelib.argumentparse import ArgumentParser, DriverName, NormalOption, "
        "TargetOption\n\n\ndef command_schema():\n    p = ArgumentParser()\n"
        '    p.add_argument("c-compile", action=DriverName)\n'
        f"    p.add_argument{arguments}\n    return p\n"
    )
    with pytest.raises(ConfigError) as error:
        schema.load_schema(str(path))
    assert error.value.message == message


def test_schema_without_function(tmp_path):
    path = tmp_path / "codegen.py"
    path.write_text("x = 1\n")
    with pytest.raises(ConfigError, match='You must implement "command_schema" method'):
        schema.load_schema(str(path))


def _install_tree(root):
    """<root>/{bin,backends,target,optimization} with onecc in bin (the reference's layout)."""
    (root / "bin").mkdir(parents=True)
    (root / "bin" / "onecc").write_text("")
    install(root / "bin", "near-compile")
    install(root / "backends" / "far" / "bin", "far-compile")
    install(root / "backends" / "far" / "bin", "near-compile")
    (root / "backends" / "command" / "far").mkdir(parents=True)
    (root / "backends" / "command" / "far" / "codegen.py").write_text("")
    (root / "target").mkdir()
    (root / "target" / "t.ini").write_text("TARGET=t\nBACKEND=far\n")
    (root / "optimization").mkdir()
    (root / "optimization" / "Ofast.cfg").write_text("[one-optimize]\n")


def test_the_install_tree_after_the_variables(tmp_path, monkeypatch):
    from one_cmds.config.groups import available_groups

    _install_tree(tmp_path / "one")
    for name in ("ONECC_BACKEND_PATH", "ONECC_TARGET_PATH", "ONECC_OPTIMIZATION_PATH"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr("sys.argv", [str(tmp_path / "one" / "bin" / "onecc")])
    bin_, backends = tmp_path / "one" / "bin", tmp_path / "one" / "backends"
    assert lookup.find_tool("near-compile") == str(bin_ / "near-compile")
    assert lookup.find_tool("far-compile") == str(backends / "far" / "bin" / "far-compile")
    assert lookup.available("compile") == ["far-compile", "near-compile"]
    assert lookup.find_schema("far", "codegen") == str(backends / "command" / "far" / "codegen.py")
    assert target_backend("t") == "far"
    assert available_groups()["Ofast"] == str(tmp_path / "one" / "optimization" / "Ofast.cfg")

    elsewhere = tmp_path / "variables"
    install(elsewhere, "near-compile")
    (elsewhere / "t.ini").write_text("TARGET=t\nBACKEND=other\n")
    (elsewhere / "Ofast.cfg").write_text("[one-optimize]\n")
    for name in ("ONECC_BACKEND_PATH", "ONECC_TARGET_PATH", "ONECC_OPTIMIZATION_PATH"):
        monkeypatch.setenv(name, str(elsewhere))
    assert lookup.find_tool("near-compile") == str(elsewhere / "near-compile")
    assert target_backend("t") == "other"
    assert available_groups()["Ofast"] == str(elsewhere / "Ofast.cfg")
