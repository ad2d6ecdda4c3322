"""The model: graphs plus everything a file carries besides them."""

from __future__ import annotations

from dataclasses import dataclass, field

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


@dataclass
class Model:
    """An in-memory model handed from step to step.

    ``source_table`` maps origin ids to names; ``source_md5`` identifies the source model file.
    ``operator_codes`` keeps the file's operator-code order so that an unchanged model is
    written back the same way.
    """

    graphs: list[Graph] = field(default_factory=list)
    source_table: dict[int, str] = field(default_factory=dict)
    source_md5: str | None = None
    signature_defs: list[SignatureDef] = field(default_factory=list)
    description: str | None = None
    metadata: list[MetadataEntry] = field(default_factory=list)
    operator_codes: list[tuple[str, str | None, int]] = field(default_factory=list)
    source_path: str | None = None

    @property
    def main(self) -> Graph:
        """Subgraph 0."""
        return self.graphs[0]

    def operator_count(self) -> int:
        return sum(len(g.operators) for g in self.graphs)
