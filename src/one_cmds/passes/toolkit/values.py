"""Reading operands: constant values as numpy, scalars, per-channel vectors, dtypes and the
fused activation of an operator."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from ...interp.activation import NONE, RELU, RELU6, RELU_N1_TO_1, TANH, activation_of
from ...ir import NO_ORIGIN, Operator, Origin, Tensor, composite, numpy_dtype
from ...ir.schema import options_class

# The fused activations that clamp: every one but TANH, which LiteRT's FULLY_CONNECTED refuses
# and its float DEPTHWISE_CONV_2D ignores.
CLAMPS = frozenset({NONE, RELU, RELU_N1_TO_1, RELU6})

# The operator computing each fused activation (but NONE) on its own.
ACTIVATION_OPCODES = {RELU: "RELU", RELU_N1_TO_1: "RELU_N1_TO_1", RELU6: "RELU6", TANH: "TANH"}


def const_value(t: Tensor | None) -> np.ndarray | None:
    """The elements of a dense constant (never a variable, a sparse or a packed tensor)."""
    if t is None or not t.is_constant or t.is_variable or t.sparsity is not None:
        return None
    if numpy_dtype(t.dtype) is None or not t.is_static:
        return None
    return t.data


def scalar_value(t: Tensor | None) -> float | None:
    """The value of a constant with exactly one element (any rank)."""
    value = const_value(t)
    return None if value is None or value.size != 1 else value.reshape(-1)[0].item()


def is_const_scalar(t: Tensor | None, expected: float, *, dtype: str = "FLOAT32") -> bool:
    """Whether ``t`` is a one-element constant of ``dtype`` equal to ``expected``."""
    return t is not None and t.dtype == dtype and scalar_value(t) == expected


def channel_vector(t: Tensor | None, channels: int | None, *, ranks: tuple[int, ...]) -> Any:
    """The flat values of a constant shaped ``[C]`` or ``[1, ..., 1, C]`` (its rank one of
    ``ranks``) with C = ``channels``; None when it is not one."""
    value = const_value(t)
    if value is None or channels is None or value.ndim not in ranks:
        return None
    if value.ndim and (value.shape[-1] != channels or any(d != 1 for d in value.shape[:-1])):
        return None
    return value.reshape(-1) if value.ndim else None


def is_float32(*tensors: Tensor | None) -> bool:
    return all(t is not None and t.dtype == "FLOAT32" for t in tensors)


def split_const(op: Operator) -> tuple[Tensor, Tensor] | None:
    """(the other operand, the constant) of a binary operator with exactly one constant
    operand among its first two inputs; None otherwise."""
    a, b = op.inputs[0], op.inputs[1]
    if const_value(a) is None and const_value(b) is not None:
        return a, b  # type: ignore[return-value]
    if const_value(b) is None and const_value(a) is not None:
        return b, a  # type: ignore[return-value]
    return None


def other_input(op: Operator, t: Tensor) -> Tensor | None:
    """The operand of a binary operator that is not ``t`` (None when ``t`` is not an operand)."""
    a, b = op.inputs[0], op.inputs[1]
    if a is t:
        return b
    if b is t:
        return a
    return None


def activation(op: Operator) -> int:
    """The fused activation of ``op`` (NONE when it has none)."""
    return int(activation_of(op))


def has_activation_attribute(op: Operator) -> bool:
    return hasattr(op.options, "fusedActivationFunction")


def with_options(options: Any, **fields: Any) -> Any:
    """A copy of an options object with some fields changed."""
    new = copy.copy(options)
    for key, value in fields.items():
        if not hasattr(new, key):
            raise AttributeError(f"{type(options).__name__} has no field {key!r}")
        setattr(new, key, value)
    return new


def new_options(name: str, **fields: Any) -> Any:
    """A new options object of the schema bindings, e.g. ``new_options("AddOptions",
    fusedActivationFunction=RELU)``."""
    return with_options(options_class(name)(), **fields)


def origin_of(*ops: Operator | None) -> Origin:
    """The union of the origins of ``ops`` (None members ignored)."""
    found = [op.origin for op in ops if op is not None]
    return composite(found) if found else NO_ORIGIN
