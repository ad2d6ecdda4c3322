"""``make_batchnorm_gamma_positive`` (optimization.md §5.25): in a batch-norm pair
``Add(Mul(x, gamma), beta)`` whose Add has a fused RELU, every negative gamma value becomes
1e-10. **Changes results** on purpose.

Conditions (reference ``MakeBatchNormGammaPositivePass``): gamma and beta float32 constants of
shape ``[C]`` with C the last dimension of the result; the Add is the Mul's only consumer.
Here the Mul must also have no activation (a Mul with one is no batch norm). The Mul reads a
new constant; it keeps its origin.
"""

from __future__ import annotations

import numpy as np

from . import graph_pass
from .toolkit import RELU, GraphEditor, activation, const_value
from .toolkit.batchnorm import channelwise_mul_add

SMALL_GAMMA = np.float32(1e-10)


@graph_pass("make_batchnorm_gamma_positive", changes_results=True)
def make_batchnorm_gamma_positive(g: GraphEditor) -> int:
    rewrites = 0
    for add in g.ops("ADD"):
        found = channelwise_mul_add(g, add) if activation(add) == RELU else None
        gamma = const_value(found.scale) if found else None
        if gamma is None or not (gamma < 0).any():
            continue
        positive = g.const(f"{found.scale.name}/positive", np.where(gamma < 0, SMALL_GAMMA, gamma))
        position = next(i for i, t in enumerate(found.mul.inputs) if t is found.scale)
        g.set_input(found.mul, position, positive)
        rewrites += 1
    return rewrites
