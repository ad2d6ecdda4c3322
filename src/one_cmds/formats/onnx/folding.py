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
        _fold(facts, graph.node[k], k, source.opset)
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
