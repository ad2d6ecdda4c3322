"""``substitute_squeeze_to_reshape`` (reference SubstituteSqueezeToReshapePass): a SQUEEZE
whose input shape is fully known with every dimension >= 1 becomes ``Reshape(x, out)``,
``out`` being the Squeeze's inferred output shape. Origin: a copy of the Squeeze's.

Reference: throws when a listed axis is not of size 1; here the Squeeze is left alone (its
shape inference already rejects such a model)."""

from __future__ import annotations

from . import graph_pass
from .toolkit import GraphEditor
from .toolkit.layout import replace_with_reshape


@graph_pass("substitute_squeeze_to_reshape")
def substitute_squeeze_to_reshape(g: GraphEditor) -> int:
    rewrites = 0
    for squeeze in g.ops("SQUEEZE"):
        x, out = squeeze.inputs[0], squeeze.outputs[0]
        if not x.is_static or any(d < 1 for d in x.shape) or not out.is_static:
            continue
        rank = len(x.shape)
        listed = getattr(squeeze.options, "squeezeDims", None)
        axes = [] if listed is None else [int(a) for a in listed]
        if any(not -rank <= a < rank or x.shape[a] != 1 for a in axes):
            continue
        replace_with_reshape(g, squeeze, x, out.shape)
        rewrites += 1
    return rewrites
