"""MediaPipe's landmark custom operators (float32): Landmarks2TransformMatrix,
TransformLandmarks and TransformTensorBilinear, with the semantics of
landmarks_to_transform_matrix.cc, transform_landmarks.cc and transform_tensor_bilinear.cc in
mediapipe/util/tflite/operations (options parsed as TensorFlow's GPU-delegate parsers in
tensorflow/lite/delegates/gpu/common/mediapipe do).

The operator version picks the variant, as MediaPipe registers them: version 1 or 2
(TransformTensor, TransformTensorBilinear's version-1 name, is version 1). MediaPipe's
kernels only look at the first batch element; here every element of the first axis is
transformed with its own matrix (a matrix with batch 1 serves all), so a batch of stacked
records gives each record's own result.
"""

from __future__ import annotations

import math

import numpy as np

from ..registry import kernel
from .mediapipe_options import (
    bilinear_output_hw,
    flex_float,
    flex_int,
    flex_map,
    flex_pairs,
)


def _version(op, *known: int) -> int:
    if op.version not in known:
        raise ValueError(f"version {op.version} is not one of {', '.join(map(str, known))}")
    return op.version


def _xy(flat: np.ndarray, index: int) -> tuple[float, float]:
    """(x, y) of landmark ``index`` in a flat list of (x, y, z) triples."""
    if index < 0 or 3 * index + 1 >= flat.size:
        raise ValueError(f"landmark {index} is out of range ({flat.size // 3} landmarks)")
    return float(flat[3 * index]), float(flat[3 * index + 1])


def _rotation(r: float) -> np.ndarray:
    return np.array([[math.cos(r), -math.sin(r)], [math.sin(r), math.cos(r)]])


def _matrix_v1(flat: np.ndarray, o: dict) -> np.ndarray:
    """Version 1: rotation from two landmarks, box of the rotated subset, mapped from the
    output's pixel grid to the input's (``input_hw``, ``output_hw``, ``landmarks_range``)."""
    in_h, in_w = (int(v) for v in o.get("input_hw") or (0, 0))
    out_h, out_w = (int(v) for v in o.get("output_hw") or (0, 0))
    scale = flex_float(o, "bbox_size_multiplier")
    span = flex_int(o, "landmarks_range")
    pairs = flex_pairs(o, "subset")
    if flex_int(o, "dimensions") != 3 or scale == 0 or span <= 0 or not pairs:
        raise ValueError("dimensions must be 3, bbox_size_multiplier and subset non-empty")
    if min(in_h, in_w, out_h, out_w) <= 0:
        raise ValueError("input_hw and output_hw must be positive")
    lx, ly = _xy(flat, flex_int(o, "left_rotation_idx"))
    rx, ry = _xy(flat, flex_int(o, "right_rotation_idx"))
    with np.errstate(divide="ignore", invalid="ignore"):
        alpha = -math.atan(np.float64(ry - ly) / np.float64(rx - lx))
    points = np.array([_xy(flat, i) for pair in pairs for i in pair])
    rotated = points @ _rotation(alpha).T
    lo = np.minimum(rotated.min(axis=0), 100000.0)
    hi = np.maximum(rotated.max(axis=0), -100000.0)
    size = (hi - lo) * scale
    middle = _rotation(-alpha) @ ((hi + lo) / 2.0)
    cos, sin = math.cos(-alpha), math.sin(-alpha)
    rotation = np.array(
        [[cos, -sin, middle[0] / span * 2 - 1], [sin, cos, middle[1] / span * 2 - 1], [0, 0, 1]]
    )
    scaling = np.diag([size[0] / span, size[1] / span, 1.0])
    to_relative = np.array([[2 / (out_w - 1), 0, -1], [0, 2 / (out_h - 1), -1], [0, 0, 1]])
    to_absolute = np.array(
        [[(in_w - 1) / 2, 0, (in_w - 1) / 2], [0, (in_h - 1) / 2, (in_h - 1) / 2], [0, 0, 1]]
    )
    m = to_absolute @ rotation @ scaling @ to_relative
    out = np.zeros((4, 4))
    out[0, [0, 1, 3]] = m[0]
    out[1, [0, 1, 3]] = m[1]
    out[2, :3] = m[2]
    out[3, 3] = 1.0
    return out


