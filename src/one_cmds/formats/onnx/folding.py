"""Shapes and constants (onnx-import.md §8): ONNX shape inference (with shape-value
propagation), then every node whose inputs are all constant is evaluated with ONNX's reference
semantics and emits nothing; Shape and Size of fully known tensors fold too."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import onnx
from onnx import numpy_helper, shape_inference

from .errors import OnnxFileError
from .loader import OnnxSource

Shape = tuple[int | None, ...]
FOLD_LIMIT = 16 * 2**20  # bytes: larger constant results are computed in the graph
NOT_FOLDED = frozenset(
    {"RandomNormal", "RandomNormalLike", "RandomUniform", "RandomUniformLike", "Multinomial",
     "Bernoulli", "If", "Loop", "Scan"}
)  # fmt: skip


@dataclass
class Facts:
    """What is known before lowering: constant values, ONNX shapes and element types by value
    name, and the nodes evaluated at import."""

    consts: dict[str, np.ndarray] = field(default_factory=dict)
    shapes: dict[str, Shape] = field(default_factory=dict)
    types: dict[str, int] = field(default_factory=dict)
    folded: set[int] = field(default_factory=set)
    # 1-D shape values known in part (None for an element from an unknown dim, §8.1).
    partial: dict[str, list[int | None]] = field(default_factory=dict)


def gather_facts(source: OnnxSource) -> Facts:
    facts = Facts()
    graph = source.model.graph
    for t in graph.initializer:
        facts.consts[t.name] = numpy_helper.to_array(t)
    try:
        inferred = shape_inference.infer_shapes(source.model, strict_mode=False, data_prop=True)
    except Exception as e:  # onnx raises InferenceError and others on malformed models
        raise OnnxFileError(f"Invalid input file: {source.path} ({e})") from None
    g = inferred.graph
    for info in (*g.input, *g.value_info, *g.output):
        _record(facts, info)
    for k in source.order:
        node = graph.node[k]
        _fold(facts, node, k, source.opset)
        if k not in facts.folded:
            _track_partial(facts, node)
    return facts


def _record(facts: Facts, info: onnx.ValueInfoProto) -> None:
    t = info.type
    if not t.HasField("tensor_type"):
        return
    facts.types.setdefault(info.name, t.tensor_type.elem_type)
    if t.tensor_type.HasField("shape"):
        dims = tuple(
            d.dim_value if d.HasField("dim_value") else None for d in t.tensor_type.shape.dim
        )
        facts.shapes.setdefault(info.name, dims)


def _fold(facts: Facts, node: onnx.NodeProto, k: int, opset: int) -> None:
    """Evaluate ``node`` when all its inputs are known; record its results."""
    if node.op_type in NOT_FOLDED or node.domain not in ("", "ai.onnx"):
        return
    if node.op_type in ("Shape", "Size"):
        values = _shape_node(facts, node)
    elif all(name == "" or name in facts.consts for name in node.input):
        values = _evaluate(node, facts, opset)
    else:
        return
    if values is None or sum(v.nbytes for v in values) > FOLD_LIMIT:
        return
    for name, value in zip(node.output, values, strict=False):
        if name:
            facts.consts[name] = value
            facts.shapes[name] = value.shape
    facts.folded.add(k)


def _shape_node(facts: Facts, node: onnx.NodeProto) -> list[np.ndarray] | None:
    """Shape (with ``start``/``end``) or Size of a tensor whose dims are all known."""
    dims = facts.shapes.get(node.input[0])
    if dims is None or None in dims:
        return None
    if node.op_type == "Size":
        return [np.array(int(np.prod(dims, dtype=np.int64)), np.int64)]
    attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
    rank = len(dims)
    start, end = attrs.get("start", 0), attrs.get("end", rank)
    start, end = (max(0, min(rank, v + rank if v < 0 else v)) for v in (start, end))
    return [np.array(dims[start:end], np.int64)]


def _evaluate(node: onnx.NodeProto, facts: Facts, opset: int) -> list[np.ndarray] | None:
    """The node's results with ONNX reference semantics (None when the evaluator fails)."""
    from onnx.reference import ReferenceEvaluator

    feeds = {name: facts.consts[name] for name in node.input if name}
    try:
        results = ReferenceEvaluator(node, opsets={"": opset}).run(None, feeds)
    except Exception:  # an op the reference lacks or rejects: lowered instead
        return None
    return [np.asarray(r) for r in results]


def _elements(facts: Facts, name: str) -> list[int | None] | None:
    """A small integer value's elements: known, known in part, or None."""
    if name in facts.consts:
        value = facts.consts[name]
        if value.dtype.kind in "iu" and value.ndim <= 1 and value.size <= 64:
            return [int(v) for v in value.reshape(-1)]
        return None
    return facts.partial.get(name)


def _track_partial(facts: Facts, node: onnx.NodeProto) -> None:
    """Shape values known in part, through the operators that move or combine them (§8.1)."""
    attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
    result: list[int | None] | None = None
    op = node.op_type
    if op == "Shape":
        dims = facts.shapes.get(node.input[0])
        if dims is not None:
            rank = len(dims)
            start, end = attrs.get("start", 0), attrs.get("end", rank)
            start, end = (max(0, min(rank, v + rank if v < 0 else v)) for v in (start, end))
            result = list(dims[start:end])
    elif op in ("Cast", "Squeeze", "Unsqueeze", "Identity"):
        result = _elements(facts, node.input[0])
    elif op == "Concat":
        parts = [_elements(facts, name) for name in node.input]
        if all(p is not None for p in parts):
            result = [v for p in parts for v in p]  # type: ignore[union-attr]
    elif op == "Gather":
        data, indices = _elements(facts, node.input[0]), facts.consts.get(node.input[1])
        if data is not None and indices is not None and indices.ndim <= 1:
            result = [data[int(i)] for i in indices.reshape(-1)]
    elif op in ("Add", "Sub", "Mul", "Div"):
        a, b = (_elements(facts, name) for name in node.input[:2])
        if a is not None and b is not None and (len(a) == len(b) or 1 in (len(a), len(b))):
            result = _combine(op, a, b)
    if result is not None and any(v is not None for v in result):
        facts.partial[node.output[0]] = result


def _combine(op: str, a: list[int | None], b: list[int | None]) -> list[int | None]:
    n = max(len(a), len(b))
    a, b = (v * n if len(v) == 1 else v for v in (a, b))
    out: list[int | None] = []
    for x, y in zip(a, b, strict=True):
        if x is None or y is None or (op == "Div" and y == 0):
            out.append(None)
        else:
            quotient = abs(x) // abs(y) if op == "Div" else 0  # ONNX integer Div truncates
            sign = 1 if (x >= 0) == (y > 0) else -1
            out.append({"Add": x + y, "Sub": x - y, "Mul": x * y, "Div": sign * quotient}[op])
    return out
