"""From raw values to a step's option model: key checks, conversion, O1 expansion and the
precedence of cli-and-config.md §14.2 (CLI > groups > section > O1 > defaults)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from one_cmds.config.drivers import DRIVERS, REFERENCE_KEYS
from one_cmds.config.groups import o1_settings

if TYPE_CHECKING:
    from one_cmds.stages.options import DriverOptions
from one_cmds.config.source import Source, same_option, unrecognized
from one_cmds.config.tables import LEGACY_OPTIMIZE_KEYS
from one_cmds.config.values import Setting, Settings, convert
from one_cmds.report.console import warn

OPTIMIZE = "one-optimize"


def _no_effect_keys(driver: str) -> frozenset[str]:
    """Keys the reference accepts in this driver's section although they do nothing here."""
    if driver == OPTIMIZE:
        return LEGACY_OPTIMIZE_KEYS
    spec = DRIVERS[driver]
    return frozenset(REFERENCE_KEYS - set(spec.keys)) | spec.ignored


def convert_values(driver: str, raw: Mapping[str, object], source: Source) -> Settings:
    """Check the keys of one section (or workflow step, or command line) and convert values.

    Unknown keys are an error naming the closest valid key; reference keys without effect
    here give one warning each. Aliases are folded into their option.
    """
    spec = DRIVERS[driver]
    keys = spec.keys
    ignored = _no_effect_keys(driver)
    unknown = [key for key in raw if key not in keys and key not in ignored]
    if unknown:
        raise unrecognized("arguments", unknown, keys, source)
    settings: Settings = {}
    given_as: dict[str, str] = {}
    for key, value in raw.items():
        if key in ignored:
            warn(f"'{key}' has no effect in [{source.section or driver}] and is ignored")
            continue
        option = spec.option(key)
        converted = convert(option.kind, value, source, key, option.choices)
        if converted is None:
            continue
        name = option.alias_of or key
        if name in settings:
            raise same_option(given_as[name], key, source)
        settings[name] = Setting(converted, source)
        given_as[name] = key
    return settings


def build_options(
    driver: str,
    *,
    main: Source,
    section: Settings,
    groups: Sequence[Settings] = (),
    cli: Settings | None = None,
    o1_group: Source | None = None,
) -> DriverOptions:
    """Merge the converted layers, verify them and build the option model.

    ``main`` is where the step is defined (its section, workflow step or command line); it
    names missing required options. ``o1_group``: where the built-in ``O1`` group was named
    (``include=O1``, ``-O1``), which switches the O1 passes on as the ``O1`` key does.
    """
    cli = cli or {}
    merged: Settings = {}
    o1 = cli.get("O1") or section.get("O1")
    if driver == OPTIMIZE and o1 is not None and o1.value:
        merged.update(o1_settings(o1.source))
    elif driver == OPTIMIZE and o1_group is not None:
        merged.update(o1_settings(o1_group))
    merged.update(section)
    for group in groups:
        merged.update(group)
    merged.update(cli)
    for key in ("O1", "O"):
        merged.pop(key, None)
    spec = DRIVERS[driver]
    fields = spec.verify(merged, main)  # before the model loads: errors stay quick
    return spec.model.model_validate(fields)
