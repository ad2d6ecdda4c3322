"""What LiteRT's integer kernels require of a quantized graph (quantization.md §25), in one
table with the kernel each row comes from, and the check that runs after every quantization.

The rows were found by running single-operator models in LiteRT (``ai-edge-litert``), with the
output's qparams equal to the input's and different from them, through the default resolver
(XNNPACK delegate) and the reference kernels, and comparing with the float operator requantized
(tests/unit/quant/test_invariants.py keeps that probe as tests). "Rejects" means LiteRT refuses
the model (``Prepare`` fails, or XNNPACK fails to delegate and LiteRT stops); "ignores" means it
runs and writes its result in the input's scale as if it were the output's (tens of LSB off).
The propagation (``propagation.py``) is what satisfies the rules; this check only proves it did.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..ir import Graph, Model, Operator, Tensor
from .activations import FIXED

QUANTIZED = frozenset({"UINT8", "INT8", "INT16"})
ALL = QUANTIZED


@dataclass(frozen=True)
class SameQparams:
    """The output (every output) has the qparams of the value input(s): the first one, or
    every non-constant one (``joined``)."""

    opcodes: frozenset[str]
    dtypes: frozenset[str]
    reason: str
    joined: bool = False


def _row(opcodes: str, dtypes: frozenset[str], reason: str, *, joined: bool = False):
    return SameQparams(frozenset(opcodes.split()), dtypes, reason, joined)


SAME_QPARAMS: tuple[SameQparams, ...] = (
    _row("AVERAGE_POOL_2D", ALL, "pooling.cc averages in the input's scale; ignores the output's"),
    _row("MAX_POOL_2D", ALL, "XNNPACK rejects unequal uint8/int8 qparams; pooling.cc ignores them"),
    _row("RESHAPE SQUEEZE", ALL, "reshape.cc/squeeze.cc share the buffer; ignore the output's"),
    _row("EXPAND_DIMS", ALL, "expand_dims.cc:85 rejects input scale != output scale"),
    _row("TRANSPOSE SLICE", ALL, "XNNPACK rejects unequal uint8/int8; the kernels ignore them"),
    _row("SPACE_TO_DEPTH DEPTH_TO_SPACE", ALL, "XNNPACK rejects unequal; kernels copy values"),
    _row(
        "STRIDED_SLICE GATHER GATHER_ND PAD PADV2 MIRROR_PAD TILE REVERSE_V2 BROADCAST_TO",
        ALL,
        "the kernels copy raw values (strided_slice.cc, gather.cc, pad.cc, tile.cc, ...)",
    ),
    _row("SPACE_TO_BATCH_ND BATCH_TO_SPACE_ND", ALL, "the kernels copy raw values"),
    _row("SPLIT SPLIT_V UNPACK", ALL, "split.cc/split_v.cc/unpack.cc copy raw values"),
    _row(
        "RESIZE_NEAREST_NEIGHBOR RESIZE_BILINEAR",
        ALL,
        "the integer resizes interpolate raw values; ignore the output's qparams",
    ),
    _row("REDUCE_MAX REDUCE_MIN", ALL, "reduce.cc:961 rejects input scale != output scale"),
    _row(
        "MAXIMUM MINIMUM",
        ALL,
        "maximum_minimum.cc compares and copies raw values of both inputs",
        joined=True,
    ),
    _row(
        "PACK", ALL, "pack.cc:93 rejects input zero points or scales != the output's", joined=True
    ),
    _row("SELECT SELECT_V2", ALL, "select.cc copies raw values of both inputs", joined=True),
    _row(
        "CONCATENATION",
        frozenset({"INT8", "INT16"}),
        "concatenation.cc:235 rejects int8 inputs of another scale; int16 joins raw values "
        "(uint8 inputs are rescaled by the kernel)",
        joined=True,
    ),
)
SAME_BY_OPCODE = {opcode: row for row in SAME_QPARAMS for opcode in row.opcodes}
# Fixed output qparams per tensor type (§10 for uint8/int16, §24.3 for int8), from FIXED.
FIXED_BY_TYPE: dict[str, dict[str, tuple[float, int]]] = {
    opcode: {dtype.upper(): value for dtype, value in by_dtype.items()}
    for opcode, by_dtype in FIXED.items()
}
FIXED_REASON = (
    "activations.cc: LOGISTIC requires scale 1/256 (uint8) or 1/32768 (int16); TANH int16 a "
    "power-of-two scale; SOFTMAX writes in 1/256 (uint8) and requires 1/32768 (int16)"
)
BIAS_TOLERANCE = 1e-6
# Operators that convert between types (a raw uint8 image into CAST, say), or that stay float
# between DEQUANTIZE and QUANTIZE on purpose (custom operators).
_CONVERTING = frozenset({"QUANTIZE", "DEQUANTIZE", "CAST", "CUSTOM"})


def invariant_problem(model: Model) -> str | None:
    """The first broken invariant, as ``<operator> '<name>': <rule>``, or None."""
    for graph in model.graphs:
        for op in graph.operators:
            problem = _operator_problem(graph, op)
            if problem is not None:
                where = f"{op.kind} '{op.outputs[0].name}'" if op.outputs else op.kind
                return f"{where}: {problem}"
    return None


def _operator_problem(graph: Graph, op: Operator) -> str | None:
    outputs = [t for t in op.outputs if t is not None]
    if op.opcode in _CONVERTING:
        return None
    for t in [*outputs, *(t for t in op.inputs if t is not None)]:
        if t.dtype in QUANTIZED and not _scaled(t) and not _is_index(op, t):
            return f"'{t.name}' is {t.dtype} without a scale and zero point"
    if _mixes_float(op):
        return "float and quantized activations meet without QUANTIZE/DEQUANTIZE"
    return _same_problem(op) or _fixed_problem(op) or _bias_problem(op)


def _same_problem(op: Operator) -> str | None:
    row = SAME_BY_OPCODE.get(op.opcode)
    if row is None or not op.outputs or op.outputs[0].dtype not in row.dtypes:
        return None
    values = [t for t in op.inputs if t is not None and not _is_index(op, t)]
    sources = values if row.joined else values[:1]
    for source in sources:
        for out in op.outputs:
            if _scaled(source) and _scaled(out) and not _same(source, out):
                return (
                    f"'{out.name}' must have the scale and zero point of '{source.name}' "
                    f"({row.reason})"
                )
    return None


def _fixed_problem(op: Operator) -> str | None:
    fixed = FIXED_BY_TYPE.get(op.opcode)
    out = op.outputs[0] if op.outputs else None
    if fixed is None or out is None or out.dtype not in fixed or not _scaled(out):
        return None
    scale, zero_point = fixed[out.dtype]
    got_scale, got_zero = float(out.quant.scale[0]), int(out.quant.zero_point[0])  # type: ignore[union-attr,index]
    if not np.isclose(got_scale, scale, rtol=1e-6, atol=0) or got_zero != zero_point:
        return (
            f"output qparams ({got_scale:.8g}, {got_zero}) are not the fixed ({scale:.8g}, "
            f"{zero_point}) ({FIXED_REASON})"
        )
    return None


_BIASED = {"CONV_2D": (0, 1, 2), "DEPTHWISE_CONV_2D": (0, 1, 2), "FULLY_CONNECTED": (0, 1, 2)}
_BIASED["TRANSPOSE_CONV"] = (2, 1, 3)


def _bias_problem(op: Operator) -> str | None:
    spec = _BIASED.get(op.opcode)
    if spec is None or len(op.inputs) <= spec[2]:
        return None
    x, w, b = (op.inputs[i] for i in spec)
    if b is None or not all(t is not None and _scaled(t) for t in (x, w, b)):
        return None
    if b.dtype not in ("INT32", "INT64"):
        return None
    expected = float(x.quant.scale[0]) * np.asarray(w.quant.scale, np.float64)  # type: ignore[union-attr,index]
    got = np.asarray(b.quant.scale, np.float64)  # type: ignore[union-attr]
    if got.shape != expected.shape or not np.allclose(got, expected, rtol=BIAS_TOLERANCE, atol=0):
        return f"bias '{b.name}' scale is not input scale x weight scale"
    return None


def _mixes_float(op: Operator) -> bool:
    activations = [t for t in [*op.inputs, *op.outputs] if t is not None and not t.is_constant]
    kinds = {("float" if t.dtype == "FLOAT32" else "int") for t in activations
             if t.dtype == "FLOAT32" or t.dtype in QUANTIZED}  # fmt: skip
    return len(kinds) > 1


# Inputs that are shapes, axes, indices or sizes rather than values.
_INDEX_INPUTS = {
    "RESHAPE": (1,),
    "TRANSPOSE": (1,),
    "EXPAND_DIMS": (1,),
    "SLICE": (1, 2),
    "STRIDED_SLICE": (1, 2, 3),
    "GATHER": (1,),
    "GATHER_ND": (1,),
    "PAD": (1,),
    "PADV2": (1,),
    "MIRROR_PAD": (1,),
    "TILE": (1,),
    "REVERSE_V2": (1,),
    "BROADCAST_TO": (1,),
    "SPACE_TO_BATCH_ND": (1, 2),
    "BATCH_TO_SPACE_ND": (1, 2),
    "SPLIT": (0,),
    "SPLIT_V": (1, 2),
    "RESIZE_NEAREST_NEIGHBOR": (1,),
    "RESIZE_BILINEAR": (1,),
    "REDUCE_MAX": (1,),
    "REDUCE_MIN": (1,),
    "MEAN": (1,),
    "SUM": (1,),
}


def _is_index(op: Operator, t: Tensor) -> bool:
    positions = _INDEX_INPUTS.get(op.opcode, ())
    return any(i < len(op.inputs) and op.inputs[i] is t for i in positions)


def _scaled(t: Tensor) -> bool:
    return t.quant is not None and t.quant.scale is not None and len(t.quant.scale) > 0


def _same(a: Tensor, b: Tensor) -> bool:
    qa, qb = a.quant, b.quant
    return np.array_equal(qa.scale, qb.scale) and np.array_equal(qa.zero_point, qb.zero_point)  # type: ignore[union-attr]
