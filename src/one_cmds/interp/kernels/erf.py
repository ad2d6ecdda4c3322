"""The custom operator ``Erf`` (TensorFlow's ``tf.math.erf``, left by the converter as CUSTOM
with code ``Erf``; ``fuse_gelu`` matches it): the Gauss error function, element-wise, computed
with Python's ``math.erf`` (the C library's) in float64 and returned in the input's dtype."""

from __future__ import annotations

import math

import numpy as np

from ..registry import kernel

_ERF = np.frompyfunc(math.erf, 1, 1)


@kernel("CUSTOM(Erf)", real_valued=True)
def erf(op, args, ctx):
    x = np.asarray(args[0])
    return np.asarray(_ERF(x.astype(np.float64)), dtype=np.float64).astype(x.dtype)
