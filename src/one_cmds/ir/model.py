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
    ``operator_codes`` keeps the file's operator-code order and ``spare_buffers`` the file's
    buffers that no tensor or metadata entry uses (the TFLite converter leaves some), so that
    an unchanged model is written back the same way.
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
        self.spare_buffers: list[Buffer] = []
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

    @property
    def has_source_md5(self) -> bool:
        """Whether the md5 is known or can be computed (without computing it)."""
        return self._md5 is not None or self._md5_pending is not None

    def defer_source_md5(self, compute: Callable[[], str]) -> None:
        """Set the md5 to ``compute()``, evaluated when first read (hashing a multi-GB source
        file costs seconds that a build without profiling data never needs)."""
        self._md5_pending = compute

    @property
    def main(self) -> Graph:
        """Subgraph 0."""
        return self.graphs[0]

    def copy(self) -> Model:
        """A copy of the graph structure (graphs, operators, tensors, signatures) that shares
        the immutable parts: weight buffers, quantization parameters, sparsity. Operators get
        shallow copies of their options; passes replace options, never edit them."""
        return self.copy_mapped()[0]

    def copy_mapped(self) -> tuple[Model, dict[int, Tensor]]:
        """:meth:`copy`, and the copy's tensor for the ``id`` of each of this model's."""
        tensors: dict[int, Tensor] = {}

        def tensor(t: Tensor | None) -> Tensor | None:
            if t is None:
                return None
            found = tensors.get(id(t))
            if found is None:
                found = tensors[id(t)] = copy.copy(t)
            return found

        def tensor_list(ts: list[Any]) -> list[Any]:
            return [tensor(t) for t in ts]

        graphs = []
        for g in self.graphs:
            operators = []
            for op in g.operators:
                new = copy.copy(op)
                new.inputs, new.outputs = tensor_list(op.inputs), tensor_list(op.outputs)
                new.intermediates = tensor_list(op.intermediates)
                new.options, new.options2 = copy.copy(op.options), copy.copy(op.options2)
                operators.append(new)
            graphs.append(
                Graph(
                    g.name,
                    tensor_list(g.inputs),
                    tensor_list(g.outputs),
                    operators,
                    tensor_list(g.tensors),
                )
            )
        clone = copy.copy(self)
        clone.graphs = graphs
        clone.source_table = dict(self.source_table)
        clone.metadata = list(self.metadata)
        clone.operator_codes = list(self.operator_codes)
        clone.spare_buffers = list(self.spare_buffers)
        clone.signature_defs = [
            SignatureDef(
                s.key,
                s.graph_index,
                [(k, tensor(t)) for k, t in s.inputs],
                [(k, tensor(t)) for k, t in s.outputs],
            )
            for s in self.signature_defs
        ]
        return clone, tensors

    def operator_count(self) -> int:
        return sum(len(g.operators) for g in self.graphs)
