"""``replace_sub_with_add`` (reference ReplaceSubWithAddPass): ``Sub(x, c)`` with c a float32
constant becomes ``Add(x, -c)`` with the Sub's activation (exact: negation is exact and
``x - c == x + (-c)`` in IEEE arithmetic). Origin: a copy of the Sub's."""

from __future__ import annotations

import numpy as np

from . import graph_pass
from .toolkit import GraphEditor, activation, const_value, is_float32, new_options


@graph_pass("replace_sub_with_add")
def replace_sub_with_add(g: GraphEditor) -> int:
    rewrites = 0
    for sub in g.ops("SUB"):
        x, c = sub.inputs[:2]
        value = const_value(c)
        if value is None or not is_float32(c, sub.outputs[0]):
            continue
        negated = g.const(f"{c.name}/neg", np.negative(value), c.dtype)
        options = new_options("AddOptions", fusedActivationFunction=activation(sub))
        g.replace_with(sub, "ADD", [x, negated], options, origin=sub.origin)
        rewrites += 1
    return rewrites