def _matrix_v2(flat: np.ndarray, o: dict) -> np.ndarray:
    """Version 2: ``shift(center) · rotate(-r) · scale(scale · box / output) ·
    shift(-output / 2)``, r the target rotation minus the angle of the two rotation
    landmarks, the box that of the subset in the rotated frame."""
    out_h, out_w = flex_int(o, "output_height"), flex_int(o, "output_width")
    sx, sy = flex_float(o, "scale_x"), flex_float(o, "scale_y")
    pairs = flex_pairs(o, "subset_idxs")
    if min(out_h, out_w) <= 0 or min(sx, sy) <= 0 or not pairs:
        raise ValueError("output size and scales must be positive and subset_idxs non-empty")
    lx, ly = _xy(flat, flex_int(o, "left_rotation_idx"))
    rx, ry = _xy(flat, flex_int(o, "right_rotation_idx"))
    r = flex_float(o, "target_rotation_radians", 0.0) - math.atan2(ry - ly, rx - lx)
    points = np.array([_xy(flat, i) for pair in pairs for i in pair])
    rotated = points @ _rotation(r).T
    lo, hi = rotated.min(axis=0), rotated.max(axis=0)
    width, height = hi - lo
    cx, cy = _rotation(-r) @ ((lo + hi) / 2)
    c, s = math.cos(-r), math.sin(-r)
    t = np.array([[1.0, 0, 0, cx], [0, 1, 0, cy], [0, 0, 1, 0], [0, 0, 0, 1]])
    t = t @ np.array([[c, -s, 0, 0], [s, c, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])
    t = t @ np.diag([sx * width / out_w, sy * height / out_h, 1.0, 1.0])
    return t @ np.array(
        [[1.0, 0, 0, -out_w / 2], [0, 1, 0, -out_h / 2], [0, 0, 1, 0], [0, 0, 0, 1]]
    )


@kernel("CUSTOM(Landmarks2TransformMatrix)", real_valued=True)
def landmarks_to_transform_matrix(op, args, ctx):
    """Input landmarks as (x, y, z) triples ([b, n, 3] for version 2, [b, 1, 1, 3n] for
    version 1); output [b, 4, 4], the matrix that maps output pixels of a rotated crop
    around a landmark subset to input pixels."""
    (x,) = args
    version = _version(op, 1, 2)
    x = np.asarray(x, np.float32)
    if x.ndim != (3 if version == 2 else 4):
        raise ValueError(f"landmarks of version {version} cannot have rank {x.ndim}")
    o = flex_map(op)
    make = _matrix_v2 if version == 2 else _matrix_v1
    flats = x.reshape(x.shape[0], -1) if x.shape[0] else x.reshape(0, 1)
    return np.stack([make(f, o) for f in flats]).astype(np.float32).reshape(-1, 4, 4)


def _per_batch_matrices(m: np.ndarray, batch: int) -> np.ndarray:
    """The (batch, 4, 4) matrices of a [b, 4, 4]-like operand (batch 1 is broadcast)."""
    m = np.asarray(m, np.float32)
    if m.size % 16 or m.size // 16 not in (1, batch):
        raise ValueError(f"transform matrix {list(m.shape)} is not one 4x4 matrix per batch")
    return np.broadcast_to(m.reshape(-1, 4, 4), (batch, 4, 4))


@kernel("CUSTOM(TransformLandmarks)", real_valued=True)
def transform_landmarks(op, args, ctx):
    """Inputs (landmarks, matrix): each landmark's (x, y) becomes
    ``(m00 x + m01 y + m03, m10 x + m11 y + m13)`` (z taken as 0), z is kept. Version 2:
    landmarks [b, n, d], d = 2 or 3 the last axis. Version 1: [b, h, w, c] of ``dimensions``
    (2 or 3, default 3) values per landmark, the translation times ``scale`` (default 1)."""
    x, m = args
    version = _version(op, 1, 2)
    x = np.asarray(x, np.float32)
    if x.ndim != (3 if version == 2 else 4):
        raise ValueError(f"landmarks of version {version} cannot have rank {x.ndim}")
    if version == 2:
        dims, scale = x.shape[-1], np.float32(1.0)
    else:
        o = flex_map(op)
        dims, scale = flex_int(o, "dimensions", 3), np.float32(flex_float(o, "scale", 1.0))
        if scale == 0:
            raise ValueError("scale must not be 0")
    if dims not in (2, 3) or x.shape[-1] % dims:
        raise ValueError(f"{dims} values per landmark do not divide {x.shape[-1]}")
    mats = _per_batch_matrices(m, x.shape[0])
    points = x.reshape(x.shape[0], -1, dims)
    px, py = points[..., 0], points[..., 1]

    def row(r: int) -> np.ndarray:
        a, b, c, d = (mats[:, r, k, None] for k in range(4))
        return a * px + b * py + c * np.float32(0) + d * scale

    out = points.copy()
    out[..., 0], out[..., 1] = row(0), row(1)
    return out.reshape(x.shape)


def _bilinear(image: np.ndarray, m: np.ndarray, out_h: int, out_w: int, centers: bool):
    """One image [h, w, c] sampled at ``m``'s mapping of the output pixel grid; samples
    outside ``[0, size - 1]`` give 0."""
    h, w, c = image.shape
    xt = m[0].astype(np.float64)
    yt = m[1].astype(np.float64)
    if centers:  # version 2: pixel centers, T -> S · T · A with S, A shifts by -/+0.5
        xt[3] += xt[0] * 0.5 + xt[1] * 0.5 - 0.5
        yt[3] += yt[0] * 0.5 + yt[1] * 0.5 - 0.5
    xt, yt = xt.astype(np.float32), yt.astype(np.float32)
    oy, ox = np.meshgrid(
        np.arange(out_h, dtype=np.float32), np.arange(out_w, dtype=np.float32), indexing="ij"
    )
    zero = np.float32(0)
    tx = xt[0] * ox + xt[1] * oy + xt[2] * zero + xt[3]
    ty = yt[0] * ox + yt[1] * oy + yt[2] * zero + yt[3]
    inside = (tx >= 0) & (tx <= w - 1) & (ty >= 0) & (ty <= h - 1)
    tx, ty = np.where(inside, tx, zero), np.where(inside, ty, zero)
    fx, fy = np.floor(tx), np.floor(ty)
    right, lower = (tx - fx)[..., None], (ty - fy)[..., None]
    x0, y0 = fx.astype(np.int64), fy.astype(np.int64)
    padded = np.zeros((h + 1, w + 1, c), np.float32)  # reads past the last row/column give 0
    padded[:h, :w] = image

    def at(yy: np.ndarray, xx: np.ndarray) -> np.ndarray:
        return padded[yy, xx]

    upper = (1 - right) * at(y0, x0) + right * at(y0, x0 + 1)
    below = (1 - right) * at(y0 + 1, x0) + right * at(y0 + 1, x0 + 1)
    result = lower * below + (1 - lower) * upper
    return np.where(inside[..., None], result, zero).astype(np.float32)


@kernel("CUSTOM(TransformTensorBilinear)", "CUSTOM(TransformTensor)", real_valued=True)
def transform_tensor_bilinear(op, args, ctx):
    """Inputs (image [b, h, w, c], matrix): output [b, out_h, out_w, c] where output pixel
    (x, y) samples the image bilinearly at the matrix's mapping of (x, y, 0, 1); version 2
    maps pixel centers (half-pixel shifts), version 1 (and TransformTensor) pixel corners.
    The size is the options' ``output_height``/``output_width`` (``output_size`` in
    version 1), else the declared output shape."""
    image, m = args
    version = 1 if op.custom_code == "TransformTensor" else _version(op, 1, 2)
    image = np.asarray(image, np.float32)
    if image.ndim != 4:
        raise ValueError(f"the image must have rank 4, not {image.ndim}")
    o = flex_map(op)
    if "mode" in o and o["mode"] != "bilinear":
        raise ValueError(f"mode {o['mode']!r} is not bilinear")
    size = bilinear_output_hw(op)
    if size is None:
        declared = op.outputs[0].shape
        if len(declared) != 4 or None in declared[1:3]:
            raise ValueError("no output size in the options nor a declared output shape")
        size = (int(declared[1]), int(declared[2]))
    if min(size) < 1:
        raise ValueError(f"output size {list(size)} must be positive")
    mats = _per_batch_matrices(m, image.shape[0])
    outs = [_bilinear(img, mat, *size, version == 2) for img, mat in zip(image, mats, strict=True)]
    if not outs:
        return np.zeros((0, *size, image.shape[3]), np.float32)
    return np.stack(outs)
