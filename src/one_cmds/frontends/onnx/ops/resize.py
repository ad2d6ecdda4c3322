"""Resize (10, 11, 18, 19) and Upsample (9) (onnx-import.md §6.2): RESIZE_BILINEAR or
RESIZE_NEAREST_NEIGHBOR between layout TRANSPOSEs (rank 3 with a unit H).

Nearest: TFLite picks ``min(ac ? round((x+o)·s) : floor((x+o)·s), in−1)`` (``max(0, ·)`` with
half-pixel centers) with ``s`` the float32 ``(in−1)/(out−1)`` or ``in/out`` (reference
``GetNearestNeighbor``). For every output index the ONNX source index (exact rationals) is
compared with TFLite's for (align_corners, half_pixel_centers) = (0,0), (0,1), (1,0); the first
equal map wins. An unknown H or W needs an integer factor ≤ 8 and one of the first two
candidates; its map is compared for inputs up to 2000, the size is computed in the graph.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ....ir import Tensor
from ..errors import Unsupported
from ..lowering import Lowering, converter
from ..node import Node
from .common import options
from .conv import nchw_output, nhwc_input, spatial_rank
from .shape_values import Dim, Entry, dims_of, div, shape_value

CANDIDATES = ((False, False), (False, True), (True, False))
MAX_FACTOR = 8  # integer factors allowed on an unknown H or W
MAX_SIZE = 2000  # the unknown H or W the index maps are proven equal for (exclusive)
# Coordinate transformations whose index map for an integer factor does not depend on the
# input size beyond clamping (so one long map stands for every size).
SIZE_FREE = {"asymmetric", "half_pixel", "pytorch_half_pixel", "tf_half_pixel_for_nn",
             "half_pixel_symmetric"}  # fmt: skip
# Linear: coordinate transformation → (align_corners, half_pixel_centers).
LINEAR = {"half_pixel": (False, True), "pytorch_half_pixel": (False, True),
          "half_pixel_symmetric": (False, True), "align_corners": (True, False),
          "asymmetric": (False, False)}  # fmt: skip


@dataclass
class Axis:
    """One resized axis: input size and output size (None when unknown), the ONNX scale of
    the coordinate transformation, and its ONNX axis."""

    axis: int
    size: int | None
    out: int | None
    scale: Fraction | None

    @property
    def factor(self) -> int | None:
        """The integer scale when the size is unknown (None when there is none)."""
        if self.scale is None or self.scale.denominator != 1:
            return None
        return int(self.scale)


@converter("Resize", "Upsample")
def resize(node: Node, lo: Lowering) -> None:
    legacy = node.op_type == "Upsample" or (node.since_version or 0) < 11
    if node.op_type == "Upsample" and node.since_version != 9:
        raise Unsupported(f"since_version {node.since_version} is not supported")
    mode = node.attr("mode", "nearest")
    if mode not in ("nearest", "linear"):
        raise Unsupported(f"mode '{mode}' is not supported")
    ctm = "asymmetric" if legacy else node.attr("coordinate_transformation_mode", "half_pixel")
    if ctm == "tf_crop_and_resize":
        raise Unsupported(f"coordinate_transformation_mode '{ctm}' is not supported")
    rank = spatial_rank(lo, node.input(0))
    axes = _resized_axes(node, lo, rank, legacy)
    if mode == "nearest":
        nearest_mode = None if legacy else node.attr("nearest_mode", "round_prefer_floor")
        flags = _nearest_flags(node.input(0), axes, ctm, nearest_mode)
        opcode, table = "RESIZE_NEAREST_NEIGHBOR", "ResizeNearestNeighborOptions"
    else:
        flags = _linear_flags(node, axes, ctm)
        opcode, table = "RESIZE_BILINEAR", "ResizeBilinearOptions"
    x = nhwc_input(lo, node.input(0))
    size = _size_tensor(lo, x, axes)
    resize_options = options(table, alignCorners=flags[0], halfPixelCenters=flags[1])
    y = lo.emit(opcode, [x, size], resize_options, dtype=x.dtype)
    lo.bind(node.outputs[0], nchw_output(lo, y, node.outputs[0], rank))


# -- scales and sizes -----------------------------------------------------------------------------
def _resized_axes(node: Node, lo: Lowering, rank: int, legacy: bool) -> list[Axis]:
    """The H and W axes (a unit H for rank 3); the batch and channel axes must keep their
    sizes."""
    scales, sizes = _targets(node, lo, rank, legacy)
    dims = dims_of(lo, node.input(0))
    per_axis = [_axis(node, a, dims[a], scales, sizes) for a in range(rank)]  # type: ignore[index]
    if sizes is not None:
        _keep_aspect_ratio(node, per_axis)
    for axis in per_axis[:2]:
        if axis.scale is None:  # a constant size for an unknown dim
            raise Unsupported(f"dimension {axis.axis} of '{node.input(0)}' must be known")
        if axis.scale != 1:
            raise Unsupported(f"scaling of axis {axis.axis} is not supported")
    spatial = per_axis[2:]
    return [Axis(-1, 1, 1, Fraction(1)), *spatial] if rank == 3 else spatial


def _targets(
    node: Node, lo: Lowering, rank: int, legacy: bool
) -> tuple[list[Fraction] | None, list[Entry] | None]:
    """(scales, sizes) over all axes, one of them None: ``axes`` (18) spread to every axis;
    sizes are shape values (an element may stand for an unknown dim, :class:`Sym`)."""
    if legacy:
        return [Fraction(float(s)) for s in _float32(lo.require_const(node.input(1)))], None
    axes = node.attr("axes")
    axes = list(range(rank)) if axes is None else [a % rank for a in axes]
    given = shape_value(lo, node.input(3)) if node.input(3) else []
    if given is None or None in given:
        raise Unsupported(f"input '{node.input(3)}' must be constant")
    if given:
        sizes: list[Entry] = list(dims_of(lo, node.input(0)))  # type: ignore[arg-type]
        for a, s in zip(axes, given, strict=True):
            sizes[a] = s
        return None, sizes
    scales = [Fraction(1)] * rank
    for a, s in zip(axes, _float32(lo.require_const(node.input(2))), strict=True):
        scales[a] = Fraction(float(s))
    return scales, None


def _axis(
    node: Node, a: int, dim: Dim, scales: list[Fraction] | None, sizes: list[Entry] | None
) -> Axis:
    """Axis ``a`` of ``x`` (dim ``dim``) resized by its scale or size. A size that is a
    multiple of the unknown dim itself (``Shape(x)[a]·f``) is the integer factor f."""
    size = dim if isinstance(dim, int) else None
    if sizes is None:
        scale = scales[a]  # type: ignore[index]
        return Axis(a, size, None if size is None else int(size * scale), scale)
    entry = sizes[a]
    if isinstance(entry, int):
        return Axis(a, size, entry, None if size is None else Fraction(entry, size))
    factor = div(entry, dim)
    if not isinstance(factor, int) or factor < 1:
        raise Unsupported(f"input '{node.input(3)}' must be constant")
    return Axis(a, None, None, Fraction(factor))


def _float32(value: np.ndarray) -> np.ndarray:
    return np.asarray(value).astype(np.float32).reshape(-1)


def _keep_aspect_ratio(node: Node, per_axis: list[Axis]) -> None:
    """``keep_aspect_ratio_policy`` (18): one scale over the given axes (the smallest for
    ``not_larger``, the largest for ``not_smaller``), sizes ``round(scale·in)``."""
    policy = node.attr("keep_aspect_ratio_policy", "stretch")
    if policy == "stretch":
        return
    axes = node.attr("axes")
    rank = len(per_axis)
    chosen = [a for a in per_axis if axes is None or a.axis in [b % rank for b in axes]]
    for a in chosen:
        if a.size is None or a.out is None:
            raise Unsupported(f"dimension {a.axis} of '{node.input(0)}' must be known")
    scale = (min if policy == "not_larger" else max)(a.scale for a in chosen)  # type: ignore[type-var]
    for a in chosen:
        a.scale = scale
        a.out = int(scale * a.size + Fraction(1, 2))  # type: ignore[operator]


def _size_tensor(lo: Lowering, x: Tensor, axes: list[Axis]) -> Tensor:
    """RESIZE's ``[out_h, out_w]``: a constant, or ``SHAPE(x)[1:3]·factor + out`` in the
    graph (factor for an unknown size, out for a known one)."""
    if all(a.out is not None for a in axes):
        return lo.constant(np.array([a.out for a in axes], np.int32), lo.helper_name("size"))
    shape = lo.emit("SHAPE", [x], options("ShapeOptions", outType=2), dtype="INT32")
    bounds = [
        lo.constant(np.array(v, np.int32), lo.helper_name(p))
        for v, p in (([1], "begin"), ([3], "end"), ([1], "stride"))
    ]
    hw = lo.emit("STRIDED_SLICE", [shape, *bounds], "StridedSliceOptions", dtype="INT32")
    factors = [0 if a.out is not None else a.factor for a in axes]
    known = [a.out or 0 for a in axes]
    scaled = lo.emit(
        "MUL", [hw, lo.constant(np.array(factors, np.int32), lo.helper_name("factors"))],
        "MulOptions", dtype="INT32",
    )  # fmt: skip
    offset = lo.constant(np.array(known, np.int32), lo.helper_name("known_size"))
    return lo.emit("ADD", [scaled, offset], "AddOptions", dtype="INT32")


def _require_factor(x: str, axis: Axis) -> int:
    """The integer factor (≤ MAX_FACTOR) of an axis whose size is unknown."""
    factor = axis.factor
    if factor is None or not 1 <= factor <= MAX_FACTOR:
        raise Unsupported(f"dimension {axis.axis} of '{x}' must be known")
    return factor


# -- linear ---------------------------------------------------------------------------------------
def _linear_flags(node: Node, axes: list[Axis], ctm: str) -> tuple[bool, bool]:
    """TFLite's flags for a linear resize: its scale is ``in/out``, so the ONNX scale must be
    that ratio; antialiasing only without downscaling."""
    if ctm not in LINEAR:
        raise Unsupported(f"coordinate_transformation_mode '{ctm}' is not supported")
    for axis in axes:
        if axis.size is None:
            if axis.scale is not None and axis.factor is None:  # in·scale must be an integer
                raise Unsupported(f"dimension {axis.axis} of '{node.input(0)}' must be known")
            continue
        if axis.scale != Fraction(axis.out, axis.size):  # type: ignore[arg-type]
            raise Unsupported("scales do not match output size")
        if ctm == "pytorch_half_pixel" and axis.out == 1 and axis.size > 1:
            raise Unsupported(f"coordinate_transformation_mode '{ctm}' is not supported")
    if node.attr("antialias", 0) and any(a.scale is None or a.scale < 1 for a in axes):
        raise Unsupported(f"antialias {node.attr('antialias')} is not supported")
    return LINEAR[ctm]


# -- nearest --------------------------------------------------------------------------------------
def _nearest_flags(
    x: str, axes: list[Axis], ctm: str, nearest_mode: str | None
) -> tuple[bool, bool]:
    """The first candidate whose TFLite index map equals the ONNX one on every axis."""
    candidates = CANDIDATES
    checked = []
    for axis in axes:
        if axis.size is None:
            factor = _require_factor(x, axis)
            if ctm not in SIZE_FREE:
                raise Unsupported(f"dimension {axis.axis} of '{x}' must be known")
            candidates = CANDIDATES[:2]
            axis = Axis(axis.axis, MAX_SIZE - 1, (MAX_SIZE - 1) * factor, Fraction(factor))
        checked.append(axis)
    maps = [onnx_nearest(ctm, nearest_mode, a.size, a.out, a.scale) for a in checked]  # type: ignore[arg-type]
    for ac, hp in candidates:
        if all(
            np.array_equal(m, tflite_nearest(ac, hp, a.size, a.out))  # type: ignore[arg-type]
            for m, a in zip(maps, checked, strict=True)
        ):
            return ac, hp
    raise Unsupported(
        f"nearest index map '{ctm}'/'{_mode_name(nearest_mode, axes)}' "
        f"{_sizes(axes, checked, maps, candidates)} has no TFLite equivalent"
    )


def _mode_name(nearest_mode: str | None, axes: list[Axis]) -> str:
    if nearest_mode is not None:
        return nearest_mode
    return "ceil" if any(a.scale is not None and a.scale < 1 for a in axes) else "floor"


def _sizes(axes: list[Axis], checked: list[Axis], maps, candidates) -> str:
    """``<in>-><out>`` of the first axis no candidate matches alone (``?`` for an unknown
    size), else of both axes (``HxW``)."""
    for axis, a, m in zip(axes, checked, maps, strict=True):
        tflite = [tflite_nearest(ac, hp, a.size, a.out) for ac, hp in candidates]  # type: ignore[arg-type]
        if not any(np.array_equal(m, t) for t in tflite):
            return _size_text(axis)
    return "x".join(str(a.size) for a in axes) + "->" + "x".join(str(a.out) for a in axes)


def _size_text(axis: Axis) -> str:
    if axis.size is None:
        return f"?->{axis.factor}*?"
    return f"{axis.size}->{axis.out}"


def onnx_nearest(
    ctm: str, nearest_mode: str | None, size: int, out: int, scale: Fraction
) -> np.ndarray:
    """ONNX's source index of each output index, in exact rational arithmetic: the
    coordinate transformation gives ``(a·x + b)/d``, ``nearest_mode`` rounds it (None: Upsample
    and Resize-10, floor when upscaling, ceil when downscaling, as onnxruntime), then it is
    clamped to ``[0, in−1]``."""
    a, b, d = _transformation(ctm, size, out, scale)
    x = np.arange(out, dtype=object)
    numerator = x * a + b
    floor = numerator // d
    rest = numerator - floor * d
    if nearest_mode is None:
        nearest_mode = "floor" if scale >= 1 else "ceil"
    bump = {
        "floor": np.zeros(out, dtype=bool),
        "ceil": rest > 0,
        "round_prefer_floor": 2 * rest > d,
        "round_prefer_ceil": 2 * rest >= d,
    }[nearest_mode]
    return np.clip((floor + bump).astype(np.int64), 0, size - 1)


def _transformation(ctm: str, size: int, out: int, scale: Fraction) -> tuple[int, int, int]:
    """``x_original = (a·x + b)/d`` (d > 0) for a coordinate transformation with scale p/q."""
    p, q = scale.numerator, scale.denominator
    if ctm == "asymmetric":
        return q, 0, p
    if ctm == "tf_half_pixel_for_nn":
        return 2 * q, q, 2 * p
    if ctm == "align_corners" or (ctm == "pytorch_half_pixel" and out == 1):
        return (0, 0, 1) if out == 1 else (size - 1, 0, out - 1)
    if ctm == "half_pixel_symmetric":  # offset in/2·(1 − out/(scale·in)) = (in·p − out·q)/2p
        return 2 * q, size * p - out * q + q - p, 2 * p
    return 2 * q, q - p, 2 * p  # half_pixel, pytorch_half_pixel


def tflite_nearest(align_corners: bool, half_pixel: bool, size: int, out: int) -> np.ndarray:
    """TFLite's ``GetNearestNeighbor`` for each output index, in float32 as the kernel."""
    if align_corners and out > 1:
        scale = np.float32(size - 1) / np.float32(out - 1)
    else:
        scale = np.float32(size) / np.float32(out)
    offset = np.float32(0.5 if half_pixel else 0.0)
    value = ((np.arange(out, dtype=np.float32) + offset) * scale).astype(np.float64)
    # align_corners rounds half away from zero (exact in float64)
    index = np.sign(value) * np.floor(np.abs(value) + 0.5) if align_corners else np.floor(value)
    index = np.minimum(index, size - 1)
    if half_pixel:
        index = np.maximum(index, 0)
    return index.astype(np.int64)
