"""``input_type`` / ``output_type`` (quantization.md §13): QUANTIZE after graph inputs and
QUANTIZE/DEQUANTIZE before graph outputs whose requested type differs from the model's."""

from __future__ import annotations

from collections.abc import Sequence

from ..ir import Model, Operator, Tensor
from .activations import DTYPES, range_qparam
from .errors import QuantizeError

PASSED_THROUGH = frozenset({"BOOL", "INT32", "INT64"})
FLOAT = "float32"


def _types(requested: Sequence[str] | None, count: int, model_dtype: str, what: str) -> list[str]:
    values = list(requested or [model_dtype])
    if len(values) == 1:
        values = values * count
    if len(values) != count:
        raise QuantizeError(f"Invalid number of {what} dtype")
    return [v.lower() for v in values]


def take_name(old: Tensor, new: Tensor, suffix: str) -> None:
    """``new`` takes ``old``'s name; ``old`` gets ``<name><suffix>``."""
    new.name, old.name = old.name, old.name + suffix


def set_input_types(model: Model, requested: Sequence[str] | None, model_dtype: str) -> None:
    graph = model.main
    types = _types(requested, len(graph.inputs), model_dtype, "input")
    for position, (t, wanted) in enumerate(zip(list(graph.inputs), types, strict=True)):
        if t.dtype in PASSED_THROUGH:
            # an integer input (token ids, ...) stays as it is for float I/O too (int8 models
            # default to float I/O)
            if wanted not in (model_dtype, t.dtype.lower(), FLOAT):
                raise QuantizeError("Unsupported input type")
            continue
        if wanted == model_dtype:
            continue
        if wanted not in (FLOAT, *DTYPES):
            raise QuantizeError("Unsupported input type")
        new = Tensor(t.name, "FLOAT32" if wanted == FLOAT else DTYPES[wanted], t.shape)
        if wanted != FLOAT:
            new.quant = range_qparam(t, wanted)
        take_name(t, new, "_Quantize")
        graph.operators.insert(0, Operator("QUANTIZE", [new], [t]))
        graph.inputs[position] = new
        replace_in_signatures(model, t, new, inputs=True)


def set_output_types(model: Model, requested: Sequence[str] | None, model_dtype: str) -> None:
    graph = model.main
    types = _types(requested, len(graph.outputs), model_dtype, "output")
    producers = graph.producers()
    for position, (t, wanted) in enumerate(zip(list(graph.outputs), types, strict=True)):
        producer = producers.get(t)
        unquantized = t.quant is None or t.quant.scale is None
        if t.dtype in PASSED_THROUGH or unquantized or producer is None:
            continue
        if wanted == model_dtype:
            continue
        if wanted == FLOAT:
            new = Tensor(t.name, "FLOAT32", t.shape)
            opcode = "DEQUANTIZE"
        elif wanted in DTYPES:
            new = Tensor(t.name, DTYPES[wanted], t.shape, quant=range_qparam(t, wanted))
            opcode = "QUANTIZE"
        else:
            raise QuantizeError("Unsupported output type")
        take_name(t, new, f"_{opcode.capitalize()}")
        graph.operators.append(Operator(opcode, [t], [new], origin=producer.origin))
        graph.outputs[position] = new
        replace_in_signatures(model, t, new, inputs=False)


def replace_in_signatures(model: Model, old: Tensor, new: Tensor, *, inputs: bool) -> None:
    for signature in model.signature_defs:
        if signature.graph_index != 0:
            continue
        pairs = signature.inputs if inputs else signature.outputs
        pairs[:] = [(k, new if t is old else t) for k, t in pairs]
