"""Transposes shared by the layout passes (``convert_nchw_to_nhwc``, ``forward_transpose_op``):
reading a constant permutation and building a new Transpose."""

from __future__ import annotations

import numpy as np

from ...ir import Operator, Origin, Tensor
from .editor import GraphEditor
from .values import const_value, new_options

NCHW_TO_NHWC = (0, 2, 3, 1)
NHWC_TO_NCHW = (0, 3, 1, 2)


def transpose_perm(op: Operator | None) -> tuple[int, ...] | None:
    """The permutation of a Transpose whose ``perm`` is a constant INT32 permutation of its
    input's rank; None for anything else (another operator, a computed or invalid perm)."""
    if op is None or op.opcode != "TRANSPOSE" or op.inputs[1] is None:
        return None
    value = const_value(op.inputs[1])
    if value is None or op.inputs[1].dtype != "INT32":
        return None
    perm = tuple(int(v) for v in value.reshape(-1))
    if sorted(perm) != list(range(len(perm))) or len(op.inputs[0].shape) != len(perm):
        return None
    return perm


def add_transpose(
    g: GraphEditor, x: Tensor, perm: tuple[int, ...], *, origin: Origin, like: Tensor, name: str
) -> Tensor:
    """The output of a new ``Transpose(x, perm)``; dtype and quantization come from ``like``."""
    label = ".".join(str(p) for p in perm)
    perm_tensor = g.const(f"{name}/Transpose_{label}/perm", np.asarray(perm, np.int32))
    new = g.op(
        "TRANSPOSE",
        [x, perm_tensor],
        new_options("TransposeOptions"),
        origin=origin,
        like=like,
        name=f"{name}/Transpose_{label}",
    )
    return new.outputs[0]
