"""Checks of the global sections: section names, [onecc]/[one-build], [profile],
[Environment], [backend] and the ``-b`` check (cli-and-config.md §5, §8, §9, §11, §12)."""

from __future__ import annotations

from dataclasses import dataclass, field

from one_cmds.config.groups import include_names
from one_cmds.config.reader import ConfigFile
from one_cmds.config.source import same_option, unrecognized
from one_cmds.config.steps import (
    ALL_STEPS,
    BACKEND,
    BACKEND_STEPS,
    ENVIRONMENT,
    IMPORT_SWITCHES,
    KNOWN_SECTIONS,
    LEGACY_STEPS,
    ONE_BUILD,
    ONECC,
    PROFILE,
)
from one_cmds.config.values import Kind, convert, to_bool, type_name
from one_cmds.report.console import notice, warn

LEGACY_WARNING = "UserWarning: [one-build] section will be deprecated. Please use [onecc] section."
PROFILE_KEYS = ("profile_info", "generate_profile_data")


@dataclass
class Switches:
    """What [onecc] (or [one-build]) asks for."""

    enabled: list[str] = field(default_factory=list)
    include: list[str] = field(default_factory=list)
    section: str = ONECC


def check_section_names(config: ConfigFile) -> None:
    """``the following sections are unrecognized: <names>``."""
    unknown = [name for name in config.sections if name not in KNOWN_SECTIONS]
    if unknown:
        raise unrecognized("sections", unknown, KNOWN_SECTIONS, config.source())


def check_backend(config: ConfigFile, backend: str) -> None:
    """Check 5 of §5: ``-b`` against [one-codegen] and [one-profile]."""
    for step in BACKEND_STEPS:
        if step not in config.sections:
            continue
        raw = config.sections[step]
        source = config.source(step)
        if "backend" in raw and "backends" in raw:
            raise source.error(
                "'backend' option and 'backends' option cannot be used simultaneously."
            )
        if "backend" in raw and raw["backend"] != backend:
            raise source.error("Not found the command of given backend", key="backend")
        if "backends" in raw:
            value = raw["backends"]
            names = value if isinstance(value, list) else str(value).split(",")
            names = [str(name).strip() for name in names]
            if backend not in names:
                raise source.error("Not found the command of given backend", key="backends")
            for name in names:
                if name not in raw:
                    raise source.error(f"Not found the command for {name}", key="backends")


def _switch_sections(config: ConfigFile, legacy: bool) -> list[str]:
    sections = config.sections
    if legacy:
        if ONE_BUILD not in sections:
            raise config.source().error("[one-build] section is required in configuraion file")
        if ONECC in sections:
            warn("[onecc] is not used by one-build")
        return [ONE_BUILD]
    if ONECC in sections:
        return [ONECC] + ([ONE_BUILD] if ONE_BUILD in sections else [])
    if ONE_BUILD not in sections:
        raise config.source().error("[onecc] section is required in configuration file")
    notice(LEGACY_WARNING)
    return [ONE_BUILD]


def read_switches(config: ConfigFile, *, legacy: bool = False) -> Switches:
    """Enabled steps (execution order) and ``include`` groups; a step runs if any of the
    switch sections enables it."""
    names = _switch_sections(config, legacy)
    switches = Switches(section=names[0])
    steps = LEGACY_STEPS if legacy else ALL_STEPS
    enabled: set[str] = set()
    includes = []
    for name in names:
        source = config.source(name)
        raw = config.sections[name]
        valid = (*steps, "include")
        unknown = [key for key in raw if key not in valid and key not in ALL_STEPS]
        if unknown:
            raise unrecognized("arguments", unknown, valid, source)
        for key, value in raw.items():
            if key == "include":
                includes.append(include_names(value, source))
            elif key not in steps:
                warn(f"'{key}' has no effect in [{name}] and is ignored")
            elif to_bool(value, source, key):
                enabled.add(key)
    switches.enabled = [step for step in steps if step in enabled]
    switches.include = includes[0] if includes else []
    if len([step for step in switches.enabled if step in IMPORT_SWITCHES]) > 1:
        raise config.source(switches.section).error("Only one import-* driver can be executed")
    return switches


def read_profile(config: ConfigFile) -> bool:
    """The global ``[profile] profile_info`` (alias ``generate_profile_data``); default False."""
    raw = config.sections.get(PROFILE, {})
    source = config.source(PROFILE)
    unknown = [key for key in raw if key not in PROFILE_KEYS]
    if unknown:
        raise unrecognized("arguments", unknown, PROFILE_KEYS, source)
    if all(key in raw for key in PROFILE_KEYS):
        raise same_option(*PROFILE_KEYS, source)
    return any(convert(Kind.BOOL, value, source, key) for key, value in raw.items())


def read_environment(config: ConfigFile) -> dict[str, str]:
    """[Environment]: raw string values, keys as written."""
    source = config.source(ENVIRONMENT)
    environment = {}
    for key, value in config.sections.get(ENVIRONMENT, {}).items():
        if not isinstance(value, str):
            raise source.error(f"expected a string, got {type_name(value)}", key=key)
        environment[key] = value
    return environment


def check_backend_section(config: ConfigFile) -> None:
    """[backend] holds only ``target``."""
    raw = config.sections.get(BACKEND, {})
    unknown = [key for key in raw if key != "target"]
    if unknown:
        raise unrecognized("arguments", unknown, ("target",), config.source(BACKEND))


def read_target(config: ConfigFile) -> str | None:
    """``[backend] target`` (None when absent or empty)."""
    value = config.sections.get(BACKEND, {}).get("target")
    return None if value is None or value == "" else str(value)
