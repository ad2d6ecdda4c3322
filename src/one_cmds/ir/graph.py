"""A graph (subgraph): tensors, operators in execution order, inputs and outputs."""

from __future__ import annotations

from collections import defaultdict

from .operator import Operator
from .tensor import Tensor


class GraphError(Exception):
    """A structural problem in a graph (a cycle, a tensor with two producers)."""


class Graph:
    """Operators in execution order plus the graph's inputs and outputs.

    ``tensors`` is the tensor list as read from the file (its order is kept on export);
    tensors that passes create need not be listed: the exporter appends every referenced
    tensor that is missing, in creation order.
    """

    def __init__(
        self,
        name: str = "",
        inputs: list[Tensor] | None = None,
        outputs: list[Tensor] | None = None,
        operators: list[Operator] | None = None,
        tensors: list[Tensor] | None = None,
    ) -> None:
        self.name = name
        self.inputs: list[Tensor] = list(inputs or [])
        self.outputs: list[Tensor] = list(outputs or [])
        self.operators: list[Operator] = list(operators or [])
        self.tensors: list[Tensor] = list(tensors or [])

    # -- queries -------------------------------------------------------------------------
    def producers(self) -> dict[Tensor, Operator]:
        """Map each operator output to the operator producing it."""
        return {t: op for op in self.operators for t in op.outputs}

    def consumers(self) -> dict[Tensor, list[Operator]]:
        """Map each tensor to the operators reading it, in execution order."""
        users: dict[Tensor, list[Operator]] = defaultdict(list)
        for op in self.operators:
            for t in op.inputs:
                if t is not None and (not users[t] or users[t][-1] is not op):
                    users[t].append(op)
        return users

    def referenced_tensors(self) -> list[Tensor]:
        """Every tensor used by the graph (inputs, outputs, operator operands), each once,
        in the order: listed tensors first (file order), then the others in creation order."""
        used: dict[int, Tensor] = {}
        for t in self.inputs:
            used[id(t)] = t
        for op in self.operators:
            for t in (*op.inputs, *op.outputs, *op.intermediates):
                if t is not None:
                    used[id(t)] = t
        for t in self.outputs:
            used[id(t)] = t
        listed = [t for t in self.tensors if id(t) in used]
        listed_ids = {id(t) for t in listed}
        extra = sorted((t for k, t in used.items() if k not in listed_ids), key=lambda t: t.seq)
        return listed + extra

    # -- edits ---------------------------------------------------------------------------
    def replace_uses(self, old: Tensor, new: Tensor) -> None:
        """Make every reader of ``old`` (operators and graph outputs) read ``new`` instead."""
        for op in self.operators:
            op.inputs = [new if t is old else t for t in op.inputs]
        self.outputs = [new if t is old else t for t in self.outputs]

    def remove_dead_operators(self) -> int:
        """Remove operators none of whose results reach a graph output; return how many.

        Operators with side effects on variables (mutating inputs) are kept.
        """
        live: set[int] = {id(t) for t in self.outputs}
        kept: list[Operator] = []
        for op in reversed(self.operators):
            if any(id(t) in live for t in op.outputs) or _has_side_effect(op):
                kept.append(op)
                live.update(id(t) for t in op.inputs if t is not None)
        removed = len(self.operators) - len(kept)
        if removed:
            kept.reverse()
            self.operators = kept
        return removed

    def topological_sort(self) -> None:
        """Reorder operators so that every producer precedes its consumers.

        The sort is stable: operators already in a valid order keep it.
        """
        producers = self.producers()
        state: dict[int, int] = {}  # 1 = visiting, 2 = done
        order: list[Operator] = []
        for root in self.operators:
            if state.get(id(root)) == 2:
                continue
            stack: list[tuple[Operator, int]] = [(root, 0)]
            state[id(root)] = 1
            while stack:
                op, i = stack[-1]
                if i < len(op.inputs):
                    stack[-1] = (op, i + 1)
                    t = op.inputs[i]
                    dep = producers.get(t) if t is not None else None
                    if dep is None or state.get(id(dep)) == 2:
                        continue
                    if state.get(id(dep)) == 1:
                        raise GraphError(f"graph {self.name!r} has a cycle through {dep!r}")
                    state[id(dep)] = 1
                    stack.append((dep, 0))
                else:
                    stack.pop()
                    state[id(op)] = 2
                    order.append(op)
        self.operators = order


_SIDE_EFFECT_OPS = frozenset({"ASSIGN_VARIABLE", "CALL_ONCE"})


def _has_side_effect(op: Operator) -> bool:
    return op.opcode in _SIDE_EFFECT_OPS or bool(
        op.mutating_variable_inputs and any(op.mutating_variable_inputs)
    )
