"""``replace_cw_mul_add_with_depthwise_conv`` (optimization.md §5.19): a channel-wise
``Add(Mul(x, gamma), beta)``, commutative, becomes ``DepthwiseConv2D(x, filter [1,1,1,C] =
gamma, bias = beta)`` with padding SAME, stride 1, dilation 1, multiplier 1 and the Add's
activation; origin Mul ∪ Add.

Conditions: gamma and beta float32 constants of shape ``[C]`` with C the last dimension of the
result; x float32 of rank 4 with C channels; the Add is the Mul's only consumer. The
reference stops after the first replacement of a run and relies on the restart strategy;
here every match of the visit is replaced (the same end result). Here also: the Mul has no
activation, x has C channels itself (no broadcast along them), and the Add's activation is
one a DepthwiseConv2D clamps with (NONE, RELU, RELU6, RELU_N1_TO_1; TANH stays an Add).
"""

from __future__ import annotations

from . import graph_pass
from .toolkit import CLAMPS, GraphEditor, activation, const_value, new_options, origin_of
from .toolkit.batchnorm import channelwise_mul_add

SAME = 0  # the schema's Padding enum


@graph_pass("replace_cw_mul_add_with_depthwise_conv")
def replace_cw_mul_add_with_depthwise_conv(g: GraphEditor) -> int:
    rewrites = 0
    for add in g.ops("ADD"):
        found = channelwise_mul_add(g, add)
        if found is None or activation(add) not in CLAMPS:
            continue
        x, gamma = found.x, const_value(found.scale)
        if len(x.shape) != 4 or x.shape[3] != gamma.size:
            continue
        weights = g.const(f"{found.scale.name}_weights", gamma.reshape(1, 1, 1, -1))
        options = new_options(
            "DepthwiseConv2DOptions",
            padding=SAME,
            strideW=1,
            strideH=1,
            depthMultiplier=1,
            dilationWFactor=1,
            dilationHFactor=1,
            fusedActivationFunction=activation(add),
        )
        inputs = [x, weights, found.shift]
        g.replace_with(add, "DEPTHWISE_CONV_2D", inputs, options, origin=origin_of(found.mul, add))
        rewrites += 1
    return rewrites
