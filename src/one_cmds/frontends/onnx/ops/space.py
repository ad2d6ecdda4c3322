"""DepthToSpace, SpaceToDepth and LRN (onnx-import.md §6.1), between layout TRANSPOSEs
(§5.1): DEPTH_TO_SPACE (``CRD`` after a GATHER of the channels), SPACE_TO_DEPTH,
LOCAL_RESPONSE_NORMALIZATION (rank 4, as onnxruntime)."""

from __future__ import annotations

import numpy as np

from ..errors import Unsupported
from ..lowering import Lowering, converter
from ..node import Node
from .common import options
from .conv import nchw_output, nhwc_input, spatial_rank


@converter("DepthToSpace", "SpaceToDepth")
def depth_space(node: Node, lo: Lowering) -> None:
    """TFLite's channel order is ONNX's ``DCR`` (``(i·b + j)·C + c``); ``CRD`` numbers the
    channels ``c·b² + i·b + j``, so a GATHER reorders them first."""
    x_name = node.input(0)
    rank = spatial_rank(lo, x_name, (4,))
    block = int(node.attr("blocksize"))
    x = nhwc_input(lo, x_name)
    if node.op_type == "SpaceToDepth":
        opcode, table = "SPACE_TO_DEPTH", "SpaceToDepthOptions"
    else:
        opcode, table = "DEPTH_TO_SPACE", "DepthToSpaceOptions"
        if node.attr("mode", "DCR") == "CRD":
            x = _crd_to_dcr(lo, x, x_name, block)
    y = lo.emit(opcode, [x], options(table, blockSize=block), dtype=x.dtype)
    lo.bind(node.outputs[0], nchw_output(lo, y, node.outputs[0], rank))


def _crd_to_dcr(lo: Lowering, x, x_name: str, block: int):
    """GATHER of NHWC channels: new channel ``(i·b + j)·C + c`` reads ``c·b² + i·b + j``."""
    channels = lo.shape(x_name)[1]  # type: ignore[index]
    if channels is None:
        raise Unsupported(f"dimension 1 of '{x_name}' must be known")
    depth = channels // (block * block)
    order = np.arange(channels).reshape(depth, block * block).T.reshape(-1)
    indices = lo.constant(order.astype(np.int32), lo.helper_name("crd_order"))
    gather = options("GatherOptions", axis=3)
    return lo.emit("GATHER", [x, indices], gather, name=lo.helper_name("crd"), dtype=x.dtype)


@converter("LRN")
def lrn(node: Node, lo: Lowering) -> None:
    """LOCAL_RESPONSE_NORMALIZATION: radius ``(size−1)/2``, alpha ``alpha/size`` (TFLite sums
    a symmetric window, so ``size`` must be odd)."""
    rank = spatial_rank(lo, node.input(0), (4,))
    size = int(node.attr("size"))
    if size % 2 == 0:
        raise Unsupported(f"size {size} is not supported")
    lrn_options = options(
        "LocalResponseNormalizationOptions",
        radius=(size - 1) // 2,
        bias=float(node.attr("bias", 1.0)),
        alpha=float(node.attr("alpha", 1e-4)) / size,
        beta=float(node.attr("beta", 0.75)),
    )
    x = nhwc_input(lo, node.input(0))
    y = lo.emit("LOCAL_RESPONSE_NORMALIZATION", [x], lrn_options, dtype=x.dtype)
    lo.bind(node.outputs[0], nchw_output(lo, y, node.outputs[0], rank))
