"""Shape and dtype inference of a whole model, to a fixpoint (resize.md §4)."""

from __future__ import annotations

from ..errors import StageError
from ..ir import GraphError, Model, Operator, Shape, Tensor
from .common import join
from .context import RuleContext
from .partial import Known
from .registry import RULES, Output, ShapeError
from .values import ValueEvaluator

# Rounds after which a model whose shapes still change is reported (a DAG settles in two).
MAX_ROUNDS = 32

_CALL_FIELDS = (
    "condSubgraphIndex",
    "bodySubgraphIndex",
    "thenSubgraphIndex",
    "elseSubgraphIndex",
    "initSubgraphIndex",
)


class ShapeInferenceError(StageError):
    """An operator's output shapes cannot be inferred: ``<OPCODE> (graph g, operator i): why``."""


def infer_shapes(model: Model, *, keep_declared: bool = False) -> bool:
    """Infer the shape and dtype of every operator output until nothing changes.

    Each round puts the operators of every graph in a topological order (a stable sort: a
    valid order is kept), removes dead operators, then infers every operator of subgraph 0
    and of the graphs no operator calls (with their own input shapes); subgraphs called by
    WHILE/IF/CALL_ONCE are inferred with their call-site operand shapes. The input shapes of
    those entry graphs are never changed. Returns whether anything changed (a shape, a dtype,
    a removed or reordered operator). With ``keep_declared`` an operator without a shape rule
    keeps the shapes its file declares (the optimizer's use) instead of failing.
    """
    inference = _Inference(model, keep_declared)
    changed = False
    for _ in range(MAX_ROUNDS):
        if not inference.round():
            return changed
        changed = True
    raise ShapeInferenceError(f"shape inference did not settle after {MAX_ROUNDS} rounds")


class _Inference:
    def __init__(self, model: Model, keep_declared: bool) -> None:
        self.model = model
        self.keep_declared = keep_declared
        self.evaluator = ValueEvaluator(model)
        self.call_shapes: dict[int, list[Shape]] = {}
        self.active: list[int] = []
        self.called: set[int] = set()
        self.changed = False

    def round(self) -> bool:
        """One round; whether it changed anything."""
        edited = False
        for index, graph in enumerate(self.model.graphs):
            order = list(graph.operators)
            try:
                graph.topological_sort()
            except GraphError as e:
                raise ShapeInferenceError(f"graph {index}: {e}") from None
            reordered = any(a is not b for a, b in zip(order, graph.operators, strict=True))
            edited = graph.remove_dead_operators() > 0 or reordered or edited
        self.changed = False
        self.call_shapes = {}
        self.called = {i for g in self.model.graphs for op in g.operators for i in _callees(op)}
        before = self._snapshot()
        for index in range(len(self.model.graphs)):
            if index == 0 or index not in self.called:
                self._infer_graph(index)
        return edited or self.changed or self._snapshot() != before

    def _snapshot(self) -> list[tuple[Tensor, Shape, str]]:
        """Shapes and dtypes in the called subgraphs: inferred once per call site, their
        tensors may change and change back within a round, so they are compared at its end."""
        graphs = [self.model.graphs[i] for i in sorted(self.called) if i < len(self.model.graphs)]
        return [(t, t.shape, t.dtype) for g in graphs for t in g.referenced_tensors()]

    def _set(self, t: Tensor, shape: Shape, dtype: str) -> None:
        """Give ``t`` its inferred shape and dtype, noting a change in an entry graph."""
        if t.shape != shape or t.dtype != dtype:
            t.shape, t.dtype = shape, dtype
            self.changed = self.changed or self.active[-1] not in self.called

    def _infer_graph(self, index: int) -> None:
        if index in self.active:
            chain = " -> ".join(map(str, [*self.active, index]))
            raise ShapeInferenceError(f"graph {index} calls itself ({chain})")
        graph = self.model.graphs[index]
        self.active.append(index)
        try:
            values: dict[int, Known] = {}
            fixed = {id(t) for t in graph.inputs}
            for position, op in enumerate(graph.operators):
                self._infer_operator(op, index, position, values, fixed)
        finally:
            self.active.pop()

    def _infer_operator(
        self,
        op: Operator,
        index: int,
        position: int,
        values: dict[int, Known],
        fixed: set[int],
    ) -> None:
        def where() -> str:
            return f"{op.kind} (graph {index}, operator {position})"

        def failure(reason: str) -> str:
            """``where(): reason``, naming the result the rule could not infer unless the
            reason names it already."""
            names = [repr(t.name) for t in op.outputs]
            if names and not any(name in reason for name in names):
                reason = f"{reason} (result {names[0]})"
            return f"{where()}: {reason}"

        fn = RULES.get(op.kind) or RULES.get(op.opcode)
        if fn is None and self.keep_declared:
            fn = RULES["CUSTOM"]
        if fn is None:
            raise ShapeInferenceError(f"{where()}: no shape inference rule")
        ctx = RuleContext(op, values, self._call_graph)
        try:
            results = fn(op, ctx)
            if len(results) != len(op.outputs):
                raise ShapeError(f"{len(results)} results for {len(op.outputs)} outputs")
            checked = [(_checked(shape), dtype) for shape, dtype in results]
            for t, (shape, dtype) in zip(op.outputs, checked, strict=True):
                if id(t) not in fixed:
                    self._set(t, shape, dtype)
            value = self.evaluator.evaluate(op, ctx)
        except ShapeError as e:
            raise ShapeInferenceError(failure(str(e))) from None
        except (ValueError, IndexError, TypeError, ArithmeticError) as e:
            raise ShapeInferenceError(failure(f"malformed operator ({e})")) from e
        if value is not None:
            values[id(op.outputs[0])] = value

    def _call_graph(self, index: int, shapes: list[Shape]) -> list[Output]:
        """Infer subgraph ``index`` with input shapes joined over this round's call sites."""
        if not 0 <= index < len(self.model.graphs):
            raise ShapeError(f"subgraph {index} does not exist")
        graph = self.model.graphs[index]
        if len(shapes) != len(graph.inputs):
            raise ShapeError(
                f"subgraph {index} takes {len(graph.inputs)} inputs, not {len(shapes)}"
            )
        earlier = self.call_shapes.get(index)
        if earlier is not None:
            what = f"input of subgraph {index} (called from several places)"
            shapes = [join(a, b, what) for a, b in zip(earlier, shapes, strict=True)]
        self.call_shapes[index] = shapes
        for t, shape in zip(graph.inputs, shapes, strict=True):
            t.shape = shape  # compared at the end of the round (_snapshot)
        self._infer_graph(index)
        return [(t.shape, t.dtype) for t in graph.outputs]


def _callees(op: Operator) -> list[int]:
    found = (getattr(op.options, f, None) for f in _CALL_FIELDS)
    return [i for i in found if i is not None] if op.opcode in ("WHILE", "IF", "CALL_ONCE") else []


def _checked(shape: Shape) -> Shape:
    dims = tuple(None if d is None else int(d) for d in shape)
    if any(d is not None and d < 0 for d in dims):
        raise ShapeError(f"negative dimension in inferred shape {list(dims)}")
    return dims
