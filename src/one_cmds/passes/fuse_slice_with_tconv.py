"""``fuse_slice_with_tconv`` (reference ``FuseSliceWithTConvPass``): a Slice cropping the
result of a TransposeConv becomes that TransposeConv with a smaller output shape, a padding
mode (VALID tried first, then SAME) that puts the crop window in place, and, when channels
are cut, the matching filter rows and bias entries.

Conditions: Slice begin and size constant INT32 ``[4]`` (size −1: to the end) that keep the
whole batch; TransposeConv output shape constant INT32 ``[4]``, W constant float32 rank 4,
bias constant float32 rank 1; the input's height and width known. The new padding must start
the output at ``old padding + begin`` on both spatial axes, and the new output size must
imply the TransposeConv's real input size (LiteRT rejects the operator otherwise).
Reference: compares the new padding with ``begin`` alone, which is right only when the
TransposeConv had no padding of its own, does not check the implied input size and does not
resolve a size of −1; here the conditions above.
"""

from __future__ import annotations

import numpy as np

from ..ir import Operator, Tensor
from . import graph_pass
from .toolkit import GraphEditor, const_value, origin_of, with_options

SAME, VALID = 0, 1  # the schema's Padding enum


def _int_vector(t: Tensor | None) -> list[int] | None:
    value = const_value(t)
    if value is None or t.dtype != "INT32" or value.shape != (4,):
        return None
    return [int(v) for v in value]


def _geometry(size: int, kernel: int, stride: int, padding: int) -> tuple[int, int]:
    """(input size, padding before) that a TransposeConv with output ``size`` implies, as
    TFLite computes them."""
    if padding == SAME:
        implied = (size + stride - 1) // stride
    else:
        implied = (size + stride - kernel) // stride
    return implied, max((implied - 1) * stride + kernel - size, 0) // 2


def _padding(tconv: Operator, shape: list[int], begin: list[int], out: list[int]) -> int | None:
    """The padding mode under which an output of size ``out`` starts where ``begin`` does in
    the output of ``tconv`` (of size ``shape``) and implies the same input; None when neither
    does."""
    opts = tconv.options
    kernel = tconv.inputs[1].shape[1:3]
    strides = (opts.strideH, opts.strideW)
    x = tconv.inputs[2].shape
    axes = ((1, kernel[0], strides[0]), (2, kernel[1], strides[1]))
    wanted = [(x[a], _geometry(shape[a], k, s, opts.padding)[1] + begin[a]) for a, k, s in axes]
    for mode in (VALID, SAME):
        if [_geometry(out[a], k, s, mode) for a, k, s in axes] == wanted:
            return mode
    return None


@graph_pass("fuse_slice_with_tconv")
def fuse_slice_with_tconv(g: GraphEditor) -> int:
    rewrites = 0
    for sl in g.ops("SLICE"):
        tconv = g.producer_of(sl.inputs[0], "TRANSPOSE_CONV")
        if tconv is None or len(tconv.inputs) < 4:
            continue
        shape_t, w, x, b = tconv.inputs[:4]
        shape, begin, size = (_int_vector(t) for t in (shape_t, sl.inputs[1], sl.inputs[2]))
        weights, bias = const_value(w), const_value(b)
        if shape is None or begin is None or size is None or weights is None or bias is None:
            continue
        if w.dtype != "FLOAT32" or b.dtype != "FLOAT32" or weights.ndim != 4 or bias.ndim != 1:
            continue
        out = [s if s != -1 else d - o for s, d, o in zip(size, shape, begin, strict=True)]
        if begin[0] != 0 or out[0] != shape[0] or len(x.shape) != 4:
            continue
        if any(o < 0 or n < 1 or o + n > d for o, n, d in zip(begin, out, shape, strict=True)):
            continue
        padding = _padding(tconv, shape, begin, out)
        if padding is None:
            continue
        channels = slice(begin[3], begin[3] + out[3])
        if out[3] != shape[3]:
            w = g.const(f"{w.name}/fused_slice", weights[channels])
            b = g.const(f"{b.name}/fused_slice", bias[channels])
        new_shape = g.const(f"{shape_t.name}/fused_slice", np.array(out, np.int32))
        g.replace_with(
            sl,
            "TRANSPOSE_CONV",
            [new_shape, w, x, b],
            with_options(tconv.options, padding=padding),
            origin=origin_of(tconv, sl),
        )
        rewrites += 1
    return rewrites
