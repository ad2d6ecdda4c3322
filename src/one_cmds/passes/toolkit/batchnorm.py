"""Matching shared by the batch-norm family of passes: ``Add(Mul(x, scale), shift)`` with
constant scale and shift (a batch norm as TensorFlow lowers it), and replacing an Add by a
new TransposeConv whose RELU or RELU6 becomes an operator of its own."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from ...ir import Operator, Origin, Tensor
from .editor import GraphEditor
from .values import (
    NONE,
    RELU,
    RELU6,
    activation,
    channel_vector,
    const_value,
    is_float32,
    split_const,
    with_options,
)

# Activations a TransposeConv fusion accepts on the Add, and the operator each becomes.
TCONV_ADD_ACTIVATIONS = {NONE: None, RELU: "RELU", RELU6: "RELU6"}


@dataclass(frozen=True)
class MulAdd:
    """``add = Add(Mul(x, scale), shift)``; ``scale`` and ``shift`` are the constants."""

    add: Operator
    mul: Operator
    x: Tensor
    scale: Tensor
    shift: Tensor


def mul_add(g: GraphEditor, add: Operator) -> MulAdd | None:
    """``add`` as ``Add(Mul(x, scale), shift)`` with constant ``scale`` and ``shift``,
    commutative at both levels, the Mul without activation and every operand float32."""
    shift_side = split_const(add)
    mul = g.producer_of(shift_side[0], "MUL") if shift_side else None
    scale_side = split_const(mul) if mul is not None else None
    if scale_side is None or activation(mul) != NONE:
        return None
    found = MulAdd(add, mul, scale_side[0], scale_side[1], shift_side[1])
    if not is_float32(found.x, found.scale, found.shift, mul.outputs[0], add.outputs[0]):
        return None
    return found


def batchnorms_after(g: GraphEditor, opcode: str) -> Iterator[tuple[MulAdd, Operator]]:
    """Every :func:`mul_add` of the graph whose x comes from an ``opcode`` operator without
    activation, with that operator."""
    for add in g.ops("ADD"):
        found = mul_add(g, add)
        producer = g.producer_of(found.x, opcode) if found else None
        if producer is not None and activation(producer) == NONE:
            yield found, producer


def channelwise_mul_add(g: GraphEditor, add: Operator) -> MulAdd | None:
    """A batch-norm pair: :func:`mul_add` where scale and shift have shape ``[C]`` (C: the
    last dimension of the Add's result) and the Add is the Mul's only consumer."""
    found = mul_add(g, add)
    shape = add.outputs[0].shape
    if found is None or not shape or not g.only_use_is(found.mul.outputs[0], add):
        return None
    if any(channel_vector(t, shape[-1], ranks=(1,)) is None for t in (found.scale, found.shift)):
        return None
    return found


def per_channel(t: Tensor | None, channels: int, *, ranks: tuple[int, ...]) -> np.ndarray | None:
    """:func:`channel_vector`, or a one-element float32 constant of rank at most 4 repeated
    ``channels`` times: a scalar affine after a convolution (PP-LCNetV3's learnable affine
    blocks) folds into it like a batch norm. **Adopted** beyond optimization.md §5.1–§5.3,
    whose reference passes want one value per channel."""
    vector = channel_vector(t, channels, ranks=ranks)
    value = const_value(t)
    if vector is not None or value is None or value.size != 1 or value.ndim > 4:
        return vector
    return np.full(channels, value.reshape(()), np.float32) if t.dtype == "FLOAT32" else None


def scale_shift(found: MulAdd, channels: int) -> tuple[np.ndarray, np.ndarray] | None:
    """The flat scale and shift when both are shaped ``[C]`` or ``[1, 1, 1, C]`` or hold one
    value (:func:`per_channel`)."""
    scale = per_channel(found.scale, channels, ranks=(1, 4))
    shift = per_channel(found.shift, channels, ranks=(1, 4))
    return None if scale is None or shift is None else (scale, shift)


def replace_by_tconv(
    g: GraphEditor,
    add: Operator,
    tconv: Operator,
    inputs: Sequence[Tensor | None],
    origin: Origin,
) -> None:
    """Replace the result of ``add`` by a new TransposeConv on ``inputs`` with ``tconv``'s
    options and no activation; a RELU or RELU6 of the Add follows as its own operator with
    the Add's origin."""
    out = add.outputs[0]
    options = with_options(tconv.options, fusedActivationFunction=NONE)
    result = g.op("TRANSPOSE_CONV", inputs, options, origin=origin, like=out).outputs[0]
    separate = TCONV_ADD_ACTIVATIONS[activation(add)]
    if separate is not None:
        result = g.op(separate, [result], origin=add.origin, like=out).outputs[0]
    g.replace(out, result)
