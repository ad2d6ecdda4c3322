"""Per-layer mixed precision (quantization.md §12): the ``quant_config`` JSON names operators
(by their first output tensor) that get another dtype or granularity than the model's.

An operator whose dtype differs from the model's reads its non-constant quantized inputs
through a ``QUANTIZE`` to its dtype and gives its outputs back through a ``QUANTIZE`` to the
model dtype; redundant Quantize operators are removed afterwards. Its constants (weights,
biases, §11.3 operands) are quantized directly to its dtype and granularity by the passes
that receive the :class:`Precision`.

**Adopted:** all outputs of a listed multi-output operator take its dtype; one ``QUANTIZE``
per (tensor, dtype) is shared by the operators that need it; a graph output keeps its name
(the tensor before the inserted ``QUANTIZE`` takes the ``_Quantize`` suffix, as in §13).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from ..ir import Graph, Model, Operator, Tensor
from .activations import DTYPES, has_range, output_kind, range_qparam, special_qparam
from .errors import QuantizeError
from .io_types import replace_in_signatures, take_name
from .options import QuantConfig

# Operators whose constant inputs §11.1 quantizes with the model dtype.
_BACKWARD_CONSTANTS = frozenset({"CONCATENATION", "PACK", "ONE_HOT", "PADV2"})


class Layer(NamedTuple):
    """The quantization of one operator."""

    dtype: str
    granularity: str


class Precision:
    """Dtype and granularity of every operator: the listed ones, else the model's."""

    def __init__(self, dtype: str, granularity: str) -> None:
        self.model = Layer(dtype, granularity)
        self._layers: dict[int, tuple[Operator, Layer]] = {}

    def assign(self, op: Operator, layer: Layer) -> None:
        self._layers[id(op)] = (op, layer)

    def of(self, op: Operator) -> Layer:
        entry = self._layers.get(id(op))
        return entry[1] if entry else self.model

    @property
    def listed(self) -> list[tuple[Operator, Layer]]:
        """The listed operators with their settings, in listing order."""
        return list(self._layers.values())


def load_precision(
    config: QuantConfig | Mapping[str, Any] | None, graph: Graph, dtype: str, granularity: str
) -> Precision:
    """The precision of ``graph``'s operators under ``config`` (the read ``quant_config``,
    its JSON object, or None for none)."""
    precision = Precision(dtype, granularity)
    if config is None:
        return precision
    data = config.data if isinstance(config, QuantConfig) else config
    by_name = {op.outputs[0].name: op for op in graph.operators if op.outputs}
    seen: set[str] = set()
    for entry in data.get("layers") or []:
        layer = Layer(
            str(entry.get("dtype", dtype)).lower(),
            str(entry.get("granularity", granularity)).lower(),
        )
        for name in _matching_names(entry, by_name):
            if name in seen:
                raise QuantizeError(
                    f"Duplicate layer name {name}. "
                    "Check layer names in the quantization configuration file."
                )
            seen.add(name)
            precision.assign(by_name[name], layer)
    return precision


def _name_list(value: Any) -> list[str]:
    return [value] if isinstance(value, str) else [str(v) for v in value or []]


def _matching_names(entry: Mapping[str, Any], by_name: Mapping[str, Operator]) -> list[str]:
    """The one name set of ``entry`` (main or alternate) whose names are all in the graph."""
    main = _name_list(entry["name"]) if "name" in entry else _name_list(entry.get("names"))
    if not main:
        raise QuantizeError(f"A layer entry has no 'name' or 'names': {dict(entry)}")
    sets = [main, *(_name_list(v) for v in (entry.get("alternate") or {}).values())]
    matching = [names for names in sets if names and all(n in by_name for n in names)]
    if len(matching) != 1:
        raise QuantizeError(f"{main} are mapped in multiple or no ways")
    return matching[0]


def insert_quantize_ops(model: Model, precision: Precision) -> None:
    """§14 step 2: listed outputs take their operator's dtype, ``QUANTIZE`` operators are
    inserted around operators of another dtype than the model's, then redundant ones are
    removed. Runs right after the activation qparams (§9)."""
    graph = model.main
    model_dtype = precision.model.dtype
    for op, layer in precision.listed:
        if layer.dtype == model_dtype:
            continue
        if op.opcode in _BACKWARD_CONSTANTS and any(
            t is not None and t.is_constant and t.dtype == "FLOAT32" for t in op.inputs
        ):
            raise QuantizeError(
                f"{op.kind} '{op.outputs[0].name}': mixed precision of an operator with float "
                "constant inputs propagated backward is not supported"
            )
        for t in op.outputs:
            if _quantized(t):
                t.quant = range_qparam(t, layer.dtype)
                t.dtype = DTYPES[layer.dtype]
    producers = graph.producers()
    shared: dict[tuple[int, str], Tensor] = {}
    result: list[Operator] = []
    for op in graph.operators:
        dtype = precision.of(op).dtype
        if dtype == model_dtype:
            result.append(op)
            continue
        for i, t in enumerate(op.inputs):
            if t is None or t.is_constant or not _quantized(t):
                continue
            key = (id(t), dtype)
            if key not in shared:
                quantize = _quantize_op(t, dtype, producers, op)
                shared[key] = quantize.outputs[0]
                result.append(quantize)
            op.inputs[i] = shared[key]
        result.append(op)
        for t in op.outputs:
            if _quantized(t):
                result.append(_quantize_output(model, t, model_dtype, producers, op))
    graph.operators = result
    remove_redundant_quantize(model)


