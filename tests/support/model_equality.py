"""Whether two in-memory models hold the same thing: everything the IR holds, compared through
the structure (tensors paired by where graphs and operators use them, not by identity).

``differences(a, b)`` lists what differs, as lines that name the graph, operator or tensor;
an empty list means equal. ``origins=False`` leaves out the origins, the source table and the
source md5 (a file written without profiling data does not carry them). ``file_differences``
checks the round trip through a file.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from one_cmds.formats.reader import load
from one_cmds.formats.writer import _Layout, save
from one_cmds.ir import Graph, Model, Operator, QuantParam, Tensor

MAX_LINES = 20


def differences(a: Model, b: Model, *, origins: bool = True) -> list[str]:
    """What differs between ``a`` and ``b`` (at most ``MAX_LINES`` lines)."""
    found: list[str] = []
    for line in _model(a, b, origins):
        found.append(line)
        if len(found) == MAX_LINES:
            break
    return found


def _model(a: Model, b: Model, origins: bool) -> Iterator[str]:
    if len(a.graphs) != len(b.graphs):
        yield f"graphs: {len(a.graphs)} != {len(b.graphs)}"
        return
    pairs: dict[int, Tensor] = {}
    for g, (x, y) in enumerate(zip(a.graphs, b.graphs, strict=True)):
        yield from _graph(g, x, y, pairs, origins)
    yield from _signatures(a, b, pairs)
    yield from _same("description", a.description, b.description)
    yield from _same(
        "metadata",
        [(e.name, e.buffer.tobytes()) for e in a.metadata],
        [(e.name, e.buffer.tobytes()) for e in b.metadata],
    )
    yield from _same(
        "spare buffers",
        [x.tobytes() for x in a.spare_buffers],
        [x.tobytes() for x in b.spare_buffers],
    )
    yield from _same("operator codes", _Layout(a, False).codes, _Layout(b, False).codes)
    if origins:
        yield from _same("source table", a.source_table, b.source_table)
        yield from _same("source md5", a.source_md5, b.source_md5)


def _graph(g: int, a: Graph, b: Graph, pairs: dict[int, Tensor], origins: bool) -> Iterator[str]:
    where = f"graph {g}"
    yield from _same(f"{where} name", a.name, b.name)
    for what, xs, ys in (("inputs", a.inputs, b.inputs), ("outputs", a.outputs, b.outputs)):
        yield from _tensor_lists(f"{where} {what}", xs, ys, pairs)
    if len(a.operators) != len(b.operators):
        yield f"{where}: {len(a.operators)} != {len(b.operators)} operators"
        return
    for i, (x, y) in enumerate(zip(a.operators, b.operators, strict=True)):
        yield from _operator(f"{where} operator {i} ({x.kind})", x, y, pairs, origins)
    xs, ys = a.referenced_tensors(), b.referenced_tensors()
    yield from _tensor_lists(f"{where} tensor order", xs, ys, pairs)
    yield from _same(f"{where} shared buffers", _sharing(xs), _sharing(ys))


def _operator(
    where: str, a: Operator, b: Operator, pairs: dict[int, Tensor], origins: bool
) -> Iterator[str]:
    for field in (
        "opcode", "custom_code", "custom_options", "custom_options_format", "version",
        "mutating_variable_inputs",
    ):  # fmt: skip
        yield from _same(f"{where} {field}", getattr(a, field), getattr(b, field))
    yield from _same(f"{where} options", _plain(a.options), _plain(b.options))
    yield from _same(f"{where} options2", _plain(a.options2), _plain(b.options2))
    if origins:
        yield from _same(f"{where} origin", a.origin, b.origin)
    for what in ("inputs", "outputs", "intermediates"):
        yield from _tensor_lists(f"{where} {what}", getattr(a, what), getattr(b, what), pairs)


def _tensor_lists(
    where: str, xs: list[Tensor | None], ys: list[Tensor | None], pairs: dict[int, Tensor]
) -> Iterator[str]:
    if len(xs) != len(ys):
        yield f"{where}: {len(xs)} != {len(ys)} tensors"
        return
    for k, (x, y) in enumerate(zip(xs, ys, strict=True)):
        if x is None or y is None:
            if x is not y:
                yield f"{where} {k}: an omitted input on one side only"
            continue
        known = pairs.get(id(x))
        if known is None:
            pairs[id(x)] = y
            yield from _tensor(f"{where} {k} '{x.name}'", x, y)
        elif known is not y:
            yield f"{where} {k}: '{x.name}' stands for another tensor ('{y.name}')"


def _tensor(where: str, a: Tensor, b: Tensor) -> Iterator[str]:
    for field in ("name", "dtype", "shape", "is_variable", "has_rank", "is_constant"):
        yield from _same(f"{where} {field}", getattr(a, field), getattr(b, field))
    if a.is_constant and b.is_constant:
        yield from _same(f"{where} data", a.buffer.tobytes(), b.buffer.tobytes())
    yield from _same(f"{where} quantization", _quant(a.quant), _quant(b.quant))
    yield from _same(f"{where} sparsity", _plain(a.sparsity), _plain(b.sparsity))
    yield from _same(
        f"{where} variant tensors", _plain(a.variant_tensors), _plain(b.variant_tensors)
    )


def _signatures(a: Model, b: Model, pairs: dict[int, Tensor]) -> Iterator[str]:
    if len(a.signature_defs) != len(b.signature_defs):
        yield f"signature defs: {len(a.signature_defs)} != {len(b.signature_defs)}"
        return
    for x, y in zip(a.signature_defs, b.signature_defs, strict=True):
        where = f"signature '{x.key}'"
        yield from _same(f"{where} key", x.key, y.key)
        yield from _same(f"{where} graph", x.graph_index, y.graph_index)
        for what in ("inputs", "outputs"):
            xs, ys = getattr(x, what), getattr(y, what)
            yield from _same(f"{where} {what} names", [n for n, _ in xs], [n for n, _ in ys])
            yield from _tensor_lists(
                f"{where} {what}", [t for _, t in xs], [t for _, t in ys], pairs
            )


def _sharing(tensors: list[Tensor]) -> list[tuple[int, ...]]:
    """Which tensors (by position) share a buffer object."""
    groups: dict[int, list[int]] = {}
    for k, t in enumerate(tensors):
        if t.buffer is not None:
            groups.setdefault(id(t.buffer), []).append(k)
    return sorted(tuple(g) for g in groups.values() if len(g) > 1)


def _quant(q: QuantParam | None) -> Any:
    if q is None:
        return None
    return (
        _plain(q.scale), _plain(q.zero_point), _plain(q.min), _plain(q.max),
        q.quantized_dimension,
    )  # fmt: skip


def _plain(value: Any) -> Any:
    """A schema object, array or list as comparable plain values (a vector read from a file
    comes back as a numpy array where the model held a list)."""
    if value is None or isinstance(value, (bool, int, float, str, bytes)):
        return value
    if isinstance(value, np.ndarray):
        return (value.dtype.kind, tuple(value.reshape(-1).tolist()))
    if isinstance(value, (list, tuple)):
        if value and all(isinstance(v, (bool, int, float, np.generic)) for v in value):
            return _plain(np.asarray(value))
        return tuple(_plain(v) for v in value)
    if isinstance(value, np.generic):
        return value.item()
    return (type(value).__name__, tuple(sorted((k, _plain(v)) for k, v in vars(value).items())))


def _same(where: str, a: Any, b: Any) -> Iterator[str]:
    if a != b:
        yield f"{where}: {_short(a)} != {_short(b)}"


def _short(value: Any, limit: int = 120) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def file_differences(model: Model, folder: Path, name: str = "model.circle") -> list[str]:
    """What ``load(save(model))`` loses of ``model`` (origins, tables and md5 included when
    the model knows its source's md5: it is then saved with the profiling data), and whether
    saving the loaded model again gives the same bytes."""
    profile = model.has_source_md5
    first, second = folder / f"1.{name}", folder / f"2.{name}"
    save(model, str(first), profile=profile)
    again = load(str(first))
    found = differences(model, again, origins=profile)
    save(again, str(second), profile=profile)
    if first.read_bytes() != second.read_bytes():
        found.append("the file written again has other bytes")
    first.unlink()
    second.unlink()
    return found
