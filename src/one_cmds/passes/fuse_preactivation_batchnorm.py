"""``fuse_preactivation_batchnorm`` (reference ``FusePreActivationBatchNormPass``): folds the
pre-activation batch norms of ResNetV2-style networks, ``Add(Mul(x, gamma), beta, RELU)``,
into the convolutions around them. **Changes results** (known differences, Samsung/ONE#5782).

1. Swap: a batch-norm pair (gamma, beta float32 ``[C]``, the Add with a fused RELU the Mul's
   only consumer, every gamma ≥ 0) becomes ``Relu(Mul(Add(x, beta'), gamma))`` with
   ``beta' = beta / gamma`` (1 where beta = gamma, gamma 0 taken as 1e-10).
2. Mul forward: when every consumer of the Relu is a Conv2D (constant float32 filter with C
   input channels), possibly behind Means that keep the channel axis, each such Conv2D gets
   ``W[..., i]·gamma[i]`` and the Relu reads the Add: the Mul disappears.
3. Add backward: the Add's ``beta'`` goes into the bias of the Conv2D found walking up from x
   through single-consumer MaxPool2D, Pad and Add operators (filter ``[C, ...]``, no
   activation, bias ``[C]`` or absent); the Add disappears. When x is an Add with several
   consumers (a residual sum), a Conv2D feeding that Add takes ``beta'`` instead, and its
   other consumers read ``Sub(x, beta')``.
4. Sub forward: such a Sub, followed by single-consumer MaxPool2Ds and an Add with a Conv2D
   operand (no activation), moves into that Conv2D's bias as ``−beta'``.

Results differ where gamma is 0 and beta > 0 (the channel becomes 0), and where step 3 walks
through a Pad (the padded border now holds ``beta'``). Origins: the new Add, Sub and Relu
copy the Add's, the new Mul the Mul's; a Conv2D that absorbs an operator adds its origin.
Reference: does not check the activations of the Mul, of the operators walked through, or
of the Conv2Ds whose bias changes, and fails when step 2 did not fire before the residual
case of step 3; here those activations must be NONE and the residual case works either way.
Its conditions that a filter or bias has no other user exist because it edits constants in
place; here every changed constant is a new one, so they are dropped.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..ir import Operator, Tensor
from . import graph_pass
from .toolkit import (
    NONE,
    RELU,
    GraphEditor,
    activation,
    const_value,
    new_options,
    origin_of,
    with_options,
)
from .toolkit.batchnorm import channelwise_mul_add

ZERO_GAMMA = np.float32(1e-10)
_PASSABLE = ("MAX_POOL_2D", "PAD", "ADD")


@dataclass(frozen=True)
class _Swapped:
    add: Operator  # Add(x, beta')
    mul: Operator  # Mul(add, gamma)
    relu: Operator
    gamma: np.ndarray
    beta: Tensor  # beta'


@graph_pass("fuse_preactivation_batchnorm", exact=False, changes_results=True)
def fuse_preactivation_batchnorm(g: GraphEditor) -> int:
    swapped = [s for add in g.ops("ADD") if (s := _swap(g, add)) is not None]
    for s in swapped:
        _fuse_mul_forward(g, s)
    subs = [sub for s in swapped if (sub := _fuse_add_backward(g, s)) is not None]
    for sub in subs:
        _fuse_sub_forward(g, sub)
    return len(swapped)


def _swap(g: GraphEditor, add: Operator) -> _Swapped | None:
    found = channelwise_mul_add(g, add) if activation(add) == RELU else None
    gamma = const_value(found.scale) if found else None
    if gamma is None or (gamma < 0).any():
        return None
    beta = const_value(found.shift)
    ratio = np.where(beta == gamma, 1, beta / np.where(gamma == 0, ZERO_GAMMA, gamma))
    shift = g.const(f"{found.shift.name}/gamma", ratio.astype(np.float32))
    out = add.outputs[0]
    options = with_options(add.options, fusedActivationFunction=NONE)
    new_add = g.op("ADD", [found.x, shift], options, origin=add.origin, like=out)
    new_mul = g.op(
        "MUL",
        [new_add.outputs[0], found.scale],
        found.mul.options,
        origin=found.mul.origin,
        like=found.mul.outputs[0],
    )
    relu = g.op("RELU", [new_mul.outputs[0]], origin=add.origin, like=out)
    g.replace(out, relu.outputs[0])
    return _Swapped(new_add, new_mul, relu, gamma, shift)


def _fuse_mul_forward(g: GraphEditor, s: _Swapped) -> None:
    out = s.relu.outputs[0]
    convs = [_forward_conv(g, op, out, s.gamma.size) for op in g.consumers(out)]
    if g.is_output(out) or any(conv is None for conv in convs):
        return
    for conv in convs:
        w = conv.inputs[1]
        scaled = g.const(f"{w.name}/preact_bn", const_value(w) * s.gamma)
        g.replace_with(
            conv,
            "CONV_2D",
            [conv.inputs[0], scaled, *conv.inputs[2:]],
            conv.options,
            origin=origin_of(conv, s.mul),
        )
    g.replace(s.mul.outputs[0], s.add.outputs[0])


def _forward_conv(g: GraphEditor, op: Operator, t: Tensor, channels: int) -> Operator | None:
    """The Conv2D reading ``t`` through ``op`` (itself, or Means keeping the channels)."""
    if op.inputs[0] is not t:
        return None
    if op.opcode == "CONV_2D":
        return op if _filter_channels(op, axis=3) == channels else None
    if op.opcode == "MEAN" and _keeps_channels(op):
        after = g.single_consumer(op.outputs[0])
        return _forward_conv(g, after, op.outputs[0], channels) if after else None
    return None


def _keeps_channels(mean: Operator) -> bool:
    axes, rank = const_value(mean.inputs[1]), len(mean.inputs[0].shape)
    return axes is not None and rank > 0 and all(int(a) % rank != rank - 1 for a in axes.flat)


def _filter_channels(conv: Operator, axis: int) -> int | None:
    """The size of the Conv2D's constant float32 filter along ``axis`` (None otherwise)."""
    value = const_value(conv.inputs[1])
    if value is None or value.ndim != 4 or conv.inputs[1].dtype != "FLOAT32":
        return None
    return value.shape[axis]


