"""Fused activation functions (``ActivationFunctionType`` of the schema)."""

from __future__ import annotations

import numpy as np

NONE, RELU, RELU_N1_TO_1, RELU6, TANH, SIGN_BIT = range(6)


def fused(x: np.ndarray, code: int) -> np.ndarray:
    """Apply the fused activation ``code`` to ``x`` (returns a new array unless NONE)."""
    if code == NONE:
        return x
    if code == RELU:
        return np.maximum(x, 0, dtype=x.dtype)
    if code == RELU6:
        return np.clip(x, 0, 6).astype(x.dtype, copy=False)
    if code == RELU_N1_TO_1:
        return np.clip(x, -1, 1).astype(x.dtype, copy=False)
    if code == TANH:
        return np.tanh(x)
    if code == SIGN_BIT:
        return np.signbit(x).astype(x.dtype)
    raise ValueError(f"unknown fused activation {code}")


def activation_of(op: object) -> int:
    """The fused activation code of an operator's options (NONE when absent)."""
    return getattr(getattr(op, "options", None), "fusedActivationFunction", NONE) or NONE
