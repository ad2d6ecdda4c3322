"""``fuse_activation_function`` (optimization.md §5.4): a RELU, RELU6 or RELU_N1_TO_1 operator
whose input comes from an operator P with a fused activation and exactly one consumer is
absorbed by P: a copy of P with the combined activation (below) replaces the activation
operator, origin P ∪ activation.

| activation operator | P's activation     | new activation |
| RELU                | NONE, RELU         | RELU           |
| RELU                | RELU6              | RELU6          |
| RELU6               | NONE, RELU, RELU6  | RELU6          |
| RELU_N1_TO_1        | NONE, RELU_N1_TO_1 | RELU_N1_TO_1   |

TANH is never fused. P is one of the operators whose fused activation is applied to their
final result; Concatenation and TransposeConv are not (§5.4). Reference: accepts any operator
with the attribute, among them the recurrent ones (LSTM, RNN, GRU, SVDF) whose activation is
applied inside the recurrence; here they are left alone.
"""

from __future__ import annotations

from . import graph_pass
from .toolkit import (
    NONE,
    RELU,
    RELU6,
    RELU_N1_TO_1,
    GraphEditor,
    activation,
    has_activation_attribute,
    origin_of,
    with_options,
)

# (activation operator, P's activation) -> P's new activation.
_COMBINED = {
    ("RELU", NONE): RELU,
    ("RELU", RELU): RELU,
    ("RELU", RELU6): RELU6,
    ("RELU6", NONE): RELU6,
    ("RELU6", RELU): RELU6,
    ("RELU6", RELU6): RELU6,
    ("RELU_N1_TO_1", NONE): RELU_N1_TO_1,
    ("RELU_N1_TO_1", RELU_N1_TO_1): RELU_N1_TO_1,
}

# Operators whose fused activation is applied element-wise to their one result.
_PRODUCERS = frozenset(
    {
        "ADD",
        "SUB",
        "MUL",
        "DIV",
        "CONV_2D",
        "CONV_3D",
        "DEPTHWISE_CONV_2D",
        "FULLY_CONNECTED",
        "BCQ_FULLY_CONNECTED",
        "AVERAGE_POOL_2D",
        "MAX_POOL_2D",
        "L2_POOL_2D",
        "L2_NORMALIZATION",
        "INSTANCE_NORM",
    }
)


@graph_pass("fuse_activation_function")
def fuse_activation_function(g: GraphEditor) -> int:
    rewrites = 0
    for act in g.ops(*sorted({kind for kind, _ in _COMBINED})):
        p = g.producer(act.inputs[0])
        if p is None or p.opcode not in _PRODUCERS or not g.only_use_is(act.inputs[0], act):
            continue
        combined = _COMBINED.get((act.opcode, activation(p)))
        if combined is None or not has_activation_attribute(p):
            continue
        options = with_options(p.options, fusedActivationFunction=combined)
        out = act.outputs[0]
        new = g.op(p.opcode, p.inputs, options, origin=origin_of(p, act), like=out)
        g.replace(out, new.outputs[0])
        rewrites += 1
    return rewrites
