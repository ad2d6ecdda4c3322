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
Element = int | str | None  # a shape-value element: known, a dim symbol, or unknown
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
    # dim_param names by value (None where a dim has none): equal names prove equal dims.
    params: dict[str, tuple[str | None, ...]] = field(default_factory=dict)
    # 1-D shape values known in part (§8.1): an element is an int, the dim_param symbol of
    # the unknown dim it comes from (equal symbols are equal sizes), or None.
    partial: dict[str, list[Element]] = field(default_factory=dict)


ROUNDS = 64  # shape inference / folding rounds at most (§4 step 3: to a fixpoint)
SMALL = 1024  # elements: constants up to this size are given to shape inference as values


def gather_facts(source: OnnxSource) -> Facts:
    """Shapes and constants to a fixpoint: ONNX shape inference sees the values folded so far
    and the RESHAPE results computed from shape values known in part, then folding and
    shape-value tracking go on with the new shapes, until a round adds nothing."""
    facts = Facts()
    graph = source.model.graph
    for t in graph.initializer:
        mapped = source.external.get(t.name)
        facts.consts[t.name] = numpy_helper.to_array(t) if mapped is None else mapped
    hints: dict[str, tuple[Element, ...]] = {}
    for _ in range(ROUNDS):
        for info in _inferred(source, facts, hints):
            _record(facts, info)
        folded = len(facts.folded)
        for k in source.order:
            node = graph.node[k]
            if k in facts.folded:
                continue
            _fold(facts, node, k, source.opset)
            if k not in facts.folded:
                _track_partial(facts, node)
        new = _reshape_hints(facts, source)
        if len(facts.folded) == folded and not new:
            break
        hints.update(new)
    return facts


def known_elements(elements: list[Element] | None) -> list[int | None] | None:
    """Shape-value elements with symbols as unknown (None)."""
    return None if elements is None else [e if isinstance(e, int) else None for e in elements]


def _inferred(source: OnnxSource, facts: Facts, hints: dict[str, tuple[Element, ...]]):
    """The value infos ONNX shape inference gives for the graph without its folded nodes,
    small constants as initializers, the others as typed inputs, ``hints`` as declared
    shapes."""
    from onnx import helper

    g = source.model.graph
    initializers, typed = [], []
    for name, value in facts.consts.items():
        if value.size <= SMALL:
            initializers.append(numpy_helper.from_array(value, name))
        else:
            elem = helper.np_dtype_to_tensor_dtype(value.dtype)
            typed.append(helper.make_tensor_value_info(name, elem, list(value.shape)))
    consts = set(facts.consts)
    inputs = [i for i in g.input if i.name not in consts] + typed
    declared = [
        helper.make_tensor_value_info(name, facts.types.get(name, 1), list(shape))
        for name, shape in hints.items()
    ]
    nodes = [g.node[k] for k in source.order if k not in facts.folded]
    # Outputs typed but not shaped: their shapes are computed, not taken from the file (§3).
    outputs = [
        helper.make_tensor_value_info(o.name, o.type.tensor_type.elem_type, None) for o in g.output
    ]
    graph = helper.make_graph(nodes, g.name, inputs, outputs, initializers, value_info=declared)
    model = helper.make_model(graph, opset_imports=list(source.model.opset_import))
    model.ir_version = source.model.ir_version
    try:
        inferred = shape_inference.infer_shapes(model, strict_mode=False, data_prop=True)
    except Exception as e:  # onnx raises InferenceError and others on malformed models
        raise OnnxFileError(f"Invalid input file: {source.path} ({e})") from None
    i = inferred.graph
    return (*i.input, *i.value_info, *i.output)


