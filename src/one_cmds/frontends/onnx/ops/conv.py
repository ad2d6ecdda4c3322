"""Conv and ConvTranspose (onnx-import.md §6.1), and what every layout-sensitive converter
shares (§5.1): the NHWC view of an NCHW operand (rank 3 with a unit H), the NCHW view of the
result, and the 2-D window attributes (kernel, strides, dilations, pads, ``auto_pad``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ....ir import Tensor
from ..errors import Unsupported
from ..lowering import NUMPY, Lowering, converter
from ..node import Node
from .common import batch_norm_affine, options, reshape, to_channels_first, to_channels_last
from .fusions import uses_of

SAME, VALID = 0, 1


# -- layout (§5.1) --------------------------------------------------------------------------------
def spatial_rank(lo: Lowering, name: str, ranks: tuple[int, ...] = (3, 4)) -> int:
    """The rank of an NCHW operand, or :class:`Unsupported` when the op takes no such rank."""
    rank = lo.rank(name)
    if rank not in ranks:
        raise Unsupported(f"rank {rank} is not supported")
    return rank


def nhwc_input(lo: Lowering, name: str) -> Tensor:
    """The ONNX value ``name`` channels last: ``TRANSPOSE``, and for rank 3 a unit H after it
    (``[N, C, W]`` → ``[N, W, C]`` → ``[N, 1, W, C]``), so a 1-D op runs as a 2-D one."""
    shape = lo.shape(name)
    x = to_channels_last(lo, lo.value(name), len(shape))
    if len(shape) == 3:
        n, c, w = shape
        x = _unit_h(lo, x, [n, 1, w, c], "unit_h")
    return x


def nchw_output(lo: Lowering, y: Tensor, name: str, rank: int) -> Tensor:
    """The NHWC result ``y`` back in ONNX order (rank 3: the unit H removed first) for the
    ONNX value ``name``."""
    if rank == 3:
        n, c, w = lo.shape(name) or (None, None, None)
        y = _unit_h(lo, y, [n, w, c], "drop_h")
    return to_channels_first(lo, y, rank)


def _unit_h(lo: Lowering, x: Tensor, shape: list[int | None], purpose: str) -> Tensor:
    """Add (rank 3 → 4) or remove (4 → 3) the unit axis 1: a RESHAPE when at most one dim is
    unknown, else EXPAND_DIMS / SQUEEZE."""
    if shape.count(None) <= 1:
        return reshape(lo, x, [-1 if d is None else d for d in shape], purpose)
    if len(shape) == 4:
        axis = lo.constant(np.array(1, np.int32), lo.helper_name(f"{purpose}/axis"))
        return lo.emit("EXPAND_DIMS", [x, axis], name=lo.helper_name(purpose), dtype=x.dtype)
    squeeze = options("SqueezeOptions", squeezeDims=np.array([1], np.int32))
    return lo.emit("SQUEEZE", [x], squeeze, name=lo.helper_name(purpose), dtype=x.dtype)


# -- 2-D windows ----------------------------------------------------------------------------------
def same_pads(size: int, kernel: int, stride: int, dilation: int) -> tuple[int, int]:
    """TensorFlow's SAME pads (begin, end) along one axis (ONNX ``SAME_UPPER``)."""
    effective = (kernel - 1) * dilation + 1
    out = -(-size // stride)
    total = max(0, (out - 1) * stride + effective - size)
    return total // 2, total - total // 2


@dataclass
class Window:
    """The 2-D window of a Conv or pooling node over ``x`` (rank 3 with a unit H): lists are
    ``[h, w]``, ``pads`` is ``[h_begin, w_begin, h_end, w_end]`` as in ONNX."""

    x: str
    rank: int
    size: list[int | None]
    kernel: list[int]
    strides: list[int]
    dilations: list[int]
    pads: list[int]
    auto_pad: str

    @classmethod
    def of(cls, node: Node, lo: Lowering, rank: int, kernel: list[int]) -> Window:
        """The window of ``node`` (``kernel`` in ONNX order, one entry per spatial axis)."""
        x = node.input(0)
        n = rank - 2
        unit = [1] * (4 - rank)
        pads = list(node.attr("pads", [0] * (2 * n)))
        return cls(
            x=x,
            rank=rank,
            size=unit + list(lo.shape(x)[2:]),  # type: ignore[index]
            kernel=unit + list(kernel),
            strides=unit + list(node.attr("strides", [1] * n)),
            dilations=unit + list(node.attr("dilations", [1] * n)),
            pads=[0] * (4 - rank) + pads[:n] + [0] * (4 - rank) + pads[n:],
            auto_pad=node.attr("auto_pad", "NOTSET"),
        )

    def known_size(self) -> list[int]:
        """``[H, W]``, or :class:`Unsupported` naming the first unknown dimension."""
        for k, d in enumerate(self.size):
            if d is None:
                raise Unsupported(f"dimension {k + self.rank - 2} of '{self.x}' must be known")
        return self.size  # type: ignore[return-value]

    def require_no_dilation(self) -> None:
        if any(d != 1 for d in self.dilations):
            raise Unsupported(f"dilations {self.dilations[4 - self.rank :]} is not supported")

    def same(self) -> list[int] | None:
        """TF SAME pads ``[hb, wb, he, we]``; None when a size is unknown."""
        if None in self.size:
            return None
        hw = [
            same_pads(*a)
            for a in zip(self.size, self.kernel, self.strides, self.dilations, strict=True)
        ]  # type: ignore[arg-type]
        return [hw[0][0], hw[1][0], hw[0][1], hw[1][1]]

    def is_same(self) -> bool:
        """Whether TFLite's SAME padding computes this window's pads."""
        return self.auto_pad == "SAME_UPPER" or (
            self.auto_pad == "NOTSET" and self.pads == self.same()
        )

    def explicit_pads(self) -> list[int]:
        """The pads ``auto_pad`` stands for (SAME_* need the sizes)."""
        if self.auto_pad == "VALID":
            return [0, 0, 0, 0]
        if self.auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            self.known_size()
            same = self.same()
            # SAME_LOWER puts the odd pad at the beginning.
            return same if self.auto_pad == "SAME_UPPER" else same[2:] + same[:2]  # type: ignore[index,operator]
        return self.pads

    def padding(self) -> tuple[int, list[int] | None]:
        """(TFLite padding, explicit pads to PAD first or None)."""
        if self.is_same():
            return SAME, None
        pads = self.explicit_pads()
        return VALID, (pads if any(pads) else None)

    def conv_options(self) -> dict:
        return dict(
            strideH=self.strides[0],
            strideW=self.strides[1],
            dilationHFactor=self.dilations[0],
            dilationWFactor=self.dilations[1],
        )


def pad_nhwc(lo: Lowering, x: Tensor, pads: list[int], value: float | None = None) -> Tensor:
    """PAD (PADV2 with ``value``) of an NHWC value by ``[hb, wb, he, we]``."""
    table = [[0, 0], [pads[0], pads[2]], [pads[1], pads[3]], [0, 0]]
    paddings = lo.constant(np.array(table, np.int32), lo.helper_name("pads"))
    if value is None:
        return lo.emit("PAD", [x, paddings], name=lo.helper_name("pad"), dtype=x.dtype)
    fill = lo.constant(np.array(value, NUMPY[x.dtype]), lo.helper_name("pad_value"))
    return lo.emit("PADV2", [x, paddings, fill], name=lo.helper_name("pad"), dtype=x.dtype)


def add_channel_bias(lo: Lowering, y: Tensor, bias_name: str) -> Tensor:
    """``y + B`` for an NHWC ``y`` and a per-channel ``[C]`` bias (broadcast on the last axis)."""
    return lo.emit("ADD", [y, lo.value(bias_name)], "AddOptions", name=lo.helper_name("bias"))


# -- Conv -----------------------------------------------------------------------------------------
@converter("Conv")
def conv(node: Node, lo: Lowering) -> None:
    """CONV_2D, DEPTHWISE_CONV_2D (``group`` = C_in) or SPLIT + CONV_2D per group +
    CONCATENATION; PAD first for pads SAME cannot express; no B → zero bias."""
    rank = spatial_rank(lo, node.input(0))
    w = lo.require_const(node.input(1))  # 16-bit weights stay 16-bit (Lowering.weight)
    window = Window.of(node, lo, rank, list(w.shape[2:]))
    w = w.reshape(*w.shape[:2], *window.kernel)
    padding, pads = window.padding()
    out_c, in_per_group = w.shape[:2]
    group = int(node.attr("group", 1))
    b_name = node.input(2)
    bias = np.zeros(out_c, np.float32) if not b_name else lo.const(b_name)
    y = nhwc_input(lo, node.input(0))
    if pads is not None:
        y = pad_nhwc(lo, y, pads)
    conv_options = dict(padding=padding, **window.conv_options())
    constant_bias = np.zeros(out_c, np.float32) if bias is None else bias.astype(np.float32)
    norm = _absorbed_batch_norm(node, lo) if bias is not None else None
    if norm is not None:
        scale, shift = batch_norm_affine(norm, lo)
        w = (w * scale.reshape(-1, *[1] * (w.ndim - 1))).astype(np.float32)
        constant_bias = (constant_bias * scale + shift).astype(np.float32)
    first = len(lo.operators)
    if group == 1:
        y = _conv2d(lo, y, w, constant_bias, conv_options)
    elif in_per_group == 1:  # group = C_in: depthwise with multiplier C_out / C_in
        weights = lo.weight(w.transpose(1, 2, 3, 0), lo.helper_name("weights"))
        bias_t = lo.constant(constant_bias, lo.helper_name("bias"))
        depthwise = options(
            "DepthwiseConv2DOptions", depthMultiplier=out_c // group, **conv_options
        )
        y = lo.emit("DEPTHWISE_CONV_2D", [y, weights, bias_t], depthwise)
    else:
        y = _grouped(lo, y, w, constant_bias, group, conv_options)
    if bias is None:  # a bias computed in the graph
        y = add_channel_bias(lo, y, b_name)
    if norm is None:
        lo.bind(node.outputs[0], nchw_output(lo, y, node.outputs[0], rank))
        return
    lo.bind(norm.outputs[0], nchw_output(lo, y, norm.outputs[0], rank))
    for op in lo.operators[first:]:
        op.origin = op.origin | {norm.index}


def _absorbed_batch_norm(node: Node, lo: Lowering) -> Node | None:
    """The inference BatchNormalization with constant parameters that alone reads this Conv's
    output (not a graph output): folded into its weights and bias, as torch's exporter does."""
    name = node.outputs[0]
    norm = uses_of(lo).sole_reader(name, "BatchNormalization")
    if norm is None or name in lo.graph_outputs or norm.attr("training_mode", 0):
        return None
    if any(lo.const(norm.input(k)) is None for k in range(1, 5)):
        return None
    lo.absorbed.add(norm.index)
    return norm


def _conv2d(lo: Lowering, y: Tensor, w: np.ndarray, bias: np.ndarray, conv_options: dict):
    """CONV_2D with ONNX weights ``[O, I, kh, kw]`` (stored ``[O, kh, kw, I]``)."""
    weights = lo.weight(w.transpose(0, 2, 3, 1), lo.helper_name("weights"))
    bias_t = lo.constant(bias, lo.helper_name("bias"))
    return lo.emit("CONV_2D", [y, weights, bias_t], options("Conv2DOptions", **conv_options))


def _grouped(lo: Lowering, y: Tensor, w: np.ndarray, bias: np.ndarray, group: int, conv_options):
    """SPLIT of the channels, one CONV_2D per group, CONCATENATION."""
    axis = lo.constant(np.array(3, np.int32), lo.helper_name("split/axis"))
    split = options("SplitOptions", numSplits=group)
    parts = lo.emit("SPLIT", [axis, y], split, outputs=group, name=lo.helper_name("split"))
    per = w.shape[0] // group
    outs = [
        _conv2d(lo, part, w[g * per : (g + 1) * per], bias[g * per : (g + 1) * per], conv_options)
        for g, part in enumerate(parts)
    ]
    return lo.emit("CONCATENATION", outs, options("ConcatenationOptions", axis=3))


# -- ConvTranspose --------------------------------------------------------------------------------
@converter("ConvTranspose")
def conv_transpose(node: Node, lo: Lowering) -> None:
    """TRANSPOSE_CONV (VALID: the full ``(in−1)·s + k`` result), then STRIDED_SLICE for the
    pads (or the pads ``output_shape`` implies), PAD where ``output_padding`` or
    ``output_shape`` reach past the full result, and the bias."""
    rank = spatial_rank(lo, node.input(0))
    w = lo.require_const(node.input(1)).astype(np.float32)
    group = int(node.attr("group", 1))
    if group != 1:
        raise Unsupported(f"group {group} is not supported")
    window = Window.of(node, lo, rank, list(w.shape[2:]))
    w = w.reshape(*w.shape[:2], *window.kernel)
    window.require_no_dilation()
    crops = _transpose_crops(node, window)
    x = nhwc_input(lo, node.input(0))
    out_c = w.shape[1]
    b_name = node.input(2)
    extended = any(end < 0 for _, end in crops)
    bias = lo.const(b_name) if b_name and not extended else None
    weights = lo.constant(w.transpose(1, 2, 3, 0), lo.helper_name("weights"))
    inputs = [_full_shape(lo, x, window, out_c), weights, x]
    if bias is not None:
        inputs.append(lo.constant(bias.astype(np.float32), lo.helper_name("bias")))
    tconv = options(
        "TransposeConvOptions", padding=VALID, strideH=window.strides[0], strideW=window.strides[1]
    )
    y = lo.emit("TRANSPOSE_CONV", inputs, tconv)
    y = _crop(lo, y, crops)
    if extended:
        y = pad_nhwc(lo, y, [0, 0] + [max(0, -end) for _, end in crops])
    if b_name and bias is None:
        y = add_channel_bias(lo, y, b_name)
    lo.bind(node.outputs[0], nchw_output(lo, y, node.outputs[0], rank))


def _transpose_crops(node: Node, window: Window) -> list[tuple[int, int]]:
    """Per spatial axis (h, w): (cells cut at the beginning of the full result, cells cut at
    its end — negative: zeros added), following onnxruntime's rules for ``output_shape`` and
    ``auto_pad`` (total pads clamped at 0)."""
    unit = [0] * (4 - window.rank)
    extras = unit + list(node.attr("output_padding", [0] * (window.rank - 2)))
    output_shape = list(node.attr("output_shape", []))
    if output_shape:
        outs = [1] * (4 - window.rank) + output_shape[len(output_shape) - window.rank + 2 :]
        sizes = window.known_size()
    crops = []
    for k, (kernel, stride, extra) in enumerate(
        zip(window.kernel, window.strides, extras, strict=True)
    ):
        if output_shape:
            full = (sizes[k] - 1) * stride + kernel
            total = max(0, full + extra - outs[k])
            head = total // 2 if window.auto_pad == "SAME_UPPER" else total - total // 2
            crops.append((head, full - head - outs[k]))
        elif window.auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            total = max(0, kernel + extra - stride)  # full + extra − in·stride
            head = total // 2 if window.auto_pad == "SAME_UPPER" else total - total // 2
            crops.append((head, total - head - extra))
        elif window.auto_pad == "VALID":
            crops.append((0, -extra))
        else:
            crops.append((window.pads[k], window.pads[k + 2] - extra))
    return crops


def _full_shape(lo: Lowering, x: Tensor, window: Window, out_c: int) -> Tensor:
    """TRANSPOSE_CONV's output shape ``[N, (H−1)·sh + kh, (W−1)·sw + kw, O]``: a constant when
    N, H, W are known, else computed from SHAPE(x)."""
    n = lo.shape(window.x)[0]  # type: ignore[index]
    strides, kernel = window.strides, window.kernel
    if n is not None and None not in window.size:
        full = [(s - 1) * st + k for s, st, k in zip(window.size, strides, kernel, strict=True)]  # type: ignore[operator]
        return lo.constant(np.array([n, *full, out_c], np.int32), lo.helper_name("output_shape"))
    shape = lo.emit("SHAPE", [x], options("ShapeOptions", outType=2), dtype="INT32")
    scale = lo.constant(np.array([1, *strides, 0], np.int32), lo.helper_name("strides"))
    scaled = lo.emit("MUL", [shape, scale], "MulOptions", dtype="INT32")
    offset = [0, kernel[0] - strides[0], kernel[1] - strides[1], out_c]
    offset_t = lo.constant(np.array(offset, np.int32), lo.helper_name("offset"))
    return lo.emit("ADD", [scaled, offset_t], "AddOptions", dtype="INT32")


def _crop(lo: Lowering, y: Tensor, crops: list[tuple[int, int]]) -> Tensor:
    """STRIDED_SLICE of an NHWC value: ``begin`` cells off the start of H and W, ``end`` > 0
    off their end (negative end indices, so unknown sizes need nothing)."""
    if all(begin == 0 and end <= 0 for begin, end in crops):
        return y
    begin = [0, crops[0][0], crops[1][0], 0]
    end = [0, -max(0, crops[0][1]), -max(0, crops[1][1]), 0]
    end_mask = sum(1 << k for k, e in enumerate(end) if e == 0)
    tensors = [
        lo.constant(np.array(v, np.int32), lo.helper_name(purpose))
        for v, purpose in ((begin, "begin"), (end, "end"), ([1, 1, 1, 1], "strides"))
    ]
    slice_options = options("StridedSliceOptions", endMask=end_mask)
    return lo.emit("STRIDED_SLICE", [y, *tensors], slice_options, name=lo.helper_name("crop"))
