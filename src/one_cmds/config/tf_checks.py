"""Verification of ``one-import-tf`` and ``one-import-bcq`` after merging
(tf-and-pytorch-import.md §2.2, §3.1, §3.2 rows 1-5, §3.3, §4.2): required paths; the
converter version and model format from their keys and flags (flags beat keys, a conflict
at one level is an error); the extra installed; then, for a GraphDef, the arrays and the
input shapes parsed once, or, for a SavedModel or Keras file, the arrays dropped with a
warning."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from one_cmds.config.checks import Verify, verify_required
from one_cmds.config.source import Source
from one_cmds.config.tables import Option
from one_cmds.config.tf_tables import FORMATS, VERSIONS
from one_cmds.config.values import Settings
from one_cmds.errors import StageError
from one_cmds.ir.shape_list import ShapeList
from one_cmds.report.console import warn

# The place of values given on a driver's command line (config.load): they beat the section.
_COMMAND_LINE = "command line"
_ARRAYS = ("input_arrays", "input_shapes", "output_arrays")


class _Choice(NamedTuple):
    """A value selected by a key (``converter_version=v2``) or a flag (``v2=True``)."""

    value: str
    text: str
    source: Source


def verify_tf(options: tuple[Option, ...], formats: Sequence[str] = FORMATS) -> Verify:
    """The verification of a TensorFlow import whose model formats are ``formats``."""
    required = verify_required(options)
    format_flags = tuple(name for name in FORMATS if any(o.name == name for o in options))

    def verify(settings: Settings, main: Source) -> dict[str, object]:
        from one_cmds.extras import TENSORFLOW

        fields = required(settings, main)
        version = _selected(settings, "converter_version", VERSIONS, VERSIONS)
        model_format = _selected(settings, "model_format", tuple(formats), format_flags)
        TENSORFLOW.check_installed()
        for name in (*VERSIONS, *format_flags):
            fields.pop(name, None)
        fields["model_format"] = model_format.value if model_format else "graph_def"
        fields["converter_version"] = version.value if version else "v1"
        if fields["model_format"] == "graph_def":
            _check_arrays(fields, main)
        else:
            _drop_arrays(fields, str(fields["model_format"]))
        if fields["model_format"] == "keras_model":
            if version is not None and version.value == "v1":
                warn("model_format=keras_model always uses the 2.x converter")
            fields["converter_version"] = "v2"
        if fields["converter_version"] == "v1" and fields.pop(
            "experimental_disable_batchmatmul_unfold", False
        ):
            warn("'experimental_disable_batchmatmul_unfold' has no effect with "
                 "converter_version=v1 and is ignored")  # fmt: skip
        return fields

    return verify


def _selected(
    settings: Settings, key: str, choices: tuple[str, ...], flags: tuple[str, ...]
) -> _Choice | None:
    """The value ``key`` selects, by itself or by one of the boolean ``flags``; None when
    neither is given. An invalid value is argparse's ``invalid choice`` error."""
    given = []
    if key in settings:
        value, source = str(settings[key].value), settings[key].source
        if value not in choices:
            listed = ", ".join(f"'{c}'" for c in choices)
            message = f"argument --{key}: invalid choice: '{value}' (choose from {listed})"
            raise source.error(message, key=key)
        given.append(_Choice(value, f"{key}={value}", source))
    given += [
        _Choice(flag, f"{flag}=True", settings[flag].source)
        for flag in flags
        if flag in settings and settings[flag].value
    ]
    strongest = [c for c in given if c.source.place == _COMMAND_LINE] or given
    for other in strongest[1:]:
        if other.value != strongest[0].value:
            raise other.source.error(f"{strongest[0].text} conflicts with {other.text}")
    return strongest[0] if strongest else None


def _check_arrays(fields: dict[str, object], main: Source) -> None:
    """§3.2 rows 1-5 in order; ``input_shapes`` becomes one shape per input array."""
    inputs, outputs = fields.get("input_arrays"), fields.get("output_arrays")
    text = fields.get("input_shapes")
    if text is not None:
        if not inputs:
            raise _value_error("--input_shapes must be used with --input_arrays", main)
        groups = str(text).split(":")
        if len(groups) != len(inputs):  # type: ignore[arg-type]
            message = "--input_shapes and --input_arrays must have the same number of items"
            raise _value_error(message, main)
        fields["input_shapes"] = ShapeList([_dims(g, str(text), main) for g in groups], str(text))
    for key, value in (("input_arrays", inputs), ("output_arrays", outputs)):
        if not value:
            raise _value_error(f"--{key} must be provided", main)


def _dims(group: str, text: str, main: Source) -> tuple[int, ...]:
    """The dimensions of one input's shape: integers >= 1 (``int()`` of each item)."""
    dims = []
    for item in group.split(","):
        try:
            dim = int(item)
        except ValueError as e:
            raise _value_error(str(e), main) from None
        if dim < 1:
            message = f"invalid dimension {dim} in input_shapes '{text}' (dimensions must be >= 1)"
            raise _value_error(message, main)
        dims.append(dim)
    return tuple(dims)


def _value_error(message: str, main: Source) -> StageError:
    """The reference's ``ValueError: <message>`` (exit 255, also on a command line)."""
    return StageError(f"ValueError: {message}{main.context()}")


def _drop_arrays(fields: dict[str, object], model_format: str) -> None:
    for key in _ARRAYS:
        if fields.pop(key, None) is not None:
            warn(f"'{key}' has no effect with model_format={model_format} and is ignored "
                 "(use one-resize)")  # fmt: skip
