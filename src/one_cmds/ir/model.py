"""The model: graphs plus everything a file carries besides them."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .graph import Graph
from .tensor import Buffer, Tensor


@dataclass
class SignatureDef:
    """A signature: named entry points into one graph."""

    key: str | None
    graph_index: int
    inputs: list[tuple[str, Tensor]] = field(default_factory=list)
    outputs: list[tuple[str, Tensor]] = field(default_factory=list)


@dataclass
class MetadataEntry:
    """A metadata entry this project does not interpret, kept verbatim."""

    name: str
    buffer: Buffer


class Model:
    """An in-memory model handed from step to step.

    ``source_table`` maps origin ids to names; ``source_md5`` identifies the source model file
    (the loader may defer hashing until the value is first read, see :meth:`defer_source_md5`).
    ``operator_codes`` keeps the file's operator-code order so that an unchanged model is
    written back the same way.
    """

    def __init__(
        self,
        graphs: list[Graph] | None = None,
        *,
        source_table: dict[int, str] | None = None,
        source_md5: str | None = None,
        signature_defs: list[SignatureDef] | None = None,
        description: str | None = None,
        metadata: list[MetadataEntry] | None = None,
        operator_codes: list[tuple[str, str | None, int]] | None = None,
        source_path: str | None = None,
    ) -> None:
        self.graphs: list[Graph] = list(graphs or [])
        self.source_table: dict[int, str] = dict(source_table or {})
        self._md5 = source_md5
        self._md5_pending: Callable[[], str] | None = None
        self.signature_defs: list[SignatureDef] = list(signature_defs or [])
        self.description = description
        self.metadata: list[MetadataEntry] = list(metadata or [])
        self.operator_codes: list[tuple[str, str | None, int]] = list(operator_codes or [])
        self.source_path = source_path

    @property
    def source_md5(self) -> str | None:
        if self._md5_pending is not None:
            self._md5 = self._md5_pending()
            self._md5_pending = None
        return self._md5

    @source_md5.setter
    def source_md5(self, value: str | None) -> None:
        self._md5 = value
        self._md5_pending = None

    def defer_source_md5(self, compute: Callable[[], str]) -> None:
        """Set the md5 to ``compute()``, evaluated when first read (hashing a multi-GB source
        file costs seconds that a build without profiling data never needs)."""
        self._md5_pending = compute

    @property
    def main(self) -> Graph:
        """Subgraph 0."""
        return self.graphs[0]

    def copy(self) -> Model:
        """A deep copy of the graph structure that shares the (immutable) weight buffers."""
        memo: dict[int, Any] = {}
        for graph in self.graphs:
            for t in (*graph.tensors, *graph.referenced_tensors()):
                if t.buffer is not None:
                    memo[id(t.buffer)] = t.buffer
        for entry in self.metadata:
            memo[id(entry.buffer)] = entry.buffer
        return copy.deepcopy(self, memo)

    def operator_count(self) -> int:
        return sum(len(g.operators) for g in self.graphs)
