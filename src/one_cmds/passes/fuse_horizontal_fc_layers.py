"""``fuse_horizontal_fc_layers`` (reference ``FuseHorizontalFullyConnectedPass``):
``Add(FullyConnected(x, W1, b1), FullyConnected(x, W2, b2))`` becomes
``FullyConnected(x, W1 + W2, b1 + b2)`` with the Add's activation.

Conditions: both FCs read the same input tensor, have activation NONE, FLOAT32 results of equal
shape, constant FLOAT32 weights of equal shape in the default format, and either constant
FLOAT32 biases of equal shape or no bias at all (one of each, or a non-constant bias, stays).
The FCs may have other consumers: they then stay for them.

Reference: builds the new FC with default options (``keep_num_dims`` false, so a
``keep_num_dims`` pair changes the result's shape) and gives it any activation of the Add,
TANH included. Here: the new FC copies the first FC's options (equal result shapes make the
two agree), and only activations LiteRT's FC accepts (NONE, RELU, RELU_N1_TO_1, RELU6) fuse.
"""

from __future__ import annotations

from ..ir import Operator
from . import graph_pass
from .toolkit import CLAMPS, NONE, GraphEditor, activation, is_float32, origin_of, with_options
from .toolkit.fully_connected import bias_of, const_bias, const_weights


@graph_pass("fuse_horizontal_fc_layers", exact=False)
def fuse_horizontal_fc_layers(g: GraphEditor) -> int:
    rewrites = 0
    for add in g.ops("ADD"):
        left = g.producer_of(add.inputs[0], "FULLY_CONNECTED")
        right = g.producer_of(add.inputs[1], "FULLY_CONNECTED")
        if left is None or right is None or activation(add) not in CLAMPS:
            continue
        if not _pair(left, right):
            continue
        w1, w2 = const_weights(left), const_weights(right)
        if w1 is None or w2 is None or w1.shape != w2.shape:
            continue
        units = w1.shape[0]
        ok1, b1 = const_bias(left, units, "FLOAT32")
        ok2, b2 = const_bias(right, units, "FLOAT32")
        if not (ok1 and ok2) or (b1 is None) != (b2 is None):
            continue
        if b1 is not None and bias_of(left).shape != bias_of(right).shape:
            continue
        weights = g.const(f"{left.inputs[1].name}/horizontal", w1 + w2, "FLOAT32")
        bias = None if b1 is None else g.const(f"{bias_of(left).name}/horizontal", b1 + b2)
        options = with_options(left.options, fusedActivationFunction=activation(add))
        g.replace_with(
            add,
            "FULLY_CONNECTED",
            [left.inputs[0], weights, bias],
            options,
            origin=origin_of(left, right, add),
        )
        rewrites += 1
    return rewrites


def _pair(left: Operator, right: Operator) -> bool:
    """Two FCs of the same input with equal FLOAT32 results and no activation."""
    a, b = left.outputs[0], right.outputs[0]
    return (
        left.inputs[0] is right.inputs[0]
        and is_float32(a, b, left.inputs[1], right.inputs[1])
        and a.shape == b.shape
        and activation(left) == NONE
        and activation(right) == NONE
    )
