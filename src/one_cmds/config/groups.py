"""Optimization groups: ``O<NAME>.cfg`` files, ``include=`` and ``-O`` (cli-and-config.md §4,
§13). The built-in ``O1`` group is the O1 list; ``configs/O1.cfg`` is generated from it
(``python -m one_cmds.config.groups > configs/O1.cfg``)."""

from __future__ import annotations

import configparser
import glob
import os
from collections.abc import Sequence

from one_cmds.backends.lookup import install_folders
from one_cmds.config.passes import O1_PASSES, PASS_NAMES
from one_cmds.config.reader import parse_ini, read_text
from one_cmds.config.source import Source, unrecognized
from one_cmds.config.values import Setting, Settings, to_bool
from one_cmds.errors import UsageError
from one_cmds.report.console import out

SEARCH_PATH_VARIABLE = "ONECC_OPTIMIZATION_PATH"
GROUP_SECTION = "one-optimize"
GROUP_KEYS = ("O1", *PASS_NAMES)
NOT_FOUND = "Not found given optimization configuration file"
BUILTIN = "O1"
INVALID_GROUP = "Invalid optimization option"


def o1_cfg_text() -> str:
    """The text of ``O1.cfg``: one [one-optimize] section, each O1 pass ``name = True``."""
    return "".join([f"[{GROUP_SECTION}]\n", *(f"{name} = True\n" for name in O1_PASSES)])


def available_groups() -> dict[str, str | None]:
    """Group name -> file, searching ``ONECC_OPTIMIZATION_PATH``, then ``<install>/optimization``
    (backends-and-packaging.md §1.4), then the built-in ``O1`` (None); the first file of a name
    wins; paths with a space and unreadable files are dropped."""
    found: dict[str, str | None] = {}
    variable = os.environ.get(SEARCH_PATH_VARIABLE, "").split(os.pathsep)
    for folder in [*variable, *install_folders("optimization")]:
        if not folder:
            continue
        for path in sorted(glob.glob(os.path.join(glob.escape(folder), "O*.cfg"))):
            name = os.path.basename(path)[: -len(".cfg")]
            usable = " " not in path and os.path.isfile(path) and os.access(path, os.R_OK)
            if usable and name not in found:
                found[name] = path
    found.setdefault(BUILTIN, None)
    return found


def check_optimization_name(group: str, unknown: str = INVALID_GROUP) -> None:
    """The ``-O`` checks of §5 (2a, 2b) on a group name such as ``O1`` (exit 2); ``unknown``
    is the message for a name no group has."""
    if " " in group:
        raise UsageError("Not allowed to have space in the optimization name")
    if group not in available_groups():
        raise UsageError(unknown)


def include_names(value: object, source: Source) -> list[str]:
    """Group names of an ``include`` value (whitespace-separated string or array)."""
    tokens = value.split() if isinstance(value, str) else value
    if not isinstance(tokens, list) or not all(isinstance(t, str) for t in tokens):
        raise source.error("include must be a string or an array of strings", key="include")
    for token in tokens:
        if not token.startswith("O") or len(token) < 2:
            raise source.error("Invalid group option", key="include", hint=f"group '{token}'")
    return tokens


def _group_values(sections: dict[str, dict[str, object]], path: str) -> Settings:
    if list(sections) != [GROUP_SECTION]:
        raise Source(file=path).error(
            "Optimization configuration file only allowed to have a 'one-optimize' section"
        )
    source = Source(file=path, section=GROUP_SECTION)
    raw = sections[GROUP_SECTION]
    unknown = [key for key in raw if key not in GROUP_KEYS]
    if unknown:
        raise unrecognized("arguments", unknown, GROUP_KEYS, source)
    flags = {key: to_bool(value, source, key) for key, value in raw.items() if value != ""}
    settings = o1_settings(source) if flags.pop("O1", False) else {}
    settings.update({key: Setting(flag, source) for key, flag in flags.items()})
    return settings


def o1_settings(source: Source) -> Settings:
    """Every O1 pass switched on, given at ``source``."""
    return {name: Setting(True, source) for name in O1_PASSES}


def load_groups(names: Sequence[str], source: Source) -> tuple[bool, list[Settings]]:
    """Whether the built-in ``O1`` is among ``names`` (it switches the O1 passes on as the key
    ``O1`` does, below the section's own keys: onecc_044), and the pass switches of the group
    files, in order (above the section's keys: onecc_024); ``source`` is where the names were
    given."""
    groups = available_groups()
    for name in names:
        if name not in groups:
            raise source.error(NOT_FOUND, hint=f"group '{name}'")
    files = [path for name in names if (path := groups[name]) is not None]
    return len(files) < len(names), [_load_group(path) for path in files]


def _load_group(path: str) -> Settings:
    """The pass switches of the group file ``path`` (its ``O1`` key expanded first)."""
    try:
        sections = parse_ini(read_text(path, NOT_FOUND), path)
    except configparser.Error:
        raise Source(file=path).error(NOT_FOUND) from None
    return _group_values(sections, path)


if __name__ == "__main__":
    for line in o1_cfg_text().splitlines():
        out(line)
