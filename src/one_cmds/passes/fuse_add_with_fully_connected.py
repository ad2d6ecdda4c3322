"""``fuse_add_with_fully_connected`` (optimization.md §5.5): ``Add(FullyConnected(x, W, b), a)``
(commutative) becomes ``FullyConnected(x, W, a + b)`` with the Add's activation.

Conditions: the FC has activation NONE, constant weights ``[N, K]`` in the default format, a
constant bias of N elements or none, and exactly one consumer, the Add (its result is no graph
output); the addend is a constant shaped ``[1, ..., 1, N]`` of rank 1 to the FC result's rank.
The FC result, the Add result and the addend are all FLOAT32, or all INT16 (variant below).

INT16 variant (reference): the addend's zero points are 0, the bias (if any) is INT64 with zero
points 0, the FC input has one scale ``s_in``, the weights one scale or N scales ``s_w``, the Add
result one scale and zero point 0. Addend and bias are dequantized and summed in float64, then
requantized as ``round(sum / s_b[i])`` (half away from zero) with ``s_b = float32(s_in·s_w)``;
the new INT64 bias has scales ``s_b``, zero points 0. The FC result takes the Add's qparam.

Reference: also fuses a TANH of the Add, never checks that the addend's rank keeps the FC's
result shape, requires exactly N scales on the INT16 addend, weights and bias, and writes the
Add's scale into the FC result's zero point. Here: only activations LiteRT's FC accepts (NONE,
RELU, RELU_N1_TO_1, RELU6), the addend's rank at most the result's, one scale (per tensor, as the
quantizer gives an Add's constant) or N scales, zero point 0; a zero ``s_b`` leaves the pattern
alone (the reference writes a zero bias).
"""

from __future__ import annotations

import numpy as np

from ..ir import Operator, QuantParam, Tensor
from . import graph_pass
from .toolkit import (
    CLAMPS,
    NONE,
    GraphEditor,
    activation,
    channel_vector,
    origin_of,
    other_input,
    with_options,
)
from .toolkit.fully_connected import bias_of, const_bias, const_weights


@graph_pass("fuse_add_with_fully_connected", exact=False)
def fuse_add_with_fully_connected(g: GraphEditor) -> int:
    rewrites = 0
    for fc in g.ops("FULLY_CONNECTED"):
        out = fc.outputs[0]
        add = g.single_consumer(out)
        if add is None or add.opcode != "ADD" or activation(fc) != NONE:
            continue
        addend = other_input(add, out)
        weights = const_weights(fc)
        if addend is None or weights is None or activation(add) not in CLAMPS:
            continue
        dtype = out.dtype
        if add.outputs[0].dtype != dtype or addend.dtype != dtype:
            continue
        units = weights.shape[0]
        values = channel_vector(addend, units, ranks=tuple(range(1, len(out.shape) + 1)))
        if values is None:
            continue
        if dtype == "FLOAT32":
            bias = _float_bias(g, fc, values)
        elif dtype == "INT16":
            bias = _int16_bias(g, fc, add, addend, values)
        else:
            continue
        if bias is None:
            continue
        options = with_options(fc.options, fusedActivationFunction=activation(add))
        g.replace_with(
            add,
            "FULLY_CONNECTED",
            [fc.inputs[0], fc.inputs[1], bias],
            options,
            origin=origin_of(fc, add),
        )
        rewrites += 1
    return rewrites


def _bias_name(fc: Operator) -> str:
    bias = bias_of(fc)
    return f"{(bias or fc.outputs[0]).name}/fused_add"


def _float_bias(g: GraphEditor, fc: Operator, addend: np.ndarray) -> Tensor | None:
    usable, old = const_bias(fc, addend.size, "FLOAT32")
    if not usable:
        return None
    fused = addend if old is None else addend + old
    return g.const(_bias_name(fc), fused.astype(np.float32), "FLOAT32")


def _scales(t: Tensor | None, counts: tuple[int, ...], *, zero: bool) -> np.ndarray | None:
    """The scales of ``t``'s qparam when there are ``counts`` of them (and, with ``zero``, all
    its zero points are 0); None otherwise."""
    quant = t.quant if t is not None else None
    if quant is None or quant.scale is None or len(quant.scale) not in counts:
        return None
    zero_point = quant.zero_point
    if zero and zero_point is not None and np.any(np.asarray(zero_point) != 0):
        return None
    return np.asarray(quant.scale, dtype=np.float32).reshape(-1)


def _int16_bias(
    g: GraphEditor, fc: Operator, add: Operator, addend: Tensor, values: np.ndarray
) -> Tensor | None:
    units = values.size
    per = (1, units)
    s_add = _scales(addend, per, zero=True)
    s_in = _scales(fc.inputs[0], (1,), zero=False)
    s_w = _scales(fc.inputs[1], per, zero=False)
    usable, old = const_bias(fc, units, "INT64")
    s_old = _scales(bias_of(fc), per, zero=True) if old is not None else np.zeros(1, np.float32)
    if s_add is None or s_in is None or s_w is None or not usable or s_old is None:
        return None
    if _scales(add.outputs[0], (1,), zero=True) is None:
        return None
    total = values * s_add.astype(np.float64)
    if old is not None:
        total = total + old * s_old.astype(np.float64)
    scale = (s_in * s_w).astype(np.float32)
    if not np.all(np.isfinite(scale)) or np.any(scale == 0):
        return None
    ratio = total / scale.astype(np.float64)
    rounded = np.sign(ratio) * np.floor(np.abs(ratio) + 0.5)
    bias = g.const(_bias_name(fc), rounded.astype(np.int64), "INT64")
    bias.quant = QuantParam(scale=scale, zero_point=np.zeros(scale.size, np.int64))
    return bias
