"""``<stem>.conn.json`` and ``<stem>.conn.ini``: how the parts connect
(backends-and-packaging.md §5.4; the JSON layout of crew's ``JsonExport``)."""

from __future__ import annotations

import json
from dataclasses import dataclass


@dataclass
class Link:
    """A model file with the names of its inputs and outputs."""

    file: str
    inputs: list[str]
    outputs: list[str]


def conn_json(source: Link, parts: list[Link]) -> str:
    """The JSON text: two-space indent, ``"key" : value``, name lists on one line."""
    blocks = ",\n".join(f"    {{\n{_fields(p, 6)}\n    }}" for p in parts)
    return (
        "{\n"
        f'  "source" : {{\n{_fields(source, 4)}\n  }},\n'
        f'  "parts" : [\n{blocks + chr(10) if blocks else ""}  ]\n'
        "}\n"
    )


def _fields(link: Link, indent: int) -> str:
    pad = " " * indent
    return (
        f'{pad}"file" : {_string(link.file)},\n'
        f'{pad}"inputs" : {_names(link.inputs)},\n'
        f'{pad}"outputs" : {_names(link.outputs)}'
    )


def _names(names: list[str]) -> str:
    return f"[ {', '.join(_string(n) for n in names)} ]" if names else "[  ]"


def _string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def conn_ini(source: Link, parts: list[Link]) -> str:
    """The INI text: ``[source]``, ``[models]``, then one section per part named by its
    file; ``key=value`` lines, a blank line after each section."""
    sections = [
        _section("source", _endpoints(source)),
        _section("models", [(f"m{k}", p.file) for k, p in enumerate(parts, 1)]),
        *(_section(p.file, _endpoints(p)) for p in parts),
    ]
    return "".join(sections)


def _endpoints(link: Link) -> list[tuple[str, str]]:
    return [
        ("file", link.file),
        *((f"i{k}", name) for k, name in enumerate(link.inputs, 1)),
        *((f"o{k}", name) for k, name in enumerate(link.outputs, 1)),
    ]


def _section(name: str, items: list[tuple[str, str]]) -> str:
    return f"[{name}]\n" + "".join(f"{key}={value}\n" for key, value in items) + "\n"
