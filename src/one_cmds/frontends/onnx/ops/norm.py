"""Normalizations (onnx-import.md §6.1): BatchNormalization as MUL + ADD with constants folded
at import (or into the weights of the Conv it alone follows: conv.py); InstanceNormalization as
the V1 form ``fuse_instnorm`` recognizes (optimization.md §5.8), channels last between layout
TRANSPOSEs; LayerNormalization and RMSNormalization as their decompositions over ``axis…r−1``
in FLOAT32."""

from __future__ import annotations

import numpy as np

from ....ir import Tensor
from ..errors import Unsupported
from ..lowering import Lowering, converter
from ..node import Node
from .common import batch_norm_affine, options
from .conv import nchw_output, nhwc_input, spatial_rank


@converter("BatchNormalization")
def batch_normalization(node: Node, lo: Lowering) -> None:
    """``x·s + b`` with ``s = γ/√(var+ε)``, ``b = β − mean·s`` shaped ``[C, 1, …]``; nothing
    when the Conv before it absorbed it."""
    if node.index in lo.absorbed:
        return
    if node.attr("training_mode", 0):
        raise Unsupported(f"training_mode {node.attr('training_mode')} is not supported")
    scale, shift = batch_norm_affine(node, lo)
    rank = lo.rank(node.input(0))
    trailing = (1,) * max(0, rank - 2)
    s = lo.constant(scale.astype(np.float32).reshape(-1, *trailing), lo.helper_name("scale"))
    b = lo.constant(shift.astype(np.float32).reshape(-1, *trailing), lo.helper_name("shift"))
    y = lo.emit("MUL", [lo.value(node.input(0)), s], "MulOptions")
    lo.bind(node.outputs[0], lo.emit("ADD", [y, b], "AddOptions"))


def _mean(lo: Lowering, x: Tensor, axes: list[int], purpose: str) -> Tensor:
    """MEAN with ``keep_dims`` over constant ``axes``."""
    axes_t = lo.constant(np.array(axes, np.int32), lo.helper_name(f"{purpose}/axes"))
    reducer = options("ReducerOptions", keepDims=True)
    return lo.emit("MEAN", [x, axes_t], reducer, name=lo.helper_name(purpose))


BINARY_OPTIONS = {"ADD": "AddOptions", "SUB": "SubOptions", "MUL": "MulOptions"}


def _binary(lo: Lowering, opcode: str, a: Tensor, b: Tensor) -> Tensor:
    return lo.emit(opcode, [a, b], BINARY_OPTIONS[opcode])


def _epsilon(lo: Lowering, node: Node) -> Tensor:
    value = np.array(node.attr("epsilon", 1e-5), np.float32)
    return lo.constant(value, lo.helper_name("epsilon"))


def _moments(lo: Lowering, node: Node, x: Tensor, axes: list[int]) -> tuple[Tensor, Tensor]:
    """(mean, rsqrt(var + ε)) over ``axes`` with kept dims: MEAN, SQUARED_DIFFERENCE, MEAN,
    ADD, RSQRT."""
    mean = _mean(lo, x, axes, "mean")
    diff = lo.emit("SQUARED_DIFFERENCE", [x, mean], name=lo.helper_name("squared_difference"))
    var = _mean(lo, diff, axes, "variance")
    return mean, lo.emit("RSQRT", [_binary(lo, "ADD", var, _epsilon(lo, node))])


@converter("InstanceNormalization")
def instance_normalization(node: Node, lo: Lowering) -> None:
    """V1 channels last: ``x·s + (β − s·mean)`` with ``s = γ·rsqrt(var + ε)``, mean and var
    MEANs over the spatial axes (NHWC {1, 2}; rank 3 has a unit H, rank 5 axes {1, 2, 3})."""
    x_name = node.input(0)
    rank = spatial_rank(lo, x_name, (3, 4, 5))
    x = nhwc_input(lo, x_name)
    mean, rsqrt = _moments(lo, node, x, [1, 2, 3] if rank == 5 else [1, 2])
    scale = _binary(lo, "MUL", rsqrt, lo.value(node.input(1)))
    shift = _binary(lo, "SUB", lo.value(node.input(2)), _binary(lo, "MUL", scale, mean))
    y = _binary(lo, "ADD", _binary(lo, "MUL", x, scale), shift)
    lo.bind(node.outputs[0], nchw_output(lo, y, node.outputs[0], rank))


def _normalized_axes(node: Node, lo: Lowering) -> list[int]:
    rank = lo.rank(node.input(0))
    axis = int(node.attr("axis", -1)) % rank
    return list(range(axis, rank))


@converter("LayerNormalization")
def layer_normalization(node: Node, lo: Lowering) -> None:
    """MEAN, SQUARED_DIFFERENCE, MEAN, ADD ε, RSQRT, SUB, MUL, MUL γ, ADD β; the optional
    outputs Mean and InvStdDev are the intermediates (kept dims)."""
    axes = _normalized_axes(node, lo)
    x = lo.value(node.input(0))
    mean, inv_std = _moments(lo, node, x, axes)
    y = _binary(lo, "MUL", _binary(lo, "SUB", x, mean), inv_std)
    y = _binary(lo, "MUL", y, lo.value(node.input(1)))
    if node.input(2):
        y = _binary(lo, "ADD", y, lo.value(node.input(2)))
    for name, tensor in zip(node.outputs, (y, mean, inv_std), strict=False):
        lo.bind(name, tensor)


@converter("RMSNormalization")
def rms_normalization(node: Node, lo: Lowering) -> None:
    """MUL (x²), MEAN, ADD ε, RSQRT, MUL, MUL γ."""
    axes = _normalized_axes(node, lo)
    x = lo.value(node.input(0))
    square = _binary(lo, "MUL", x, x)
    mean_square = _mean(lo, square, axes, "mean_square")
    inv_rms = lo.emit("RSQRT", [_binary(lo, "ADD", mean_square, _epsilon(lo, node))])
    y = _binary(lo, "MUL", _binary(lo, "MUL", x, inv_rms), lo.value(node.input(1)))
    lo.bind(node.outputs[0], y)