def _quantized(t: Tensor | None) -> bool:
    return t is not None and t.quant is not None and t.quant.scale is not None


def _converted(t: Tensor, dtype: str, producers: dict[Tensor, Operator]) -> Tensor:
    """A new ``dtype`` tensor for ``t``: qparams from ``t``'s recorded range, or §10 for
    the operator that produced the value (looking through Quantize operators)."""
    if not has_range(t):
        raise QuantizeError(f"'{t.name}': no recorded range to quantize it to {dtype}")
    quant = range_qparam(t, dtype)
    producer = producers.get(t)
    while producer is not None and producer.opcode == "QUANTIZE":
        producer = producers.get(producer.inputs[0])
    if producer is not None:
        quant = special_qparam(output_kind(producer), quant, dtype) or quant
    return Tensor(f"{t.name}_Quantize", DTYPES[dtype], t.shape, quant=quant)


def _quantize_op(
    t: Tensor, dtype: str, producers: dict[Tensor, Operator], user: Operator
) -> Operator:
    new = _converted(t, dtype, producers)
    op = Operator("QUANTIZE", [t], [new], origin=user.origin)
    producers[new] = op
    return op


def _quantize_output(
    model: Model, t: Tensor, dtype: str, producers: dict[Tensor, Operator], op: Operator
) -> Operator:
    """The ``QUANTIZE`` of output ``t`` back to the model dtype; its readers read the new
    tensor."""
    graph = model.main
    new = _converted(t, dtype, producers)
    graph.replace_uses(t, new)
    if new in graph.outputs:
        take_name(t, new, "_Quantize")
        replace_in_signatures(model, t, new, inputs=False)
    quantize = Operator("QUANTIZE", [t], [new], origin=op.origin)
    producers[new] = quantize
    return quantize


def remove_redundant_quantize(model: Model) -> None:
    """Repeated until nothing changes: a ``QUANTIZE`` of a ``QUANTIZE`` reads the first one's
    input; a ``QUANTIZE`` keeping dtype, scale and zero point is removed; unused ``QUANTIZE``
    operators are dropped."""
    graph = model.main
    used = _used(graph)
    changed = True
    while changed:
        changed = False
        producers = graph.producers()
        for op in list(graph.operators):
            if op.opcode != "QUANTIZE":
                continue
            before = producers.get(op.inputs[0])
            if before is not None and before.opcode == "QUANTIZE" and before is not op:
                op.inputs[0] = before.inputs[0]
                changed = True
            elif _identity(op):
                _bypass(model, op)
                changed = True
        changed = _drop_unused(graph, used) or changed


def _identity(op: Operator) -> bool:
    """Whether ``op`` keeps its input's dtype and single scale and zero point."""
    source, out = op.inputs[0], op.outputs[0]
    s, o = source.quant, out.quant
    if s is None or o is None or s.scale is None or o.scale is None or s.zero_point is None:
        return False
    if len(s.scale) != 1 or len(o.scale) != 1 or source.dtype != out.dtype:
        return False
    same_scale = float(s.scale[0]) == float(o.scale[0])
    return same_scale and int(s.zero_point[0]) == int(o.zero_point[0])  # type: ignore[index]


def _bypass(model: Model, op: Operator) -> None:
    graph = model.main
    source, out = op.inputs[0], op.outputs[0]
    graph.operators.remove(op)
    if out in graph.outputs and source not in graph.outputs and source not in graph.inputs:
        source.name, out.name = out.name, source.name
        replace_in_signatures(model, out, source, inputs=False)
    graph.replace_uses(out, source)


def _used(graph: Graph) -> set[int]:
    used = {id(t) for op in graph.operators for t in op.inputs if t is not None}
    used.update(id(t) for t in graph.outputs)
    return used


def _drop_unused(graph: Graph, used_before: set[int]) -> bool:
    """Drop the ``QUANTIZE`` operators whose results were read before the removal started
    and are not any more (others, e.g. after an unused graph input, are kept)."""
    used = _used(graph)
    kept = [
        op
        for op in graph.operators
        if op.opcode != "QUANTIZE"
        or any(id(t) in used or id(t) not in used_before for t in op.outputs)
    ]
    dropped = len(kept) != len(graph.operators)
    graph.operators = kept
    return dropped
