"""``replace_non_const_fc_with_batch_matmul`` (reference ``ReplaceNonConstFCWithBatchMatMulPass``):
a FullyConnected whose weights are not a constant becomes
``BatchMatMul(x, W, adj_y=True)``, a Reshape to the FC's result shape, ``Add(·, bias)`` with
the FC's activation when the bias is constant and not all zero, otherwise a separate activation
operator (none for NONE). A TANH is always a separate operator (LiteRT's ADD ignores a fused
TANH).

Operands are looked through Transposes as the reference does: weights ``Transpose(A, [1, 0])``
of a non-constant A give ``BatchMatMul(·, A, adj_y=False)`` (a Transpose of a constant leaves the
FC alone); an input ``Transpose(B, p)`` where p swaps the last two axes gives
``BatchMatMul(B, ·, adj_x=True)``.

Conditions: FLOAT32 matrix operands and result, the result's shape known, the weights rank 2
``[N, K]`` in the default format, the matrix input of rank >= 2 with a last (contracted)
dimension equal to K, the bias constant FLOAT32 shaped ``[1, ..., 1, N]`` (rank at most the
result's) or absent.

Reference: looks through any Transpose (wrong for a perm that is not the swap), drops a
non-constant bias, does not check the contracted dimension, always inserts the Reshape and
fuses TANH into the Add. Here: only the swap perms, a non-constant bias or a mismatching input
leaves the FC alone, the Reshape only when the BatchMatMul's shape differs from the FC's.
"""

from __future__ import annotations

import numpy as np

from ..ir import Operator, Tensor
from . import graph_pass
from .toolkit import (
    ACTIVATION_OPCODES,
    CLAMPS,
    NONE,
    GraphEditor,
    activation,
    channel_vector,
    const_value,
    is_float32,
    new_options,
)
from .toolkit.fully_connected import bias_of


@graph_pass("replace_non_const_fc_with_batch_matmul")
def replace_non_const_fc_with_batch_matmul(g: GraphEditor) -> int:
    rewrites = 0
    for fc in g.ops("FULLY_CONNECTED"):
        out = fc.outputs[0]
        act = activation(fc)
        w = fc.inputs[1]
        if w.is_constant or getattr(fc.options, "weightsFormat", 0) or not out.is_static:
            continue
        if act != NONE and act not in ACTIVATION_OPCODES:
            continue
        y, adj_y = _rhs(g, w)
        x, adj_x = _lhs(g, fc.inputs[0])
        if y is None or not is_float32(x, y, out) or len(w.shape) != 2 or len(x.shape) < 2:
            continue
        depth = w.shape[1]
        if depth is None or x.shape[-2 if adj_x else -1] != depth:
            continue
        usable, bias = _bias(fc, out)
        if not usable:
            continue
        _replace(g, fc, (x, y, adj_x, adj_y), bias)
        rewrites += 1
    return rewrites


def _swapped(g: GraphEditor, t: Tensor) -> Tensor | None:
    """The input of the Transpose producing ``t`` when its constant perm swaps the last two
    axes and keeps the others; None otherwise."""
    transpose = g.producer_of(t, "TRANSPOSE")
    perm = const_value(transpose.inputs[1]) if transpose is not None else None
    if perm is None or perm.size < 2:
        return None
    rank = perm.size
    swap = [*range(rank - 2), rank - 1, rank - 2]
    return transpose.inputs[0] if perm.reshape(-1).tolist() == swap else None


def _rhs(g: GraphEditor, w: Tensor) -> tuple[Tensor | None, bool]:
    """``(y, adj_y)``: the FC multiplies by ``w`` transposed; a transposed non-constant
    matrix is used as is (None: a transposed constant, the FC stays)."""
    source = _swapped(g, w)
    if source is None:
        return w, True
    return (None, False) if source.is_constant else (source, False)


def _lhs(g: GraphEditor, x: Tensor) -> tuple[Tensor, bool]:
    """``(x, adj_x)``: the input, or the source of a swapping Transpose with adj_x."""
    source = _swapped(g, x)
    return (x, False) if source is None else (source, True)


def _bias(fc: Operator, out: Tensor) -> tuple[bool, Tensor | None]:
    """``(usable, bias to add)``: None when absent or all zero."""
    bias = bias_of(fc)
    if bias is None:
        return True, None
    values = channel_vector(bias, out.shape[-1], ranks=tuple(range(1, len(out.shape) + 1)))
    if values is None or bias.dtype != "FLOAT32":
        return False, None
    return True, bias if np.any(values) else None


def _replace(
    g: GraphEditor,
    fc: Operator,
    operands: tuple[Tensor, Tensor, bool, bool],
    bias: Tensor | None,
) -> None:
    x, y, adj_x, adj_y = operands
    out, act = fc.outputs[0], activation(fc)
    options = new_options("BatchMatMulOptions", adjointLhs=adj_x, adjointRhs=adj_y)
    result = g.op("BATCH_MATMUL", [x, y], options, origin=fc.origin, like=out).outputs[0]
    if result.shape != out.shape:
        shape = g.const(f"{out.name}/shape", np.asarray(out.shape, np.int32), "INT32")
        reshape_options = new_options("ReshapeOptions", newShape=list(out.shape))
        reshape = g.op("RESHAPE", [result, shape], reshape_options, origin=fc.origin, like=out)
        result = reshape.outputs[0]
    if bias is not None:
        in_add = act in CLAMPS
        add_options = new_options("AddOptions", fusedActivationFunction=act if in_add else NONE)
        result = g.op("ADD", [result, bias], add_options, origin=fc.origin, like=out).outputs[0]
        act = NONE if in_add else act
    if act != NONE:
        result = g.op(ACTIVATION_OPCODES[act], [result], origin=fc.origin, like=out).outputs[0]
    g.replace(out, result)
