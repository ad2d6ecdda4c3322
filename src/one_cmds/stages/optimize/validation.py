"""Validation after the passes (optimization.md §6): structure, interface, multi-output
operators. A failure stops the step with ``Optimized graph is invalid (...)``, or is a
warning with ``disable_validation``."""

from __future__ import annotations

from ...errors import StageError
from ...ir import Graph, Model, Operator, Shape
from ...report.console import warn
from ..options import OptimizeOptions

MESSAGE = "Optimized graph is invalid"

Interface = list[list[tuple[str, Shape]]]


def interface(model: Model) -> Interface:
    """The dtype and shape of every graph output, per graph."""
    return [[(t.dtype, t.shape) for t in g.outputs] for g in model.graphs]


def validate(
    model: Model, before: Interface, options: OptimizeOptions, *, nhwc_outputs: bool
) -> None:
    """Check the optimized model against ``before`` (taken after the passes that change the
    interface on purpose); ``nhwc_outputs``: rank-4 outputs were permuted NCHW -> NHWC."""
    problem = _first_problem(model, before, nhwc_outputs)
    if problem is None:
        return
    message = f"{MESSAGE} ({problem})"
    if not options.disable_validation:
        raise StageError(message)
    if not options.mute_warnings:
        warn(message)


def _first_problem(model: Model, before: Interface, nhwc_outputs: bool) -> str | None:
    for index, graph in enumerate(model.graphs):
        problem = _structure(graph) or _multi_output(model, graph)
        if problem is None and index < len(before):
            problem = _interface(graph, before[index], nhwc_outputs and index == 0)
        if problem is not None:
            return f"graph {index}: {problem}"
    return None


def _structure(graph: Graph) -> str | None:
    available = {id(t) for t in graph.inputs}
    for position, op in enumerate(graph.operators):
        for t in op.inputs:
            if t is None or t.is_constant or t.is_variable or id(t) in available:
                continue
            return f"operator {position} ({op.kind}) reads '{t.name}' before it is produced"
        for t in op.outputs:
            if id(t) in available:
                return f"tensor '{t.name}' has more than one producer"
            available.add(id(t))
    for t in graph.outputs:
        if not (t.is_constant or id(t) in available):
            return f"output '{t.name}' is not produced"
    return None


def _interface(graph: Graph, before: list[tuple[str, Shape]], nhwc: bool) -> str | None:
    if len(graph.outputs) != len(before):
        return f"{len(graph.outputs)} outputs, {len(before)} before optimization"
    for t, (dtype, shape) in zip(graph.outputs, before, strict=True):
        if nhwc and len(shape) == 4:
            shape = (shape[0], shape[2], shape[3], shape[1])
        if t.dtype != dtype:
            return f"output '{t.name}' is {t.dtype}, {dtype} before optimization"
        if not _compatible(t.shape, shape):
            return f"output '{t.name}' has shape {_text(t.shape)}, {_text(shape)} before"
    return None


def _compatible(a: Shape, b: Shape) -> bool:
    return len(a) == len(b) and all(
        x is None or y is None or x == y for x, y in zip(a, b, strict=True)
    )


def _text(shape: Shape) -> str:
    return "[" + ",".join("-1" if d is None else str(d) for d in shape) + "]"


def _expected_outputs(model: Model, op: Operator) -> int | None:
    """How many outputs a multi-output operator must have (None: not checked)."""
    options = op.options
    if op.opcode in ("SPLIT", "SPLIT_V"):
        return getattr(options, "numSplits", None)
    if op.opcode == "UNPACK":
        return getattr(options, "num", None)
    if op.opcode in ("TOPK_V2", "UNIQUE", "NON_MAX_SUPPRESSION_V4"):
        return 2
    if op.opcode == "NON_MAX_SUPPRESSION_V5":
        return 3
    if op.opcode == "BIDIRECTIONAL_SEQUENCE_LSTM":
        return 1 if getattr(options, "mergeOutputs", False) else 2
    callee = getattr(options, "bodySubgraphIndex", None)
    if op.opcode == "IF":
        callee = getattr(options, "thenSubgraphIndex", None)
    if op.opcode in ("WHILE", "IF") and callee is not None and callee < len(model.graphs):
        return len(model.graphs[callee].outputs)
    return None


def _multi_output(model: Model, graph: Graph) -> str | None:
    for position, op in enumerate(graph.operators):
        if op.opcode == "CUSTOM" and not op.outputs:
            return f"operator {position} ({op.kind}) has no outputs"
        expected = _expected_outputs(model, op)
        if expected is not None and len(op.outputs) != expected:
            return (
                f"operator {position} ({op.kind}) has {len(op.outputs)} outputs, "
                f"expected {expected}"
            )
    return None
