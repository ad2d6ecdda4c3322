"""Forming the parts: seed, merge, cleanup (backends-and-packaging.md §5.3, after the
reference's ``PartitionPGroups.cpp``, ``PartitionMerge.cpp`` and ``PartitionCleanup.cpp``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..ir import Graph, Operator, Tensor


@dataclass(eq=False)
class Group:
    """Operators of one backend that become one part, with the part's inputs and outputs."""

    backend: str
    ops: list[Operator]
    inputs: list[Tensor]
    outputs: list[Tensor]


def make_groups(graph: Graph, backend_of: Callable[[Operator], str], default: str) -> list[Group]:
    """The parts of ``graph`` in execution order; ``backend_of`` assigns an operator's
    backend, ``default`` is the backend of the graph inputs."""
    groups = [_seed(op, backend_of(op)) for op in graph.operators]
    merger = _Merger(graph, groups, default)
    merger.run()
    merger.cleanup()
    return groups


def _seed(op: Operator, backend: str) -> Group:
    """One operator's group: its inputs in argument order (omitted ones skipped, a tensor
    used twice listed once, constants included) and all its outputs."""
    return Group(backend, [op], _unique(t for t in op.inputs if t is not None), list(op.outputs))


def _unique(tensors: Iterable[Tensor]) -> list[Tensor]:
    seen: dict[int, Tensor] = {}
    for t in tensors:
        seen.setdefault(id(t), t)
    return list(seen.values())


class _Merger:
    """The merge loop over a group list, with the lookups it needs."""

    def __init__(self, graph: Graph, groups: list[Group], default: str) -> None:
        self.graph = graph
        self.groups = groups
        self.default = default
        self.producer = graph.producers()
        self.consumers = graph.consumers()
        self.owner: dict[int, Group] = {id(op): g for g in groups for op in g.ops}
        self.backend: dict[int, str] = {id(op): g.backend for g in groups for op in g.ops}
        self.seed_position = {id(op): k for k, op in enumerate(graph.operators)}
        # ids of the tensors each group makes (its outputs until cleanup) and reads
        self.made = {id(g): {id(t) for t in g.outputs} for g in groups}
        self.read = {id(g): {id(t) for t in g.inputs} for g in groups}
        # outputs of each group that may have readers outside it (pruned as groups grow)
        self.open = {id(g): list(g.outputs) for g in groups}

    def group_of(self, t: Tensor) -> str:
        """The backend of the producer of ``t`` (the default for graph inputs)."""
        op = self.producer.get(t)
        return self.default if op is None else self.backend[id(op)]

    def owner_of(self, t: Tensor) -> Group | None:
        """The group holding the producer of ``t``; None for graph inputs and constants."""
        op = self.producer.get(t)
        return None if op is None else self.owner[id(op)]

    def run(self) -> None:
        """Merge until nothing changes.

        The reference restarts from the first group after each merge. Resuming at the group
        that grew gives the same result: a merge of ``g`` into ``gi`` moves ``g``'s operators
        from ``g`` to ``gi`` (neither is an earlier group) and adds to ``gi`` only inputs
        without owner (graph inputs, constants), so no pair of an earlier group that failed
        can now pass.
        """
        start = 0
        while (merged := self._merge_once(start)) is not None:
            start = merged

    def _merge_once(self, start: int) -> int | None:
        """Merge the first joinable pair from group ``start`` on; return the position of
        the group that grew, or None."""
        for k in range(start, len(self.groups)):
            gi = self.groups[k]
            for g in self._consumer_groups(gi):
                if g.backend == gi.backend and self._joinable(g):
                    self._merge(gi, g)
                    return k
        return None

    def _consumer_groups(self, gi: Group) -> list[Group]:
        """The other groups that read an output of ``gi``, in list order (the order of
        their seed operators, which stay first)."""
        found: dict[int, Group] = {}
        still_open = []
        for t in self.open[id(gi)]:
            readers = [self.owner[id(op)] for op in self.consumers.get(t, ())]
            outside = [g for g in readers if g is not gi]
            if outside:
                still_open.append(t)
                found.update((id(g), g) for g in outside)
        self.open[id(gi)] = still_open
        return sorted(found.values(), key=lambda g: self.seed_position[id(g.ops[0])])

    def _joinable(self, g: Group) -> bool:
        """Whether the non-constant inputs of ``g`` have one backend and at most one owner."""
        live = [t for t in g.inputs if not t.is_constant]
        owners = {id(o) for t in live if (o := self.owner_of(t)) is not None}
        return len({self.group_of(t) for t in live}) <= 1 and len(owners) <= 1

    def _merge(self, gi: Group, g: Group) -> None:
        gi.ops.extend(g.ops)
        for op in g.ops:
            self.owner[id(op)] = gi
        made, read = self.made[id(gi)], self.read[id(gi)]
        gi.outputs.extend(t for t in g.outputs if id(t) not in made)
        made.update(self.made.pop(id(g)))
        for t in g.inputs:
            if id(t) not in made and id(t) not in read:
                gi.inputs.append(t)
                read.add(id(t))
        self.open[id(gi)].extend(self.open.pop(id(g)))
        del self.read[id(g)]
        self.groups.remove(g)

    def cleanup(self) -> None:
        """Drop inputs made inside their own group and constant inputs, then outputs that
        neither the graph nor another group reads."""
        for g in self.groups:
            g.inputs = [t for t in g.inputs if not t.is_constant and self.owner_of(t) is not g]
        used = {id(t) for t in self.graph.outputs}
        used.update(id(t) for g in self.groups for t in g.inputs)
        for g in self.groups:
            g.outputs = [t for t in g.outputs if id(t) in used]
