"""The graph editor a pass works through: who produces and who reads each tensor, new
operators with inferred outputs, use redirection and eager removal of what became dead.

Rewrites follow optimization.md §4.3: a pass builds new operators and redirects the uses of
the old result with :meth:`GraphEditor.replace`; an operator none of whose results is read
any more disappears at once (so single-consumer checks stay right within one visit), and
:meth:`GraphEditor.commit` writes the new operator list back in topological order.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from ...ir import Graph, Model, Operator, Origin, QuantParam, Tensor
from ...shape import RULES, ShapeError
from ...shape.context import RuleContext

_SIDE_EFFECT_OPS = frozenset({"ASSIGN_VARIABLE", "CALL_ONCE"})


class GraphEditor:
    """Edits subgraph ``index`` of ``model`` for one pass run."""

    def __init__(self, model: Model, index: int) -> None:
        self.model = model
        self.index = index
        self.graph: Graph = model.graphs[index]
        self.changed = False
        self._order: list[Operator] = list(self.graph.operators)
        self._position: dict[int, int] = {}
        self._producer: dict[int, Operator] = {}
        self._readers: dict[int, dict[int, Operator]] = {}
        self._by_opcode: dict[str, list[Operator]] = {}
        self._removed: set[int] = set()
        self._added: list[Operator] = []
        self._fresh: set[int] = set()
        self._names: set[str] | None = None
        self._outputs = {id(t) for t in self.graph.outputs}
        self._inputs = {id(t) for t in self.graph.inputs}
        for op in self._order:
            self._index(op)

    # -- queries -------------------------------------------------------------------------
    def ops(self, *opcodes: str) -> Iterator[Operator]:
        """The live operators with one of ``opcodes`` (every operator when none is given) in
        execution order, as they were when the call was made; operators removed during the
        iteration are skipped, operators added are not visited."""
        if opcodes:
            found = itertools.chain.from_iterable(self._by_opcode.get(o, ()) for o in opcodes)
            snapshot = sorted(found, key=lambda op: self._position[id(op)])
        else:
            snapshot = [op for op in self._order if id(op) not in self._removed]
        return (op for op in snapshot if id(op) not in self._removed)

    def producer(self, t: Tensor | None) -> Operator | None:
        """The live operator producing ``t``; None for graph inputs, constants and None."""
        return None if t is None else self._producer.get(id(t))

    def consumers(self, t: Tensor) -> list[Operator]:
        """The live operators reading ``t``, each once."""
        return list(self._readers.get(id(t), {}).values())

    def is_output(self, t: Tensor) -> bool:
        """Whether ``t`` is an output of this graph."""
        return id(t) in self._outputs

    def is_input(self, t: Tensor) -> bool:
        return id(t) in self._inputs

    def single_consumer(self, t: Tensor) -> Operator | None:
        """The one operator reading ``t`` when it is the only use (``t`` is no graph output)."""
        readers = self._readers.get(id(t), {})
        if len(readers) != 1 or self.is_output(t):
            return None
        return next(iter(readers.values()))

    def only_use_is(self, t: Tensor, op: Operator) -> bool:
        """Whether ``op`` is the only reader of ``t`` and ``t`` is no graph output."""
        return self.single_consumer(t) is op

    def producer_of(self, t: Tensor | None, *opcodes: str) -> Operator | None:
        """The producer of ``t`` when its opcode (or ``CUSTOM(code)`` kind) is one of
        ``opcodes``."""
        op = self.producer(t)
        return op if op is not None and (op.opcode in opcodes or op.kind in opcodes) else None

    # -- building ------------------------------------------------------------------------
    def unique_name(self, base: str) -> str:
        """``base``, or ``base_<n>`` when a tensor of the graph already has that name."""
        if self._names is None:
            self._names = {t.name for t in self.graph.referenced_tensors()}
            self._names.update(t.name for t in self.graph.tensors)
        name, n = base, 0
        while name in self._names:
            n += 1
            name = f"{base}_{n}"
        self._names.add(name)
        return name

    def const(self, name: str, array: Any, dtype: str | None = None) -> Tensor:
        """A new constant tensor (``name`` made unique) holding ``array``."""
        t = Tensor.constant(self.unique_name(name), np.asarray(array), dtype)
        self._fresh.add(id(t))
        return t

    def tensor(
        self,
        name: str,
        dtype: str,
        shape: Sequence[int | None] = (),
        quant: QuantParam | None = None,
    ) -> Tensor:
        """A new non-constant tensor (``name`` made unique), replacing whatever it is used as."""
        t = Tensor(self.unique_name(name), dtype, tuple(shape), quant=quant)
        self._fresh.add(id(t))
        return t

    def op(
        self,
        opcode: str,
        inputs: Sequence[Tensor | None],
        options: Any = None,
        *,
        origin: Origin,
        like: Tensor | Sequence[Tensor] | None = None,
        outputs: Sequence[Tensor] | None = None,
        name: str | None = None,
        **extra: Any,
    ) -> Operator:
        """Add a new operator; its outputs are new tensors unless ``outputs`` are given.

        Output shapes and dtypes come from the operator's shape rule; where the rule cannot
        tell, they are taken from ``like`` (the tensor(s) the result replaces), which also
        gives the names and quantization parameters. ``extra`` goes to :class:`Operator`
        (``custom_code``, ``custom_options``, ...).
        """
        likes = [like] if isinstance(like, Tensor) else list(like or [])
        if outputs is None:
            count = max(1, len(likes))
            outputs = [
                self.tensor(
                    name or (likes[k].name if k < len(likes) else opcode.lower()),
                    likes[k].dtype if k < len(likes) else "FLOAT32",
                    likes[k].shape if k < len(likes) else (),
                    _copied(likes[k].quant) if k < len(likes) else None,
                )
                for k in range(count)
            ]
            new = Operator(opcode, list(inputs), list(outputs), options, origin=origin, **extra)
            _infer_outputs(new, keep_dtype=bool(likes))
        else:
            new = Operator(opcode, list(inputs), list(outputs), options, origin=origin, **extra)
        self._position[id(new)] = len(self._order) + len(self._added)
        self._added.append(new)
        self._index(new)
        self.changed = True
        return new

    # -- editing -------------------------------------------------------------------------
    def set_input(self, op: Operator, position: int, t: Tensor | None) -> None:
        """Make input ``position`` of ``op`` read ``t``."""
        old = op.inputs[position]
        op.inputs[position] = t
        if t is not None:  # first, so that dropping the old producer does not drop t's
            self._readers.setdefault(id(t), {})[id(op)] = op
        if old is not None and all(x is not old for x in op.inputs):
            self._readers.get(id(old), {}).pop(id(op), None)
            self._drop_if_dead(self._producer.get(id(old)))
        self.changed = True

    def replace(self, old: Tensor, new: Tensor, *, keep: Iterable[Operator] = ()) -> None:
        """Redirect every use of ``old`` (operator inputs, graph outputs, signatures) to
        ``new``, except by the operators in ``keep``; drop what became dead.

        ``new`` takes over ``old``'s name when it is a tensor made by this pass, or when
        ``old`` is a graph output and ``new`` an intermediate result: the graph interface
        and the names users see stay the same.
        """
        if old is new:
            return
        kept = {id(op) for op in keep}
        readers = self._readers.get(id(old), {})
        for op in [r for r in readers.values() if id(r) not in kept]:
            op.inputs = [new if t is old else t for t in op.inputs]
            readers.pop(id(op))
            self._readers.setdefault(id(new), {})[id(op)] = op
        if self.is_output(old):
            self._replace_output(old, new)
        if id(new) in self._fresh and not kept and not self.is_input(old):
            new.name, old.name = old.name, new.name
        self.changed = True
        self._drop_if_dead(self._producer.get(id(old)))

    def replace_op(self, old: Operator, new: Operator | Sequence[Tensor]) -> None:
        """Replace each output of ``old`` by the matching output of ``new``."""
        results = new.outputs if isinstance(new, Operator) else list(new)
        for o, n in zip(old.outputs, results, strict=True):
            self.replace(o, n)

    def replace_with(
        self,
        old: Operator,
        opcode: str,
        inputs: Sequence[Tensor | None],
        options: Any = None,
        *,
        origin: Origin,
    ) -> Operator:
        """Replace the (first) result of ``old`` by the result of a new ``opcode`` operator on
        ``inputs``, made like ``old``'s result; returns the new operator."""
        out = old.outputs[0]
        new = self.op(opcode, inputs, options, origin=origin, like=out)
        self.replace(out, new.outputs[0])
        return new

    def commit(self) -> None:
        """Write the edited operator list back to the graph, in topological order."""
        if not self.changed:
            return
        for op in self._added:
            self._drop_if_dead(op)  # built but never used
        live = [op for op in (*self._order, *self._added) if id(op) not in self._removed]
        self.graph.operators = live
        self.graph.topological_sort()
        self._order = list(self.graph.operators)
        self._added = []
        self._position = {id(op): i for i, op in enumerate(self._order)}

    # -- internals -----------------------------------------------------------------------
    def _index(self, op: Operator) -> None:
        self._position.setdefault(id(op), len(self._position))
        for t in op.outputs:
            self._producer[id(t)] = op
        for t in op.inputs:
            if t is not None:
                self._readers.setdefault(id(t), {})[id(op)] = op
        self._by_opcode.setdefault(op.opcode, []).append(op)

    def _replace_output(self, old: Tensor, new: Tensor) -> None:
        graph = self.graph
        graph.outputs = [new if t is old else t for t in graph.outputs]
        self._outputs.discard(id(old))
        self._outputs.add(id(new))
        for signature in self.model.signature_defs:
            if signature.graph_index == self.index:
                signature.outputs = [(k, new if t is old else t) for k, t in signature.outputs]
        produced = id(new) in self._producer and id(new) not in self._fresh
        if produced and sum(t is new for t in graph.outputs) == 1:
            new.name, old.name = old.name, new.name

    def _drop_if_dead(self, start: Operator | None) -> None:
        stack = [start] if start is not None else []
        while stack:
            op = stack.pop()
            if id(op) in self._removed or not self._dead(op):
                continue
            self._removed.add(id(op))
            self.changed = True
            for t in op.outputs:
                self._producer.pop(id(t), None)
            for t in op.inputs:
                if t is None:
                    continue
                readers = self._readers.get(id(t))
                if readers is not None and readers.pop(id(op), None) is not None:
                    producer = self._producer.get(id(t))
                    if producer is not None:
                        stack.append(producer)

    def _dead(self, op: Operator) -> bool:
        if op.opcode in _SIDE_EFFECT_OPS or any(op.mutating_variable_inputs or ()):
            return False
        return not any(self._readers.get(id(t)) or self.is_output(t) for t in op.outputs)


def _copied(quant: QuantParam | None) -> QuantParam | None:
    return None if quant is None else QuantParam(**vars(quant))


def _no_subgraphs(index: int, shapes: list[Any]) -> list[Any]:
    raise ShapeError("a new operator cannot call a subgraph")


def _infer_outputs(op: Operator, keep_dtype: bool) -> None:
    """Set the outputs' shapes (and dtypes unless given) from the operator's shape rule."""
    rule = RULES.get(op.kind) or RULES.get(op.opcode)
    if rule is None:
        return
    try:
        results = rule(op, RuleContext(op, {}, _no_subgraphs))
    except (ShapeError, ValueError, IndexError, TypeError, ArithmeticError):
        return
    if len(results) != len(op.outputs):
        return
    for t, (shape, dtype) in zip(op.outputs, results, strict=True):
        t.shape = tuple(None if d is None else int(d) for d in shape)
        if not keep_dtype:
            t.dtype = dtype
