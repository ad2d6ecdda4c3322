"""Helpers the converters share: layout TRANSPOSEs (§5.1), constants, option tables."""

from __future__ import annotations

import numpy as np

from ....ir import Tensor
from ....ir.schema import new_options
from ..lowering import Lowering
from ..node import Node

CHANNELS_LAST = {3: (0, 2, 1), 4: (0, 2, 3, 1), 5: (0, 2, 3, 4, 1)}
CHANNELS_FIRST = {3: (0, 2, 1), 4: (0, 3, 1, 2), 5: (0, 4, 1, 2, 3)}


def transpose(
    lo: Lowering, x: Tensor, perm: tuple[int, ...], purpose: str, name: str | None = None
) -> Tensor:
    """``TRANSPOSE(x, perm)`` (``y.shape[i] = x.shape[perm[i]]``), named ``name`` or
    ``<node>/<purpose>``."""
    permutation = lo.constant(np.array(perm, np.int32), lo.helper_name(f"{purpose}/perm"))
    out = lo.unique(name) if name else lo.helper_name(purpose)
    return lo.emit("TRANSPOSE", [x, permutation], name=out, dtype=x.dtype)


def to_channels_last(lo: Lowering, x: Tensor, rank: int) -> Tensor:
    """The NHWC view of an NCHW value, named ``<value>_nhwc`` (§5.1, §9)."""
    return transpose(lo, x, CHANNELS_LAST[rank], "nhwc", f"{x.name}_nhwc")


def to_channels_first(lo: Lowering, y: Tensor, rank: int) -> Tensor:
    """The NCHW view of an NHWC result (§5.1)."""
    return transpose(lo, y, CHANNELS_FIRST[rank], "nchw")


def axis_last(rank: int, axis: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(the permutation moving ``axis`` to the end, the one moving it back): axis 1 of a
    rank-4 value gives the channels-last pair, which cancels against a convolution's."""
    to_last = (*(a for a in range(rank) if a != axis), axis)
    back = [0] * rank
    for i, a in enumerate(to_last):
        back[a] = i
    return to_last, tuple(back)


def clip_bound(lo: Lowering, node, k: int, attr: str) -> float | str | None:
    """Clip's lower (k 1) or upper (k 2) bound: a number (the attribute before opset 11, a
    constant input after), the name of a non-constant input, or None when there is none."""
    if node.since_version is not None and node.since_version < 11:
        value = node.attr(attr)
        return None if value is None else float(value)
    name = node.input(k)
    if not name:
        return None
    const = lo.const(name)
    return name if const is None else float(const.reshape(()))


def reshape(lo: Lowering, x: Tensor, shape: list[int], purpose: str = "reshape") -> Tensor:
    """``RESHAPE(x, shape)`` with a constant INT32 target."""
    target = lo.constant(np.array(shape, np.int32), lo.helper_name(f"{purpose}/shape"))
    return lo.emit("RESHAPE", [x, target], name=lo.helper_name(purpose), dtype=x.dtype)


def options(name: str, **fields):
    """An options object of the circle schema."""
    return new_options(name, **fields)


def batch_norm_affine(node: Node, lo: Lowering) -> tuple[np.ndarray, np.ndarray]:
    """BatchNormalization's ``(s, b)`` of ``x·s + b`` (float64): ``s = γ/√(var+ε)``,
    ``b = β − mean·s``."""
    gamma, beta, mean, var = (
        lo.require_const(node.input(k)).astype(np.float64) for k in range(1, 5)
    )
    scale = gamma / np.sqrt(var + float(node.attr("epsilon", 1e-5)))
    return scale, beta - mean * scale
