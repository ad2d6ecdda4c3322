"""Pooling (onnx-import.md §6.1, §6.3): MaxPool and AveragePool as MAX_POOL_2D /
AVERAGE_POOL_2D between layout TRANSPOSEs (rank 3 with a unit H), with PAD/PADV2 for pads and
the ``ceil_mode`` extension and a constant MUL for ONNX's divisors; GlobalAveragePool and
GlobalMaxPool as MEAN / REDUCE_MAX over the spatial axes in ONNX order."""

from __future__ import annotations

import numpy as np

from ....ir import Tensor
from ..errors import Unsupported
from ..lowering import Lowering, converter
from ..node import Node
from .common import options
from .conv import SAME, VALID, Window, nchw_output, nhwc_input, pad_nhwc, spatial_rank

LOWEST = float(np.finfo(np.float32).min)  # −3.4028235e38: pad cells never win a max


@converter("MaxPool", "AveragePool")
def pool(node: Node, lo: Lowering) -> None:
    rank = spatial_rank(lo, node.input(0))
    if node.op_type == "MaxPool" and len(node.outputs) > 1 and node.outputs[1]:
        raise Unsupported("output 'Indices' is not supported")
    window = Window.of(node, lo, rank, list(node.attr("kernel_shape")))
    window.require_no_dilation()
    ceil_mode = bool(node.attr("ceil_mode", 0))
    x = nhwc_input(lo, node.input(0))
    if node.op_type == "MaxPool":
        y = _max_pool(lo, x, window, ceil_mode)
    else:
        y = _average_pool(lo, x, window, ceil_mode, bool(node.attr("count_include_pad", 0)))
    lo.bind(node.outputs[0], nchw_output(lo, y, node.outputs[0], rank))


def _max_pool(lo: Lowering, x: Tensor, window: Window, ceil_mode: bool) -> Tensor:
    """SAME or VALID alone, else PADV2 with the lowest float over pads and ceil extension."""
    extension = _ceil_extension(window, ceil_mode)
    if window.is_same() and not any(extension):
        return _pool2d(lo, "MAX_POOL_2D", x, window, SAME)
    pads = _add_extension(window.explicit_pads(), extension)
    if any(pads):
        lowest = LOWEST if x.dtype == "FLOAT32" else int(np.iinfo(x.dtype.lower()).min)
        x = pad_nhwc(lo, x, pads, lowest)
    return _pool2d(lo, "MAX_POOL_2D", x, window, VALID)


def _average_pool(
    lo: Lowering, x: Tensor, window: Window, ceil_mode: bool, count_pads: bool
) -> Tensor:
    """SAME alone (SAME pads, pads not counted); else PAD zeros, VALID, and a MUL by
    ``kh·kw/divisor`` where an output's ONNX divisor is not the whole window."""
    extension = _ceil_extension(window, ceil_mode)
    if window.is_same() and not count_pads and not any(extension):
        return _pool2d(lo, "AVERAGE_POOL_2D", x, window, SAME)
    explicit = window.explicit_pads()
    pads = _add_extension(explicit, extension)
    if any(pads):
        x = pad_nhwc(lo, x, pads)
    y = _pool2d(lo, "AVERAGE_POOL_2D", x, window, VALID)
    if any(extension) or (any(explicit) and not count_pads):
        factors = _divisor_factors(window, explicit, count_pads, ceil_mode)
        if not np.all(factors == 1):
            scale = lo.constant(factors.astype(np.float32), lo.helper_name("divisors"))
            y = lo.emit("MUL", [y, scale], "MulOptions", name=lo.helper_name("divisor"))
    return y


def _pool2d(lo: Lowering, opcode: str, x: Tensor, window: Window, padding: int) -> Tensor:
    pool_options = options(
        "Pool2DOptions",
        padding=padding,
        strideH=window.strides[0],
        strideW=window.strides[1],
        filterHeight=window.kernel[0],
        filterWidth=window.kernel[1],
    )
    return lo.emit(opcode, [x], pool_options, dtype=x.dtype)


def _output_size(size: int, kernel: int, stride: int, begin: int, end: int, ceil: bool) -> int:
    """ONNX's pooled size; with ``ceil_mode`` a last window starting in the end pad or past
    it is dropped (the PyTorch rule onnxruntime follows)."""
    span = size + begin + end - kernel
    if not ceil:
        return span // stride + 1
    out = -(-span // stride) + 1
    return out - 1 if (out - 1) * stride >= size + begin else out


def _ceil_extension(window: Window, ceil_mode: bool) -> list[int]:
    """Cells past the end pad that the ``ceil_mode`` windows reach, ``[h, w]``."""
    if not ceil_mode or all(s == 1 for s in window.strides):
        return [0, 0]
    size = window.known_size()
    pads = window.explicit_pads()
    extension = []
    for k in range(2):
        begin, end = pads[k], pads[k + 2]
        out = _output_size(size[k], window.kernel[k], window.strides[k], begin, end, True)
        reach = (out - 1) * window.strides[k] + window.kernel[k]
        extension.append(max(0, reach - (size[k] + begin + end)))
    return extension


def _add_extension(pads: list[int], extension: list[int]) -> list[int]:
    return [*pads[:2], pads[2] + extension[0], pads[3] + extension[1]]


def _divisor_factors(
    window: Window, pads: list[int], count_pads: bool, ceil_mode: bool
) -> np.ndarray:
    """``kh·kw / divisor`` per output cell, ``[1, OH, OW, 1]``: the divisor counts the window
    cells inside the input (and inside the explicit pads when they count), never the ceil
    extension."""
    size = window.known_size()
    counts = []
    for k in range(2):
        kernel, stride, begin, end = window.kernel[k], window.strides[k], pads[k], pads[k + 2]
        out = _output_size(size[k], kernel, stride, begin, end, ceil_mode)
        low, high = (-begin, size[k] + end) if count_pads else (0, size[k])
        start = np.arange(out) * stride - begin
        counts.append(np.minimum(start + kernel, high) - np.maximum(start, low))
    divisor = counts[0][:, None] * counts[1][None, :]
    return (window.kernel[0] * window.kernel[1] / divisor)[None, :, :, None]


@converter("GlobalAveragePool", "GlobalMaxPool")
def global_pool(node: Node, lo: Lowering) -> None:
    """MEAN / REDUCE_MAX with ``keep_dims`` over axes 2…r−1, in ONNX axis order."""
    rank = lo.rank(node.input(0))
    if rank < 3:
        raise Unsupported(f"rank {rank} is not supported")
    x = lo.value(node.input(0))
    axes = lo.constant(np.arange(2, rank, dtype=np.int32), lo.helper_name("axes"))
    opcode = "MEAN" if node.op_type == "GlobalAveragePool" else "REDUCE_MAX"
    reducer = options("ReducerOptions", keepDims=True)
    lo.bind(node.outputs[0], lo.emit(opcode, [x, axes], reducer, dtype=x.dtype))
