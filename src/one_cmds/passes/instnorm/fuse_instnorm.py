"""``fuse_instnorm`` (optimization.md §5.8): a decomposed instance normalization becomes one
circle ``INSTANCE_NORM(x, gamma [C], beta [C], epsilon)`` with the last matched operator's
activation; the patterns are in :mod:`.patterns`.

Order as in the reference: every ADD is tried as the end of V1/V5/V6 (affine form) and then
V2/V3 (divided form with gamma and beta), then every DIV as V4, then every RESHAPE as V7.
Last, as the reference's post-fusion step, an INSTANCE_NORM whose constant gamma or beta has
one element while C > 1 gets them broadcast to ``[C]`` (a new operator with the same origin).

V3/V4 compute ``(x − μ)/(sqrt(var) + eps)`` while the InstanceNorm computes
``(x − μ)/sqrt(var + eps)``: the fusion is approximate, close only when var ≫ eps
(registered ``exact=False``, like the statistics reordering of the other versions).
"""

from __future__ import annotations

import numpy as np

from ...ir import Operator
from .. import graph_pass
from ..toolkit import GraphEditor, const_value, new_options, origin_of
from .patterns import Match, affine, channels_of, divided, divided_affine, unsqueezed


def _fuse(g: GraphEditor, m: Match) -> None:
    name = m.result.name
    gamma = g.const(f"{name}/gamma", m.gamma.astype(np.float32), "FLOAT32")
    beta = g.const(f"{name}/beta", m.beta.astype(np.float32), "FLOAT32")
    options = new_options(
        "InstanceNormOptions", epsilon=m.epsilon, fusedActivationFunction=m.activation
    )
    new = g.op(
        "INSTANCE_NORM", [m.x, gamma, beta], options, origin=origin_of(*m.ops), like=m.result
    )
    g.replace(m.result, new.outputs[0])


def _broadcast_parameters(g: GraphEditor, norm: Operator) -> bool:
    """Post-fusion: one-element constant gamma/beta of an INSTANCE_NORM become ``[C]``."""
    x, gamma, beta = norm.inputs[:3]
    channels = channels_of(x) if x is not None else None
    values = [const_value(gamma), const_value(beta)]
    if channels is None or channels == 1 or any(v is None for v in values):
        return False
    if all(v.size != 1 for v in values) or gamma.dtype != "FLOAT32" or beta.dtype != "FLOAT32":
        return False
    inputs = [x]
    for t, v in zip((gamma, beta), values, strict=True):
        wide = np.full(channels, v.reshape(-1)[0], np.float32) if v.size == 1 else None
        inputs.append(t if wide is None else g.const(f"{t.name}/broadcast", wide, "FLOAT32"))
    g.replace_with(norm, "INSTANCE_NORM", inputs, norm.options, origin=norm.origin)
    return True


@graph_pass("fuse_instnorm", exact=False)
def fuse_instnorm(g: GraphEditor) -> int:
    rewrites = 0
    matchers = (("ADD", (affine, divided_affine)), ("DIV", (divided,)), ("RESHAPE", (unsqueezed,)))
    for opcode, tries in matchers:
        for op in g.ops(opcode):
            found = next((m for m in (t(g, op) for t in tries) if m is not None), None)
            if found is not None:
                _fuse(g, found)
                rewrites += 1
    for norm in g.ops("INSTANCE_NORM"):
        rewrites += _broadcast_parameters(g, norm)
    return rewrites