def _reshape_hints(facts: Facts, source: OnnxSource) -> dict[str, tuple[Element, ...]]:
    """Result shapes (dims, symbols or None) of Reshape nodes whose target is known in part,
    where they tell more than what is recorded."""
    hints: dict[str, tuple[Element, ...]] = {}
    g = source.model.graph
    for k in source.order:
        node = g.node[k]
        if k in facts.folded or node.op_type != "Reshape":
            continue
        target = _elements(facts, node.input[1])
        if target is None:
            continue
        allowzero = any(a.name == "allowzero" and a.i for a in node.attribute)
        shape = _reshaped(_dims(facts, node.input[0]), target, allowzero)
        known = facts.shapes.get(node.output[0])
        if _informative(known_elements(list(shape)), known):  # type: ignore[arg-type]
            hints[node.output[0]] = shape
    return hints


def _dims(facts: Facts, name: str) -> list[Element] | None:
    """A value's dims with the symbols of the unknown ones."""
    shape = facts.shapes.get(name)
    if shape is None:
        return None
    params = facts.params.get(name, ())
    return [
        d if d is not None else (params[i] if i < len(params) else None)
        for i, d in enumerate(shape)
    ]


def _reshaped(
    source: list[Element] | None, target: list[Element], allowzero: bool
) -> tuple[Element, ...]:
    """Reshape's result dims: 0 copies the source dim, -1 takes the rest of the elements
    (found when the unknown dims on both sides are the same symbols)."""
    dims: list[Element] = []
    for i, t in enumerate(target):
        if t == 0 and not allowzero:
            dims.append(source[i] if source is not None and i < len(source) else None)
        else:
            dims.append(None if isinstance(t, int) and t < 0 else t)
    if -1 in target and source is not None:
        rest = [d for t, d in zip(target, dims, strict=True) if t != -1]
        dims[target.index(-1)] = _quotient(source, rest)
    return tuple(dims)


def _quotient(source: list[Element], rest: list[Element]) -> int | None:
    """``prod(source) / prod(rest)`` when the symbols cancel and the known parts divide."""
    if None in source or None in rest:
        return None
    symbols = [d for d in source if isinstance(d, str)]
    for d in rest:
        if isinstance(d, str):
            if d not in symbols:
                return None
            symbols.remove(d)
    if symbols:
        return None
    size = int(np.prod([d for d in source if isinstance(d, int)], dtype=np.int64))
    other = int(np.prod([d for d in rest if isinstance(d, int)], dtype=np.int64))
    return size // other if other and size % other == 0 else None


def _informative(new: Shape, known: Shape | None) -> bool:
    """Whether ``new`` tells more than ``known`` (a rank, or more known dims)."""
    if known is None:
        return True
    if len(known) != len(new):
        return False
    return sum(d is not None for d in new) > sum(d is not None for d in known)


def dim_of(d: onnx.TensorShapeProto.Dimension) -> int | None:
    """A dim's size; None when unknown (a symbol, nothing, or the negative sizes some exporters
    write for dynamic dims)."""
    return d.dim_value if d.HasField("dim_value") and d.dim_value >= 0 else None


def _record(facts: Facts, info: onnx.ValueInfoProto) -> None:
    t = info.type
    if not t.HasField("tensor_type"):
        return
    facts.types.setdefault(info.name, t.tensor_type.elem_type)
    if t.tensor_type.HasField("shape"):
        dims = tuple(dim_of(d) for d in t.tensor_type.shape.dim)
        if _informative(dims, facts.shapes.get(info.name)):
            facts.shapes[info.name] = dims
        params = tuple(d.dim_param or None for d in t.tensor_type.shape.dim)
        facts.params.setdefault(info.name, params)


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
    if values is None or _new_bytes(values, [facts.consts.get(n) for n in node.input]) > FOLD_LIMIT:
        return
    for name, value in zip(node.output, values, strict=False):
        if name:
            facts.consts[name] = value
            facts.shapes[name] = value.shape
    facts.folded.add(k)


