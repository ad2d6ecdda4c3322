"""Reading a ``.part`` file (backends-and-packaging.md §5.2).

INI-like: ``[section]`` lines, ``#``/``;`` comment lines, ``key=value`` split at the first
``=``. Adopted over the reference reader: keys and values are stripped and a key given twice
in one section is an error. Every error is a :class:`StageError` whose text starts ``ERROR: ``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import StageError
from ..ir import Operator

COMPLY_SECTIONS = {"opcode": "OPCODE", "opname": "OPNAME"}
DEFAULT_KEY = "_"


@dataclass
class PartConfig:
    """What a ``.part`` file says, after the overrides: the backends, the default one, and
    the backend of each operator code (``[OPCODE]``) and operator name (``[OPNAME]``)."""

    backends: list[str]
    default: str
    comply: str
    by_opcode: dict[str, str]
    by_opname: dict[str, str]

    def backend_of(self, op: Operator) -> str:
        """The backend of ``op``: looked up by opcode or by name (its first output's name),
        as ``comply`` says; the default backend when not listed."""
        if self.comply == "opcode":
            return self.by_opcode.get(op.opcode, self.default)
        name = op.outputs[0].name if op.outputs else ""
        return self.by_opname.get(name, self.default)


def read_part_config(path: str, *, backends: str | None, default: str | None) -> PartConfig:
    """Read and validate the ``.part`` file at ``path``; ``backends`` (CSV) and ``default``
    (the command-line options) override the file when given."""
    sections = read_ini(path)
    part = sections.get("partition", {})
    for key in ("backends", "default"):
        if key not in part:
            raise StageError(f"ERROR: '{key}' is required")
    comply = part.get("comply", "opcode")
    if comply not in COMPLY_SECTIONS:
        raise StageError(f"ERROR: Invalid 'comply' value '{comply}' (expected opcode or opname)")
    config = PartConfig(
        backends=split_csv(part["backends"]),
        default=part["default"],
        comply=comply,
        by_opcode=dict(sections.get("OPCODE", {})),
        by_opname=dict(sections.get("OPNAME", {})),
    )
    override = config.by_opcode if comply == "opcode" else config.by_opname
    if DEFAULT_KEY in override:
        config.default = override.pop(DEFAULT_KEY)
    if backends is not None:
        config.backends = split_csv(backends)
    if default is not None:
        config.default = default.strip()
    validate(config)
    return config


def validate(config: PartConfig) -> None:
    """The reference's checks of the backends, in its order."""
    if not config.backends:
        raise StageError("ERROR: There is no 'backends' information")
    if not config.default:
        raise StageError("ERROR: There is no 'default' backend information")
    if config.default not in config.backends:
        raise StageError("ERROR: 'default' backend is not one of 'backends' item")
    for kind, table in (("OPCODE", config.by_opcode), ("OPNAME", config.by_opname)):
        for key, backend in table.items():
            if backend not in config.backends:
                raise StageError(f"ERROR: {kind} {key} is not assigned to one of 'backends' items")


def split_csv(text: str) -> list[str]:
    """Comma-separated names, each stripped; empty items dropped."""
    return [item.strip() for item in text.split(",") if item.strip()]


def read_ini(path: str) -> dict[str, dict[str, str]]:
    """Sections of the file at ``path`` as ``{section: {key: value}}``, in file order; a
    section given twice continues where it left off."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise StageError(f"ERROR: Failed to read partition file ({path}: {e.strerror})") from None
    except UnicodeDecodeError:
        raise StageError(f"ERROR: Invalid INI file ({path}: not UTF-8 text)") from None
    sections: dict[str, dict[str, str]] = {}
    current: dict[str, str] | None = None
    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            name = line[1:-1].strip()
            current = sections.setdefault(name, {})
            continue
        key, sep, value = line.partition("=")
        key = key.strip()
        if not sep or not key:
            raise _invalid(path, number, "expected key=value")
        if current is None:
            raise _invalid(path, number, "key before any section")
        if key in current:
            raise _invalid(path, number, f"duplicate key '{key}'")
        current[key] = value.strip()
    return sections


def _invalid(path: str, number: int, reason: str) -> StageError:
    return StageError(f"ERROR: Invalid INI file ({path} line {number}: {reason})")
