"""Trilu: the upper or lower triangle of the last two dims, by SELECT_V2 with a mask."""

from __future__ import annotations

import numpy as np

from ....ir import Tensor
from ..errors import Unsupported
from ..lowering import Lowering, converter
from ..node import Node
from .common import reshape
from .indexing import scalar_of
from .shape_building import int32, positions


def _triangle(lo: Lowering, name: str, rank: int, k: int, upper: bool) -> Tensor:
    """The BOOL ``[rows, cols]`` mask of Trilu computed in the graph."""
    rows = reshape(lo, positions(lo, name, rank - 2), [-1, 1])
    cols = reshape(lo, positions(lo, name, rank - 1), [1, -1])
    offset = lo.emit("SUB", [cols, rows], "SubOptions", dtype="INT32", name=lo.helper_name("diag"))
    compare = "GREATER_EQUAL" if upper else "LESS_EQUAL"
    return lo.emit(compare, [offset, int32(lo, k, "k")], dtype="BOOL", name=lo.helper_name("mask"))


@converter("Trilu")
def trilu(node: Node, lo: Lowering) -> None:
    """Trilu (14): SELECT_V2 with a mask of the last two dims: a constant when they are known,
    else ``cols - rows >= k`` (``<= k`` for the lower part) over RANGEs of the dims."""
    x_name = node.input(0)
    dims = lo.shape(x_name)
    if dims is None or len(dims) < 2:
        raise Unsupported(f"rank of '{x_name}' must be known")
    k = int(lo.require_const(node.input(1)).reshape(-1)[0]) if node.input(1) else 0
    upper = bool(node.attr("upper", 1))
    x = lo.value(x_name)
    if dims[-2] is not None and dims[-1] is not None:
        rows, cols = np.indices(dims[-2:])
        mask = lo.constant(cols - rows >= k if upper else cols - rows <= k, lo.helper_name("mask"))
    else:
        mask = _triangle(lo, x_name, len(dims), k, upper)
    y = lo.emit("SELECT_V2", [mask, x, scalar_of(lo, 0, x.dtype)], "SelectV2Options", dtype=x.dtype)
    lo.bind(node.outputs[0], y)
