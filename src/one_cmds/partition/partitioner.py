"""The one-partition step: read the ``.part`` file and the model, form the parts, write the
part models and the connection files (backends-and-packaging.md §5)."""

from __future__ import annotations

import os

from ..errors import ModelFileError, StageError
from ..formats.files import Output, write_atomically
from ..formats.reader import load
from ..formats.writer import save
from ..ir import Graph, Model, Tensor
from .connection import Link, conn_ini, conn_json
from .groups import make_groups
from .models import PartModels
from .partfile import read_part_config


def partition(
    model: Model | None,
    *,
    part_file: str,
    input_file: str,
    work_path: str | None,
    backends: str | None,
    default: str | None,
    profile: bool,
) -> list[str]:
    """Partition ``model`` (None: load ``<work>/<input_file>``) as ``<work>/<part_file>``
    says; ``backends`` (CSV) and ``default`` override the file. Writes
    ``<work>/<stem>.<NNNNN>_<backend>.<ext>`` per part, then ``<stem>.conn.json`` and
    ``<stem>.conn.ini``; returns the paths written, in that order."""
    work = work_path or ""
    config = read_part_config(os.path.join(work, part_file), backends=backends, default=default)
    source = model if model is not None else _load(os.path.join(work, input_file))
    if not source.graphs:
        raise StageError("ERROR: Invalid circle model (no subgraph)")
    main = source.main
    check_names(main)
    check_outputs(main)
    groups = make_groups(main, config.backend_of, config.default)
    stem, dot, ext = os.path.basename(input_file).rpartition(".")
    if not dot:
        stem, ext = ext, ""
    written: list[str] = []
    parts: list[Link] = []
    models = PartModels(source)
    for number, group in enumerate(groups, 1):
        name = f"{stem}.{number:05d}_{group.backend}" + (f".{ext}" if ext else "")
        path = os.path.join(work, name)
        save(models.build(group), path, profile=profile)
        written.append(path)
        parts.append(Link(name, _names(group.inputs), _names(group.outputs)))
    link = Link(input_file, _names(main.inputs), _names(main.outputs))
    for suffix, text in (("json", conn_json(link, parts)), ("ini", conn_ini(link, parts))):
        path = os.path.join(work, f"{stem}.conn.{suffix}")
        _write_text(path, text)
        written.append(path)
    return written


def check_names(graph: Graph) -> None:
    """Graph inputs and operator outputs must have names, each different
    (parts connect by tensor name)."""
    seen: set[str] = set()
    for t in [*graph.inputs, *(t for op in graph.operators for t in op.outputs)]:
        if not t.name:
            raise StageError("ERROR: circle model has empty name")
        if t.name in seen:
            raise StageError(f"ERROR: circle model has duplicate names ('{t.name}')")
        seen.add(t.name)


def check_outputs(graph: Graph) -> None:
    """Every graph output must come from an operator (a part must produce it)."""
    producers = graph.producers()
    for t in graph.outputs:
        if t not in producers:
            raise StageError(f"ERROR: output '{t.name}' is not produced by any operator")


def _load(path: str) -> Model:
    try:
        return load(path)
    except ModelFileError as e:
        raise StageError(f"ERROR: Invalid circle model ({e.message})") from None


def _names(tensors: list[Tensor]) -> list[str]:
    return [t.name for t in tensors]


def _write_text(path: str, text: str) -> None:
    data = text.encode("utf-8")

    def write(output: Output) -> None:
        output.write(data)

    write_atomically(path, write)
