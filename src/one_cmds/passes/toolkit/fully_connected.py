"""Operand readers shared by the FULLY_CONNECTED passes (``fuse_add_with_fully_connected``,
``fuse_horizontal_fc_layers``, ``replace_non_const_fc_with_batch_matmul``,
``replace_with_fc_gelu_fc``)."""

from __future__ import annotations

import numpy as np

from ...ir import Operator, Tensor
from .values import const_value


def bias_of(fc: Operator) -> Tensor | None:
    """The bias operand of a FULLY_CONNECTED (None when omitted)."""
    return fc.inputs[2] if len(fc.inputs) > 2 else None


def const_weights(fc: Operator) -> np.ndarray | None:
    """The constant ``[units, depth]`` weights of a FULLY_CONNECTED stored in the default
    format; None otherwise (non-constant, shuffled, not rank 2)."""
    if getattr(fc.options, "weightsFormat", 0):
        return None
    weights = const_value(fc.inputs[1])
    return weights if weights is not None and weights.ndim == 2 else None


def const_bias(fc: Operator, units: int, dtype: str) -> tuple[bool, np.ndarray | None]:
    """``(usable, values)`` of a FULLY_CONNECTED's bias: ``(True, None)`` when it has none,
    ``(True, flat values)`` for a constant of ``dtype`` with ``units`` elements, otherwise
    ``(False, None)`` (a non-constant bias, another dtype or size)."""
    bias = bias_of(fc)
    if bias is None:
        return True, None
    values = const_value(bias)
    if values is None or bias.dtype != dtype or values.size != units:
        return False, None
    return True, values.reshape(-1)
