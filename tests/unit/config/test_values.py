import pytest

from one_cmds.config.source import Source, closest
from one_cmds.config.values import Kind, convert, to_bool
from one_cmds.errors import ConfigError, UsageError

SOURCE = Source(file="x.cfg", section="one-quantize")


@pytest.mark.parametrize("text", ["1", "yes", "TRUE", "On", " true "])
def test_true_strings(text):
    assert to_bool(text, SOURCE, "k") is True


@pytest.mark.parametrize("text", ["0", "no", "False", "OFF"])
def test_false_strings(text):
    assert to_bool(text, SOURCE, "k") is False


@pytest.mark.parametrize("value", ["maybe", "", "n", 1])
def test_bad_booleans(value):
    with pytest.raises(ConfigError, match=f"^Not a boolean: {value} "):
        to_bool(value, SOURCE, "k")


def test_error_context_names_file_section_key():
    with pytest.raises(ConfigError) as error:
        to_bool("maybe", SOURCE, "fold_cast")
    assert error.value.message == (
        "Not a boolean: maybe (file 'x.cfg', section [one-quantize], key 'fold_cast')"
    )


def test_command_line_errors_are_usage_errors_without_context():
    with pytest.raises(UsageError) as error:
        convert(Kind.INT, "x", Source(usage=True), "zero_point")
    assert error.value.message == "invalid int value: 'x'"
    assert error.value.exit_code == 2


def test_empty_string_is_not_set():
    for kind in Kind:
        assert convert(kind, "", SOURCE, "k") is None


@pytest.mark.parametrize(
    ("kind", "value", "expected"),
    [
        (Kind.INT, " 45 ", 45),
        (Kind.INT, 45, 45),
        (Kind.FLOAT, "2.1", 2.1),
        (Kind.FLOAT, 2, 2.0),
        (Kind.CSV, "uint8, int16", ["uint8", "int16"]),
        (Kind.CSV, ["uint8", "int16"], ["uint8", "int16"]),
        (Kind.STR_LIST, "input", ["input"]),
        (Kind.FLOAT_LIST, ["2.1", 3], [2.1, 3.0]),
        (Kind.INT_LIST, ["1", 2], [1, 2]),
        (Kind.RAW, 101, 101),
        (Kind.RAW, "average", "average"),
        (Kind.STR, "a b", "a b"),
    ],
)
def test_conversions(kind, value, expected):
    assert convert(kind, value, SOURCE, "k") == expected


@pytest.mark.parametrize(
    ("kind", "value", "message"),
    [
        (Kind.INT, "4.5", "invalid int value: '4.5'"),
        (Kind.INT, 4.5, "invalid int value: '4.5'"),
        (Kind.FLOAT, "x", "invalid float value: 'x'"),
        (Kind.STR, 5, "expected a string, got integer: 5"),
        (Kind.RAW, True, "expected a string or number, got boolean: True"),
        (Kind.CSV, 3, "expected a comma-separated list, got integer: 3"),
    ],
)
def test_conversion_errors(kind, value, message):
    with pytest.raises(ConfigError, match=message):
        convert(kind, value, SOURCE, "k")


def test_choice():
    choices = ("bisection", "pattern")
    assert convert(Kind.CHOICE, "pattern", SOURCE, "k", choices) == "pattern"
    with pytest.raises(ConfigError, match="invalid choice: 'x' \\(choose from 'bisection', "):
        convert(Kind.CHOICE, "x", SOURCE, "k", choices)


def test_closest_name():
    assert closest("granualrity", ["granularity", "mode"]) == "granularity"
    assert closest("zzz", ["granularity"]) is None
