"""Reading configuration files: INI (configparser) and TOML (tomllib) into sections of raw
values (cli-and-config.md §7)."""

from __future__ import annotations

import configparser
import os
import sys
from dataclasses import dataclass

from one_cmds.config.source import Source
from one_cmds.config.values import type_name
from one_cmds.errors import ConfigError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

NOT_FOUND = "Not found given configuration file"
INVALID = "Invalid configuration file"
# A name no INI file can declare, so that a [DEFAULT] section is an ordinary (unrecognized)
# section instead of configparser's defaults for every section.
_NO_DEFAULT_SECTION = "\0no default section"

Sections = dict[str, dict[str, object]]


@dataclass
class ConfigFile:
    """A parsed configuration: sections and their keys in file order."""

    path: str
    sections: Sections

    def source(self, section: str | None = None) -> Source:
        return Source(file=self.path, section=section)


def is_toml(path: str) -> bool:
    return path.lower().endswith(".toml")


def read_text(path: str, missing: str, invalid: str | None = None) -> str:
    """The text of a file; ``missing`` when it does not exist, is a folder or is unreadable;
    ``<invalid>: not UTF-8 text (...)`` when it holds other bytes (``missing`` without
    ``invalid``)."""
    try:
        with open(path, encoding="utf-8") as stream:
            return stream.read()
    except OSError as e:
        # a path that is there is named for what it is (the reference: "Not found" alone)
        there = os.path.exists(path)
        hint = ("a directory" if os.path.isdir(path) else e.strerror) if there else None
        raise Source(file=path).error(missing, hint=hint) from None
    except UnicodeDecodeError as e:
        reason = f"{invalid}: not UTF-8 text ({e.reason} at byte {e.start})" if invalid else missing
        raise Source(file=path).error(reason) from None


def parse_ini(text: str, path: str) -> Sections:
    """INI rules of §7.1; raises ``configparser.Error``."""
    parser = configparser.ConfigParser(
        inline_comment_prefixes=("#", ";"),
        strict=True,
        interpolation=None,
        default_section=_NO_DEFAULT_SECTION,
    )
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string(text, source=path)
    return {name: dict(parser.items(name)) for name in parser.sections()}


def one_line(error: Exception) -> str:
    """A parser message on one line."""
    return " ".join(line.strip() for line in str(error).splitlines() if line.strip())


def _toml_sections(data: dict[str, object], source: Source) -> Sections:
    sections: Sections = {}
    for name, table in data.items():
        if isinstance(table, list) and table and all(isinstance(t, dict) for t in table):
            raise source.error(f"array of tables [[{name}]] is not allowed")
        if not isinstance(table, dict):
            raise source.error(f"key '{name}' is outside any section")
        for key, value in table.items():
            if isinstance(value, dict):
                raise source.error(f"nested table [{name}.{key}] is not allowed")
            if isinstance(value, list) and any(isinstance(v, dict | list) for v in value):
                raise Source(file=source.file, section=name).error(
                    f"expected an array of plain values, got {type_name(value)} of tables or "
                    "arrays",
                    key=key,
                )
        sections[name] = dict(table)
    return sections


def read_config(path: str) -> ConfigFile:
    """Read an INI or TOML configuration (``path`` already expanded)."""
    text = read_text(path, NOT_FOUND, INVALID)
    source = Source(file=path)
    if is_toml(path):
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise source.error(one_line(error)) from None
        return ConfigFile(path, _toml_sections(data, source))
    try:
        return ConfigFile(path, parse_ini(text, path))
    except configparser.Error as error:  # its message names the file
        raise ConfigError(one_line(error)) from None
