"""Seeded calibration and test records for the corpus models (distributions in manifest.json).

Each manifest input names a shape (dynamic dimensions already fixed) and a distribution:

* ``image``: smooth random RGB images (a sum of bilinearly upsampled noise octaves plus a
  gradient, stretched to [0, 1] per image), mapped linearly onto ``range``; ``layout`` is
  ``NHWC`` (default) or ``NCHW``.
* ``imagenet``: the same images in [0, 1], then ``(x - mean) / std`` with ImageNet's mean
  and std per channel.
* ``audio``: waveforms along the last non-unit axis at ``sample_rate``: three sines of
  random frequency (80-2000 Hz) and phase plus white noise, peak ``amplitude``.
* ``tokens``: uniform integers in ``range`` (inclusive).
* ``normal``: gaussian values with standard deviation ``std``.

Seeds come from the model id and the split, so every run and every worker sees the same data.
"""

from __future__ import annotations

import zlib
from pathlib import Path
from typing import Any

import numpy as np

CALIBRATION = 16
TEST = 8
IMAGENET_MEAN = np.array([0.485, 0.456, 0.406])
IMAGENET_STD = np.array([0.229, 0.224, 0.225])


def _interp_matrix(n: int, grid: int) -> np.ndarray:
    """[n, grid] linear interpolation weights from ``grid`` knots to ``n`` samples."""
    return np.stack(
        [np.interp(np.linspace(0, grid - 1, n), np.arange(grid), e) for e in np.eye(grid)], 1
    )


def _upsample(a: np.ndarray, h: int, w: int) -> np.ndarray:
    """Bilinear resize of ``a`` [gh, gw, c] to [h, w, c]."""
    rows = np.tensordot(_interp_matrix(h, a.shape[0]), a, axes=(1, 0))  # [h, gw, c]
    return np.einsum("ikc,lk->ilc", rows, _interp_matrix(w, a.shape[1]), optimize=True)


def smooth_image(rng: np.random.Generator, h: int, w: int, c: int) -> np.ndarray:
    """One smooth random image [h, w, c] in [0, 1]."""
    img = np.zeros((h, w, c))
    for grid, weight in ((2, 1.0), (5, 0.6), (12, 0.3), (31, 0.15)):
        img += weight * _upsample(rng.standard_normal((grid, grid, c)), h, w)
    yy, xx = np.meshgrid(np.linspace(-1, 1, h), np.linspace(-1, 1, w), indexing="ij")
    img += (rng.uniform(-1, 1) * yy + rng.uniform(-1, 1) * xx)[..., None]
    img += 0.02 * rng.standard_normal(img.shape)
    lo, hi = img.min(), img.max()
    return (img - lo) / (hi - lo + 1e-12)


def _image(rng: np.random.Generator, shape: list[int], spec: dict[str, Any]) -> np.ndarray:
    nchw = spec.get("layout", "NHWC") == "NCHW"
    n, h, w, c = (shape[0], shape[2], shape[3], shape[1]) if nchw else tuple(shape)
    imgs = np.stack([smooth_image(rng, h, w, c) for _ in range(n)])
    if spec["dist"] == "imagenet":
        imgs = (imgs - IMAGENET_MEAN[:c]) / IMAGENET_STD[:c]
    else:
        lo, hi = spec["range"]
        imgs = lo + (hi - lo) * imgs
    return imgs.transpose(0, 3, 1, 2) if nchw else imgs


def _audio(rng: np.random.Generator, shape: list[int], spec: dict[str, Any]) -> np.ndarray:
    axis = max(i for i, d in enumerate(shape) if d > 1)
    length = shape[axis]
    t = np.arange(length) / float(spec.get("sample_rate", 16000))
    rows = []
    for _ in range(int(np.prod(shape)) // length):
        wave = sum(
            rng.uniform(0.2, 1.0)
            * np.sin(2 * np.pi * rng.uniform(80, 2000) * t + rng.uniform(0, 6.3))
            for _ in range(3)
        )
        wave = wave + 0.3 * rng.standard_normal(length)
        rows.append(spec.get("amplitude", 0.5) * wave / np.abs(wave).max())
    flat = np.stack(rows)
    return np.moveaxis(flat.reshape([*np.delete(shape, axis), length]), -1, axis)


def value(rng: np.random.Generator, spec: dict[str, Any], dtype: np.dtype) -> np.ndarray:
    """One record's value of an input described by manifest ``spec``."""
    shape = list(spec["shape"])
    dist = spec["dist"]
    if dist in ("image", "imagenet"):
        out = _image(rng, shape, spec)
    elif dist == "audio":
        out = _audio(rng, shape, spec)
    elif dist == "tokens":
        lo, hi = spec["range"]
        out = rng.integers(lo, hi + 1, size=shape)
    elif dist == "normal":
        out = spec.get("std", 1.0) * rng.standard_normal(shape)
    else:
        raise ValueError(f"unknown record distribution {dist!r}")
    return np.asarray(out).astype(dtype)


def make_records(
    model_id: str, specs: list[dict[str, Any]], dtypes: list[np.dtype], split: str, count: int
) -> list[list[np.ndarray]]:
    """``count`` seeded records (one array per input) of ``split`` ("calibration"/"test")."""
    rng = np.random.default_rng(zlib.crc32(f"{model_id}/{split}".encode()))
    return [[value(rng, s, d) for s, d in zip(specs, dtypes, strict=True)] for _ in range(count)]


def write_npz(path: Path, records: list[list[np.ndarray]]) -> Path:
    """``records`` in the quantizer's ``npz`` input_data format (array ``i`` per input)."""
    arrays = {str(i): np.stack([r[i] for r in records]) for i in range(len(records[0]))}
    np.savez(path, **arrays)  # type: ignore[arg-type]
    return path
