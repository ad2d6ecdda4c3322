"""``substitute_padv2_to_pad`` (reference SubstitutePadV2ToPadPass): a PADV2 whose padding
value cannot win a following max pool becomes a PAD (padding with 0), which quantizes well.

Pattern: ``MaxPool2D(T*(PadV2(T*(x), paddings, v)))`` where ``T*`` are zero or more
Transposes with constant INT32 permutations of length 4. Conditions:

* x is non-negative: a RELU, or a CONV_2D with a fused RELU (reached through the Transposes
  before the PadV2);
* v is a one-element float32 constant ``<= 0``; paddings a constant INT32 ``[4, 2]``;
  the MaxPool is float32;
* the PadV2 and each Transpose after it have a single consumer, ending at the MaxPool2D;
* in the MaxPool's layout (the paddings moved by the Transposes after the PadV2) the padding
  of each spatial side is smaller than the filter, so every pooling window holds an element
  of x, which is >= 0 >= v.

Reference: ignores the MaxPool's padding scheme and the padding of the batch and channel
axes. With SAME padding a window may hold only padded values, and a padded channel holds
only v: in both cases the result changes. **Here:** the MaxPool's padding must be VALID and
the batch and channel axes unpadded. Origin of the Pad: a copy of the PadV2's."""

from __future__ import annotations

from ..ir import Operator, Tensor
from . import graph_pass
from .toolkit import (
    RELU,
    GraphEditor,
    activation,
    const_value,
    is_float32,
    new_options,
    scalar_value,
)
from .toolkit.layout import const_ints

_VALID = 1  # Padding.VALID of the schema


def _perm(op: Operator) -> list[int] | None:
    perm = const_ints(op.inputs[1])
    return perm if perm is not None and sorted(perm) == [0, 1, 2, 3] else None


def _behind_transposes(g: GraphEditor, t: Tensor) -> Operator | None:
    """The producer of ``t``, looking through Transposes."""
    op = g.producer(t)
    while op is not None and op.opcode == "TRANSPOSE":
        op = g.producer(op.inputs[0])
    return op


def _non_negative(g: GraphEditor, t: Tensor) -> bool:
    op = _behind_transposes(g, t)
    if op is None:
        return False
    return op.opcode == "RELU" or (op.opcode == "CONV_2D" and activation(op) == RELU)


def _paddings_at_pool(g: GraphEditor, pad: Operator, pool: Operator) -> list[list[int]] | None:
    """The PadV2's paddings moved through the Transposes up to ``pool``, when each operator
    on the way has ``pool``'s chain as its only consumer; None otherwise."""
    value = const_value(pad.inputs[1])
    if value is None or pad.inputs[1].dtype != "INT32" or value.shape != (4, 2):
        return None
    paddings = value.tolist()
    op = pad
    while True:
        user = g.single_consumer(op.outputs[0])
        if user is pool:
            return paddings
        perm = _perm(user) if user is not None and user.opcode == "TRANSPOSE" else None
        if perm is None:
            return None
        paddings = [paddings[p] for p in perm]
        op = user


@graph_pass("substitute_padv2_to_pad")
def substitute_padv2_to_pad(g: GraphEditor) -> int:
    rewrites = 0
    for pool in g.ops("MAX_POOL_2D"):
        pad = _behind_transposes(g, pool.inputs[0])
        if pad is None or pad.opcode != "PADV2" or getattr(pool.options, "padding", None) != _VALID:
            continue
        x, value = pad.inputs[0], pad.inputs[2] if len(pad.inputs) > 2 else None
        if not is_float32(value, pool.outputs[0]):
            continue
        v = scalar_value(value)
        paddings = _paddings_at_pool(g, pad, pool)
        if v is None or not v <= 0 or paddings is None or not _non_negative(g, x):
            continue
        (n_front, n_end), (top, bottom), (left, right), (c_front, c_end) = paddings
        if n_front or n_end or c_front or c_end:
            continue
        height, width = pool.options.filterHeight, pool.options.filterWidth
        if max(top, bottom) >= height or max(left, right) >= width:
            continue
        options = new_options("PadOptions")
        g.replace_with(pad, "PAD", [x, pad.inputs[1]], options, origin=pad.origin)
        rewrites += 1
    return rewrites
