"""Layer norms whose variance an int8 model cannot hold (issue 31): in an int8 model, the
variance chain of a decomposed layer norm (``square``, its ``Mean``, ``Add(·, eps)``,
``Sqrt``/``Rsqrt``: the operators ampq's ``u8_layernorm_with_s16_variance`` pattern finds)
computes in int16 when its quietest row's recorded variance is below one int8 step of the
squares. An outlier channel stretches the squares' range (PP-OCR rec v6: squares up to
1800 where a quiet token's variance is 0.06), so every square of a quiet row rounds to zero
and its normalization divides by ``sqrt(eps)``; in int16 the step is 256 times finer. The
rest of the layer norm (the means, ``x - μ``, the division) stays int8: widening those
gains nothing measurable (rec v6: 9.0 dB either way, 3.5 dB all-int8).

Operators a ``quant_config`` lists keep the user's choice; uint8 and int16 models are left as
the reference quantizes them (ampq's ``pattern`` algorithm widens uint8 ones on request).
"""

from __future__ import annotations

from ..ir import Model, Tensor
from ..passes.toolkit import GraphEditor
from .ampq_patterns import layernorm
from .mixed_precision import Layer, Precision
from .qparams import activation_range

WIDE = Layer("int16", "channel")


def widen_quiet_variances(model: Model, precision: Precision) -> list[str]:
    """Assign int16 to the variance chain of each quiet int8 layer norm of the main graph;
    one line per widened layer norm."""
    if precision.model.dtype != "int8":
        return []
    g = GraphEditor(model, 0)
    listed = {id(op) for op, _ in precision.listed}
    notes = []
    for root in list(g.graph.operators):
        found = layernorm(g, root)
        if found is None:
            continue
        chain = found[0]  # square, mean, add, root
        squares, variance = chain[0].outputs[0], chain[1].outputs[0]
        step, quietest = _int8_step(squares), _recorded_min(variance)
        if step is None or quietest is None or quietest >= step:
            continue
        if any(id(op) in listed for op in chain):
            continue
        for op in chain:
            precision.assign(op, WIDE)
        notes.append(
            f"layer norm '{root.outputs[0].name}' computes its variance in int16: its quietest "
            f"variance {quietest:.3g} is below one int8 step ({step:.3g}) of the squares "
            f"'{squares.name}'"
        )
    return notes


def _recorded_min(t: Tensor) -> float | None:
    q = t.quant
    return None if q is None or q.min is None else float(q.min[0])


def _int8_step(t: Tensor) -> float | None:
    q = t.quant
    if q is None or q.min is None or q.max is None:
        return None
    return float(activation_range(float(q.min[0]), float(q.max[0]), "int8").scale)
