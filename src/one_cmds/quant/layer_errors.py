"""Per-layer quantization error report (a one-cmds addition to ``evaluate_result``).

Every float32 operator output (and graph input) of the float model is compared with the tensor
of the same name in the quantized model, run with the interpreter's integer kernels and
dequantized with its qparams (``scale * (q - zero_point)``), over the ``test_data`` records.
The quantizer keeps tensor names; ``input_type``/``output_type`` rename the model-dtype tensor
around an inserted QUANTIZE/DEQUANTIZE with the suffix ``_Quantize``/``_Dequantize`` and give
the new graph input/output the original name, so a graph input or output is compared with that
suffixed tensor (the one the quantized operators read or produce). Tensors present on one side
only, and non-float tensors of the float model, are skipped.

Metrics, both float64:

* **SQNR** in dB, ``10·log10(Σa² / Σ(a−b)²)`` with both sums taken over all records (the mean
  signal power over the mean error power, so one record where a tensor is all zeros does not
  decide the result); ``inf`` when the two sides are equal, ``-inf`` when the float side is zero
  everywhere and the quantized one is not. Lower is worse.
* **PEIR**, ``max|a−b| / (max a − min a)`` per record, averaged over the records (the §17 MPEIR
  metric). Higher is worse.

Rows are ranked worst first: lowest SQNR, then highest PEIR.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..engines.tensor_values import TensorValues
from ..formats.files import write_atomically
from ..interp import Interpreter, RunContext, evaluate
from ..interp.qparams import channel_params, is_quantized
from ..ir import Graph, Model, Operator, Tensor
from .data import Record
from .metrics import METRICS

CSV_SUFFIX = ".qerror.csv"
HEADER = ("operator_index", "opcode", "tensor", "dtype", "scale", "zero_point", "sqnr_db", "peir")
TABLE_HEADER = ("op", "opcode", "tensor", "dtype", "scale", "zero point", "SQNR (dB)", "PEIR")
WORST = 10
GRAPH_INPUT = "(graph input)"
_peir = METRICS["print_mpeir"][2]


@dataclass
class LayerError:
    """The error of one tensor. ``index`` is its producer's position in the float model (None
    for a graph input, whose opcode is ``(graph input)``); ``dtype``, ``scale`` and
    ``zero_point`` are the quantized side's."""

    index: int | None
    opcode: str
    name: str
    dtype: str
    scale: list[float]
    zero_point: list[int]
    signal: float = 0.0
    noise: float = 0.0
    peirs: list[float] = field(default_factory=list)
    count: int = 0  # elements compared, over every record
    totals: list[float] = field(default_factory=list)  # Σ|a−b| of each record (visq's TAE)

    @property
    def sqnr(self) -> float:
        """``10·log10(signal / noise)`` in dB over every record."""
        if self.noise == 0.0:
            return math.inf
        if self.signal == 0.0:
            return -math.inf
        return 10.0 * math.log10(self.signal / self.noise)

    @property
    def peir(self) -> float:
        """The mean PEIR over the records."""
        return float(np.mean(self.peirs)) if self.peirs else 0.0

    def add(self, a: np.ndarray, b: np.ndarray) -> None:
        """Accumulate one record's float value ``a`` and dequantized value ``b``."""
        self.signal += float(np.sum(a * a))
        self.noise += float(np.sum((a - b) ** 2))
        self.count += a.size
        self.peirs.append(_peir(a, b) if a.size else 0.0)
        self.totals.append(float(np.sum(np.abs(a - b))))


def layer_errors(
    original: Model,
    quantized: Model,
    data: Iterable[Record],
    engine: str = "auto",
    note: Callable[[str], None] | None = None,
) -> list[LayerError]:
    """Per-tensor errors of ``quantized`` against ``original`` over ``data`` (float records
    for ``original``'s graph inputs), worst first. The float side runs on the engine
    ``engine`` chooses (:mod:`one_cmds.engines.choice`), the quantized side on the reference
    interpreter, whose integer kernels run every quantized form."""
    pairs = tensor_pairs(original.main, quantized.main)
    by_tensor = {id(t): row for t, row in pairs}
    compared = {row.name for _, row in pairs}
    float_tensors = [t for t in original.main.referenced_tensors() if t.name in compared]
    float_run = TensorValues(original, float_tensors, engine, note)
    quantized_run = Interpreter(quantized)
    context = RunContext(quantized)
    for record in data:
        compare = comparison(by_tensor, float_run.run(record))
        inputs = quantized_inputs(quantized.main, original.main, record, context)
        for tensor, value in zip(quantized.main.inputs, inputs, strict=True):
            compare(tensor, value)
        quantized_run.run(inputs, observer=compare)
    return ranked([row for _, row in pairs])


