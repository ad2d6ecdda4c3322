import pytest

from one_cmds.config.reader import read_config
from one_cmds.errors import ConfigError


def test_ini_rules(write):
    write(
        "a.cfg",
        "; comment\n[one-optimize]\n# comment\nInput_Path = a  \nhash = v#c\n"
        'inline = v # c\nsemi = v ; c\nquoted = "Q"\npercent = 100%\nempty =\ncolon: x\n',
    )
    assert read_config("a.cfg").sections == {
        "one-optimize": {
            "Input_Path": "a",
            "hash": "v#c",
            "inline": "v",
            "semi": "v",
            "quoted": '"Q"',
            "percent": "100%",
            "empty": "",
            "colon": "x",
        }
    }


def test_default_section_is_an_ordinary_section(write):
    write("a.cfg", "[DEFAULT]\nx=1\n[onecc]\n")
    assert read_config("a.cfg").sections == {"DEFAULT": {"x": "1"}, "onecc": {}}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "[s]\n[s]\n",
            "While reading from 'a.cfg' [line  2]: section 's' already exists",
        ),
        (
            "[s]\nk=1\nk=2\n",
            "While reading from 'a.cfg' [line  3]: option 'k' in section 's' already exists",
        ),
        ("k=1\n", "File contains no section headers. file: 'a.cfg', line: 1 'k=1\\n'"),
    ],
)
def test_ini_errors(write, text, message):
    write("a.cfg", text)
    with pytest.raises(ConfigError) as error:
        read_config("a.cfg")
    assert error.value.message == message


@pytest.mark.parametrize("path", ["missing.cfg", "."])
def test_not_found(write, path):
    with pytest.raises(ConfigError, match=r"^Not found given configuration file"):
        read_config(path)


def test_toml_sections(write):
    write("a.TOML", "[onecc]\none-optimize = true\n[one-quantize]\nscale = [2.1]\n")
    assert read_config("a.TOML").sections == {
        "onecc": {"one-optimize": True},
        "one-quantize": {"scale": [2.1]},
    }


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("x = 1\n", "key 'x' is outside any section (file 'a.toml')"),
        ("[a.b]\nx = 1\n", "nested table [a.b] is not allowed"),
        ("[[a]]\nx = 1\n", "array of tables [[a]] is not allowed"),
        ("[a]\nx = [[1]]\n", "expected an array of plain values"),
        ("[a]\nx = \n", "(file 'a.toml')"),
    ],
)
def test_toml_errors(write, text, message):
    write("a.toml", text)
    with pytest.raises(ConfigError) as error:
        read_config("a.toml")
    assert message in error.value.message
