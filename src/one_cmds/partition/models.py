"""A part as a model of its own (backends-and-packaging.md §5.4).

The part's subgraph 0 holds the group's operators in source order, named
``<source subgraph 0 name>_<backend>``; its inputs and outputs are the group's. Tensors are
copies (names, types, shapes, shape signatures and quantization kept; constants share the
source's buffers in memory and are written into each part). Subgraphs that IF/WHILE and the
like call go with their operator, renumbered. Operators keep their origin and the model its
source table and md5, so a part's profiling tables map back to the source model.
"""

from __future__ import annotations

import copy

from ..formats.reader import SUBGRAPH_FIELDS
from ..ir import Graph, Model, Operator
from .groups import Group


class PartModels:
    """Builds the part models of one source model."""

    def __init__(self, source: Model) -> None:
        self.source = source
        main = source.main
        self.op_position = {id(op): k for k, op in enumerate(main.operators)}
        self.tensor_position = {id(t): k for k, t in enumerate(main.tensors)}

    def build(self, group: Group) -> Model:
        """The model of one group of the source's subgraph 0."""
        source, main = self.source, self.source.main
        operators = sorted(group.ops, key=lambda op: self.op_position[id(op)])
        operands = (t for op in operators for t in (*op.inputs, *op.outputs, *op.intermediates))
        used = {id(t): t for t in operands if t is not None}
        listed = sorted(
            (t for k, t in used.items() if k in self.tensor_position),
            key=lambda t: self.tensor_position[id(t)],
        )
        graph = Graph(
            f"{main.name or ''}_{group.backend}", group.inputs, group.outputs, operators, listed
        )
        shell = copy.copy(source)
        shell.graphs = [graph, *source.graphs[1:]]
        shell.signature_defs = []
        shell.metadata = []
        shell.spare_buffers = []
        part = shell.copy()
        if source.has_source_md5:  # hash a file source once, whichever part asks first
            part.defer_source_md5(lambda: source.source_md5)
        _keep_called_graphs(part)
        return part


def _keep_called_graphs(model: Model) -> None:
    """Drop the subgraphs that subgraph 0 does not reach; renumber the references."""
    reached = {0}
    pending = [0]
    while pending:
        for op in model.graphs[pending.pop()].operators:
            for index in _callees(op):
                if index not in reached:
                    reached.add(index)
                    pending.append(index)
    kept = sorted(reached)
    number = {old: new for new, old in enumerate(kept)}
    model.graphs = [model.graphs[i] for i in kept]
    for graph in model.graphs:
        for op in graph.operators:
            for options in (op.options, op.options2):
                for field in SUBGRAPH_FIELDS:
                    index = getattr(options, field, None)
                    if index is not None:
                        setattr(options, field, number[index])


def _callees(op: Operator) -> list[int]:
    """The subgraph indices an operator's options name."""
    return [
        index
        for options in (op.options, op.options2)
        for field in SUBGRAPH_FIELDS
        if (index := getattr(options, field, None)) is not None
    ]