def _fuse_add_backward(g: GraphEditor, s: _Swapped) -> Operator | None:
    """Step 3; returns the Sub it inserted, if any."""
    x, beta = s.add.inputs[0], const_value(s.beta)
    conv = _backward_conv(g, x, beta.size)
    if conv is not None:
        new = _with_bias(g, conv, beta, s.add)
        if new is not None:
            g.replace(conv.outputs[0], new.outputs[0])
            g.replace(s.add.outputs[0], s.add.inputs[0])  # x itself when conv produced it
        return None
    residual = g.producer_of(x, "ADD")
    if residual is None or activation(residual) != NONE:
        return None
    a, b = residual.inputs[:2]
    conv = _backward_conv(g, b, beta.size) or _backward_conv(g, a, beta.size)
    new = _with_bias(g, conv, beta, s.add) if conv is not None else None
    if new is None:
        return None
    g.replace(conv.outputs[0], new.outputs[0])
    sub = g.op("SUB", [x, s.beta], new_options("SubOptions"), origin=s.add.origin, like=x)
    g.replace(x, sub.outputs[0], keep=[sub])
    g.replace(s.add.outputs[0], x)
    return sub


def _backward_conv(g: GraphEditor, t: Tensor | None, channels: int) -> Operator | None:
    """The Conv2D producing ``t`` through single-consumer MaxPool2D, Pad and Add operators."""
    op = g.producer(t)
    if op is None or g.single_consumer(t) is None or activation(op) != NONE:
        return None
    if op.opcode == "CONV_2D":
        return op if _filter_channels(op, axis=0) == channels else None
    if op.opcode in _PASSABLE:
        for u in op.inputs:
            found = _backward_conv(g, u, channels)
            if found is not None:
                return found
    return None


def _with_bias(
    g: GraphEditor, conv: Operator, delta: np.ndarray, absorbed: Operator
) -> Operator | None:
    """A copy of ``conv`` whose bias is increased by ``delta`` (None when its bias is not a
    float32 constant shaped like ``delta`` or absent)."""
    b = conv.inputs[2] if len(conv.inputs) > 2 else None
    bias = np.zeros_like(delta) if b is None else const_value(b)
    if bias is None or bias.shape != delta.shape or (b is not None and b.dtype != "FLOAT32"):
        return None
    name = b.name if b is not None else f"{conv.outputs[0].name}/bias"
    return g.op(
        "CONV_2D",
        [conv.inputs[0], conv.inputs[1], g.const(f"{name}/preact_bn", bias + delta)],
        conv.options,
        origin=origin_of(conv, absorbed),
        like=conv.outputs[0],
    )


def _fuse_sub_forward(g: GraphEditor, sub: Operator) -> None:
    t = sub.outputs[0]
    after = g.single_consumer(t)
    while after is not None and after.opcode == "MAX_POOL_2D" and activation(after) == NONE:
        t = after.outputs[0]
        after = g.single_consumer(t)
    if after is None or after.opcode != "ADD":
        return
    convs = [(i, g.producer_of(u, "CONV_2D")) for i, u in enumerate(after.inputs[:2])]
    position, conv = next(((i, c) for i, c in convs if c is not None), (0, None))
    if conv is None or activation(conv) != NONE:
        return
    new = _with_bias(g, conv, -const_value(sub.inputs[1]), sub)
    if new is not None:
        g.set_input(after, position, new.outputs[0])
        g.replace(sub.outputs[0], sub.inputs[0])
