"""Target files ``<T>.ini`` (backends-and-packaging.md §1.5): ``KEY=VALUE`` lines without a
section; ``TARGET`` must name the file's target and ``BACKEND`` names the backend."""

from __future__ import annotations

import configparser

from one_cmds.backends.lookup import find_target
from one_cmds.errors import ConfigError


def target_backend(target: str) -> str:
    """The BACKEND of ``target``; the §1.5 and §2.2 (2b) errors."""
    path = find_target(target)
    if path is None:
        raise ConfigError(f"Not found given target configuration: {target}")
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    try:
        with open(path, encoding="utf-8") as stream:
            parser.read_string("[target]\n" + stream.read())
    except (OSError, UnicodeDecodeError, configparser.Error):
        raise ConfigError("Invalid target file.") from None
    values = parser["target"]
    if values.get("TARGET", "").strip() != target:
        raise ConfigError("Invalid target file.")
    if "BACKEND" not in values:
        raise ConfigError("Not found 'BACKEND' key in target configuration.")
    backend = values["BACKEND"].strip()
    if not backend:
        raise ConfigError(f"Not found {target} target.")
    return backend
