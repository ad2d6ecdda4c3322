"""Activation qparams (quantization.md §9, §10): every non-constant float32 tensor with a
recorded range becomes uint8 (asymmetric) or int16 (symmetric); operators with fixed output
ranges (LOGISTIC, TANH, SOFTMAX) and integer-valued ones (FLOOR, ...) get theirs."""

from __future__ import annotations

import copy

import numpy as np

from ..ir import Graph, Operator, QuantParam, Tensor
from ..ir.schema import new_options
from .qparams import activation_range
from .rounding import round_away

DTYPES = {"uint8": "UINT8", "int16": "INT16", "int8": "INT8"}
DTYPE_NAMES = {v: k for k, v in DTYPES.items()}
TANH_ACTIVATION = 4

# Output (scale, zero point) of the fixed-range operators, per model dtype.
# int8 (§24.3): LiteRT's int8 kernels require these (activations.cc, l2norm.cc).
FIXED = {
    "LOGISTIC": {"uint8": (1 / 256, 0), "int16": (1 / 32768, 0), "int8": (1 / 256, -128)},
    "TANH": {"uint8": (2 / 256, 128), "int16": (1 / 32768, 0), "int8": (1 / 128, 0)},
    "SOFTMAX": {"uint8": (1 / 255, 0), "int16": (1 / 32767, 0), "int8": (1 / 256, -128)},
    "LOG_SOFTMAX": {"int8": (16 / 256, 127)},
    "L2_NORMALIZATION": {"int8": (1 / 128, 0)},
}
INTEGER_VALUED = frozenset({"FLOOR", "FLOOR_DIV", "FLOOR_MOD", "CEIL"})


def has_range(t: Tensor) -> bool:
    q = t.quant
    return q is not None and q.min is not None and q.max is not None and len(q.min) > 0


def range_qparam(t: Tensor, dtype: str) -> QuantParam:
    """The qparam of ``dtype`` for ``t``'s recorded range (the range is kept)."""
    lo, hi = float(t.quant.min[0]), float(t.quant.max[0])  # type: ignore[index,union-attr]
    r = activation_range(lo, hi, dtype)
    return QuantParam(
        scale=np.array([r.scale], np.float32),
        zero_point=np.array([r.zero_point], np.int64),
        min=t.quant.min,  # type: ignore[union-attr]
        max=t.quant.max,  # type: ignore[union-attr]
    )


def quantize_activations(graph: Graph, dtype: str) -> None:
    """§9: every non-constant float32 tensor with a range gets ``dtype``'s qparam."""
    for t in graph.referenced_tensors():
        if t.dtype == "FLOAT32" and not t.is_constant and has_range(t):
            t.quant = range_qparam(t, dtype)
            t.dtype = DTYPES[dtype]


def output_kind(op: Operator) -> str:
    """The §10 kind of ``op``'s output: TANH for a fused TANH activation, else the opcode."""
    if getattr(op.options, "fusedActivationFunction", 0) == TANH_ACTIVATION:
        return "TANH"
    return op.opcode


def special_qparam(kind: str, quant: QuantParam, dtype: str) -> QuantParam | None:
    """§10 for an output of ``kind`` whose ``dtype`` qparam is ``quant``: the fixed or
    integer-scale qparam (min/max kept), or None when ``kind`` has neither."""
    fixed = FIXED.get(kind, {}).get(dtype)
    if fixed is not None:
        scale, zero_point = fixed
        return QuantParam(
            scale=np.array([scale], np.float32),
            zero_point=np.array([zero_point], np.int64),
            min=quant.min,
            max=quant.max,
        )
    if kind in INTEGER_VALUED:
        s = float(quant.scale[0])  # type: ignore[index]
        integer = 1.0 if s < 1 else float(round_away(s))
        return QuantParam(
            scale=np.array([integer], np.float32),
            zero_point=quant.zero_point,
            min=quant.min,
            max=quant.max,
        )
    return None


def fixed_output_qparams(graph: Graph, dtype: str) -> None:
    """§10: fixed-range outputs and integer scales, for the dtype each output has (an
    operator of another dtype than the model's, §12, keeps its own)."""
    for op in graph.operators:
        out = op.outputs[0] if op.outputs else None
        if out is None or out.quant is None or out.quant.scale is None:
            continue
        special = special_qparam(output_kind(op), out.quant, DTYPE_NAMES.get(out.dtype, dtype))
        if special is not None:
            out.quant = special


SCALED_INT16 = {"ADD": "AddOptions", "SUB": "SubOptions"}


def general_int16_scales(graph: Graph) -> None:
    """INT16 ADD and SUB get ``pot_scale_int16`` false (**adopted**; the reference keeps the
    schema's default, true): their scales come from ranges, so the runtime must rescale in
    general, where its power-of-two path refuses scales that happen to be powers of two
    without one input at the output scale."""
    for op in graph.operators:
        name = SCALED_INT16.get(op.opcode)
        if name is None or op.outputs[0].dtype != "INT16":
            continue
        options = new_options(name) if op.options is None else copy.copy(op.options)
        options.potScaleInt16 = False
        op.options = options