def comparison(
    by_tensor: dict[int, LayerError], expected: dict[str, np.ndarray]
) -> Callable[[Tensor, np.ndarray], None]:
    """An interpreter observer adding each compared tensor's record to its row."""

    def compare(tensor: Tensor, value: np.ndarray) -> None:
        row = by_tensor.get(id(tensor))
        if row is not None:
            row.add(np.asarray(expected[row.name], np.float64), _dequantized(tensor, value))

    return compare


def ranked(rows: Iterable[LayerError]) -> list[LayerError]:
    """``rows`` worst first: lowest SQNR, then highest PEIR (stable otherwise)."""
    return sorted(rows, key=lambda r: (r.sqnr, -r.peir))


def table_rows(rows: Sequence[LayerError]) -> list[list[str]]:
    """The console table's cells (scales and metrics with 4 significant digits)."""
    return [[*_identity(r, 4), format(r.sqnr, ".4g"), format(r.peir, ".4g")] for r in rows]


def csv_text(rows: Sequence[LayerError]) -> str:
    """The CSV report: a header line, then one line per row (scales and metrics with 9
    significant digits; several scales or zero points are separated by spaces)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(HEADER)
    for r in rows:
        writer.writerow([*_identity(r, 9), format(r.sqnr, ".9g"), format(r.peir, ".9g")])
    return buffer.getvalue()


def write_csv(path: str, rows: Sequence[LayerError]) -> None:
    """Write :func:`csv_text` to ``path`` atomically."""
    text = csv_text(rows).encode("utf-8")
    write_atomically(path, lambda output: output.write(text))


def _identity(r: LayerError, digits: int) -> list[str]:
    index = "" if r.index is None else str(r.index)
    scale = " ".join(format(s, f".{digits}g") for s in r.scale)
    zero_point = " ".join(str(z) for z in r.zero_point)
    return [index, r.opcode, r.name, r.dtype, scale, zero_point]


def tensor_pairs(float_graph: Graph, quantized_graph: Graph) -> list[tuple[Tensor, LayerError]]:
    """(quantized tensor, empty row) for each float32 graph input and operator output of
    ``float_graph`` that ``quantized_graph`` has, in the float model's order."""
    tensors = _by_name(quantized_graph)
    produced: list[tuple[int | None, str, Tensor]] = [
        (None, GRAPH_INPUT, t) for t in float_graph.inputs
    ]
    for index, op in enumerate(float_graph.operators):
        produced.extend((index, op.kind, t) for t in op.outputs if t is not None)
    pairs = []
    for index, opcode, t in produced:
        other = tensors.get(t.name)
        if t.dtype != "FLOAT32" or other is None:
            continue
        scale, zero_point = _qparams(other)
        pairs.append((other, LayerError(index, opcode, t.name, other.dtype, scale, zero_point)))
    return pairs


def _by_name(graph: Graph) -> dict[str, Tensor]:
    """Graph inputs and operator outputs by name; a graph input or output next to an inserted
    QUANTIZE/DEQUANTIZE stands for the renamed model-dtype tensor (``<name>_Quantize`` or
    ``<name>_Dequantize``) on the other side of it."""
    tensors = {t.name: t for t in graph.inputs}
    tensors.update({t.name: t for op in graph.operators for t in op.outputs if t is not None})
    inputs, outputs = {id(t) for t in graph.inputs}, {id(t) for t in graph.outputs}
    for op in graph.operators:
        if op.opcode not in ("QUANTIZE", "DEQUANTIZE") or not op.inputs or not op.outputs:
            continue
        source, result = op.inputs[0], op.outputs[0]
        if id(source) in inputs and result.name == f"{source.name}_Quantize":
            tensors[source.name] = result
        if id(result) in outputs and source.name == f"{result.name}_{op.opcode.capitalize()}":
            tensors[result.name] = source
    return tensors


def _qparams(t: Tensor) -> tuple[list[float], list[int]]:
    if not is_quantized(t):
        return [], []
    scale, zero_point = channel_params(t, len(t.shape))
    return [float(s) for s in scale.reshape(-1)], [int(z) for z in zero_point.reshape(-1)]


def _dequantized(t: Tensor, value: np.ndarray) -> np.ndarray:
    """``scale * (q - zero_point)`` in float64 for a quantized tensor, else the value."""
    if not is_quantized(t):
        return np.asarray(value, np.float64)
    scale, zero_point = channel_params(t, value.ndim)
    return scale * (value.astype(np.int64) - zero_point)


def quantized_inputs(
    graph: Graph, float_graph: Graph, record: Record, context: RunContext
) -> list[np.ndarray]:
    """The record for ``graph``'s inputs: a float value for a quantized input goes through
    the interpreter's QUANTIZE kernel with that input's qparams; other values are unchanged."""
    values = []
    for t, source, value in zip(graph.inputs, float_graph.inputs, record, strict=True):
        if is_quantized(t) and source.dtype == "FLOAT32":
            float_input = Tensor(t.name, "FLOAT32", t.shape)
            (value,) = evaluate(Operator("QUANTIZE", [float_input], [t]), [value], context)
        values.append(value)
    return values
