"""Conv (onnx-import.md §6.1): CONV_2D, DEPTHWISE_CONV_2D or grouped SPLIT/CONV/CONCAT, with
PAD for pads TFLite's SAME cannot express, between layout TRANSPOSEs (§5.1)."""

from __future__ import annotations

import numpy as np

from ..errors import Unsupported
from ..lowering import Lowering, converter
from ..node import Node
from .common import options, reshape, to_channels_first, to_channels_last

SAME, VALID = 0, 1


def same_pads(size: int | None, kernel: int, stride: int, dilation: int) -> tuple[int, int] | None:
    """TensorFlow's SAME pads (begin, end) along one axis; None when the size is unknown."""
    if size is None:
        return None
    effective = (kernel - 1) * dilation + 1
    out = -(-size // stride)
    total = max(0, (out - 1) * stride + effective - size)
    return total // 2, total - total // 2


def padding_of(
    auto: str,
    pads: list[int],
    spatial: list[int | None],
    kernel: list[int],
    strides: list[int],
    dilations: list[int],
) -> tuple[int, list[int] | None]:
    """(TFLite padding, explicit pads [b0, b1, e0, e1] to PAD first or None) for ONNX
    ``auto_pad`` and ``pads`` of a 2-D window."""
    if auto == "VALID":
        return VALID, None
    if auto in ("SAME_UPPER", "SAME_LOWER"):
        if auto == "SAME_UPPER":
            return SAME, None
        lower = [same_pads(*a) for a in zip(spatial, kernel, strides, dilations, strict=True)]
        if any(p is None for p in lower):
            raise Unsupported("auto_pad 'SAME_LOWER' needs known spatial dimensions")
        # SAME_LOWER puts the odd pad at the beginning.
        return VALID, [p[1] for p in lower] + [p[0] for p in lower]  # type: ignore[index]
    if not any(pads):
        return VALID, None
    same = [same_pads(*a) for a in zip(spatial, kernel, strides, dilations, strict=True)]
    if all(p is not None for p in same) and [p[0] for p in same] + [p[1] for p in same] == pads:  # type: ignore[index]
        return SAME, None
    return VALID, pads


def pad_nhwc(lo: Lowering, x, pads: list[int]):
    """PAD of an NHWC value by ONNX spatial pads [b0, b1, …, e0, e1, …]."""
    n = len(pads) // 2
    table = [[0, 0]] + [[pads[i], pads[i + n]] for i in range(n)] + [[0, 0]]
    paddings = lo.constant(np.array(table, np.int32), lo.helper_name("pads"))
    return lo.emit("PAD", [x, paddings], name=lo.helper_name("pad"), dtype=x.dtype)


@converter("Conv")
def conv(node: Node, lo: Lowering) -> None:
    x_name, w_name, b_name = node.input(0), node.input(1), node.input(2)
    rank = lo.rank(x_name)
    if rank not in (3, 4):
        raise Unsupported(f"rank {rank} is not supported")
    w = lo.require_const(w_name).astype(np.float32)
    shape = lo.shape(x_name)
    spatial = list(shape[2:])  # type: ignore[index]
    if rank == 3:  # 1-D convolution: a unit H
        w = w[:, :, None, :]
        spatial = [1, *spatial]
    out_c, in_per_group, kh, kw = w.shape
    group = int(node.attr("group", 1))
    kernel = [kh, kw]
    strides = list(node.attr("strides", [1] * (rank - 2)))
    dilations = list(node.attr("dilations", [1] * (rank - 2)))
    onnx_pads = list(node.attr("pads", [0] * (2 * (rank - 2))))
    if rank == 3:
        strides, dilations = [1, *strides], [1, *dilations]
        onnx_pads = [0, onnx_pads[0], 0, onnx_pads[1]]
    auto = node.attr("auto_pad", "NOTSET")
    padding, pads = padding_of(auto, onnx_pads, spatial, kernel, strides, dilations)
    bias = lo.const(b_name) if b_name else np.zeros(out_c, np.float32)
    if bias is None:
        raise Unsupported(f"input '{b_name}' must be constant")
    x = lo.value(x_name)
    if rank == 3:
        x = reshape_unit_h(lo, x, shape)
    y = to_channels_last(lo, x, 4)
    if pads is not None:
        y = pad_nhwc(lo, y, pads)
    in_c = in_per_group * group
    conv_options = dict(
        padding=padding,
        strideH=strides[0],
        strideW=strides[1],
        dilationHFactor=dilations[0],
        dilationWFactor=dilations[1],
    )
    bias_t = lo.constant(bias.astype(np.float32), lo.helper_name("bias"))
    if group == 1:
        weights = lo.constant(w.transpose(0, 2, 3, 1), lo.helper_name("weights"))
        y = lo.emit("CONV_2D", [y, weights, bias_t], options("Conv2DOptions", **conv_options))
    elif group == in_c and in_per_group == 1:
        multiplier = out_c // in_c
        weights = lo.constant(w.transpose(1, 2, 3, 0), lo.helper_name("weights"))
        y = lo.emit(
            "DEPTHWISE_CONV_2D",
            [y, weights, bias_t],
            options("DepthwiseConv2DOptions", depthMultiplier=multiplier, **conv_options),
        )
    else:
        y = _grouped(lo, y, w, bias, group, conv_options)
    y = to_channels_first(lo, y, 4)
    if rank == 3:
        y = reshape_drop_h(lo, y)
    lo.bind(node.outputs[0], y)


def _grouped(lo: Lowering, y, w: np.ndarray, bias: np.ndarray, group: int, conv_options: dict):
    """SPLIT of the channels, one CONV_2D per group, CONCATENATION."""
    axis = lo.constant(np.array(3, np.int32), lo.helper_name("split/axis"))
    parts = lo.emit(
        "SPLIT",
        [axis, y],
        options("SplitOptions", numSplits=group),
        outputs=group,
        name=lo.helper_name("split"),
    )
    per = w.shape[0] // group
    outs = []
    for g, part in enumerate(parts if group > 1 else [parts]):
        weights = lo.constant(
            w[g * per : (g + 1) * per].transpose(0, 2, 3, 1), lo.helper_name("weights")
        )
        b = lo.constant(bias[g * per : (g + 1) * per].astype(np.float32), lo.helper_name("bias"))
        outs.append(
            lo.emit("CONV_2D", [part, weights, b], options("Conv2DOptions", **conv_options))
        )
    return lo.emit("CONCATENATION", outs, options("ConcatenationOptions", axis=3))


def reshape_unit_h(lo: Lowering, x, shape):
    """[N, C, W] → [N, C, 1, W] (a 1-D op as a 2-D one with a unit H)."""
    n, c, w = shape
    if None in (c, w):
        raise Unsupported("dimension 1 of the input must be known")
    return reshape(lo, x, [-1 if n is None else n, c, 1, w], "unit_h")


def reshape_drop_h(lo: Lowering, y):
    """[N, C, 1, W] → [N, C, W]."""
    return lo.emit(
        "SQUEEZE",
        [y],
        options("SqueezeOptions", squeezeDims=np.array([2], np.int32)),
        name=lo.helper_name("drop_h"),
    )
