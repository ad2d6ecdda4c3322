"""Element-wise binary arithmetic with broadcasting and fused activations."""

from __future__ import annotations

import numpy as np

from ..activation import activation_of, fused
from ..registry import kernel


@kernel("ADD")
def add(op, args, ctx):
    return fused(np.add(args[0], args[1]), activation_of(op))