def _new_bytes(values: list[np.ndarray], inputs: list[np.ndarray | None]) -> int:
    """The bytes of the results that are not views of an input (a Transpose or Reshape of a
    weight costs nothing, whatever its size)."""
    known = [x for x in inputs if x is not None]
    return sum(v.nbytes for v in values if not any(np.may_share_memory(v, x) for x in known))


def _shape_node(facts: Facts, node: onnx.NodeProto) -> list[np.ndarray] | None:
    """Shape (with ``start``/``end``) or Size of a tensor whose dims are all known."""
    dims = facts.shapes.get(node.input[0])
    if dims is None or None in dims:
        return None
    if node.op_type == "Size":
        return [np.array(int(np.prod(dims, dtype=np.int64)), np.int64)]
    attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
    return [np.array(dims[_shape_range(attrs, len(dims))], np.int64)]


def _shape_range(attrs: dict, rank: int) -> slice:
    """The dims Shape (15) returns: ``start`` to ``end``, negative from the end, clamped."""
    start, end = attrs.get("start", 0), attrs.get("end", rank)
    start, end = (max(0, min(rank, v + rank if v < 0 else v)) for v in (start, end))
    return slice(start, end)


def _evaluate(node: onnx.NodeProto, facts: Facts, opset: int) -> list[np.ndarray] | None:
    """The node's results with ONNX reference semantics (None when the evaluator fails)."""
    from onnx.reference import ReferenceEvaluator

    feeds = {name: facts.consts[name] for name in node.input if name}
    try:
        results = ReferenceEvaluator(node, opsets={"": opset}).run(None, feeds)
    except Exception:  # an op the reference lacks or rejects: lowered instead
        return None
    return [np.asarray(r) for r in results]


def _elements(facts: Facts, name: str) -> list[Element] | None:
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
    result: list[Element] | None = None
    op = node.op_type
    if op == "Shape":
        dims = _dims(facts, node.input[0])
        if dims is not None:
            result = list(dims[_shape_range(attrs, len(dims))])
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
    elif op == "Slice":
        result = _sliced(facts, node, attrs)
    elif op in ("Add", "Sub", "Mul", "Div"):
        a, b = (_elements(facts, name) for name in node.input[:2])
        if a is not None and b is not None and (len(a) == len(b) or 1 in (len(a), len(b))):
            result = _combine(op, a, b)
    if result is not None:
        facts.partial[node.output[0]] = result


def _sliced(facts: Facts, node: onnx.NodeProto, attrs: dict) -> list[Element] | None:
    """Slice of a 1-D shape value with constant bounds (inputs from opset 10, else
    attributes)."""
    data = _elements(facts, node.input[0])
    if data is None:
        return None
    if len(node.input) > 1:
        bounds = [facts.consts.get(name) if name else None for name in node.input[1:5]]
        if any(b is None for b in bounds[:2]) or (
            len(bounds) > 2 and bounds[2] is not None and bounds[2].reshape(-1).tolist() != [0]
        ):
            return None
        starts, ends = bounds[0], bounds[1]
        steps = bounds[3] if len(bounds) > 3 else None
    else:
        starts, ends, steps = np.array(attrs.get("starts")), np.array(attrs.get("ends")), None
    step = 1 if steps is None else int(steps.reshape(-1)[0])
    return data[slice(int(starts.reshape(-1)[0]), int(ends.reshape(-1)[0]), step)]


def _combine(op: str, a: list[Element], b: list[Element]) -> list[Element]:
    n = max(len(a), len(b))
    a, b = (v * n if len(v) == 1 else v for v in (a, b))
    out: list[Element] = []
    for x, y in zip(a, b, strict=True):
        if not isinstance(x, int) or not isinstance(y, int) or (op == "Div" and y == 0):
            out.append(None)
        else:
            quotient = abs(x) // abs(y) if op == "Div" else 0  # ONNX integer Div truncates
            sign = 1 if (x >= 0) == (y > 0) else -1
            out.append({"Add": x + y, "Sub": x - y, "Mul": x * y, "Div": sign * quotient}[op])
    return out
