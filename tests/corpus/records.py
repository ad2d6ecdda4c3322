"""Seeded calibration and test records for the corpus models (distributions in manifest.json).

Each manifest input names a shape (dynamic dimensions already fixed) and a distribution:

* ``image``: real images (``images.py``) in [0, 1], mapped linearly onto ``range``; the
  input's ``source`` says which: ``photo`` (default: crops of scikit-image's photographs),
  ``document`` (pages of text) or ``text`` (one line of text at the input's height, its aspect
  ratio kept, zero-padded on the right after normalising, as PaddleOCR's recognizer feeds it);
  ``layout`` is ``NHWC`` (default) or ``NCHW``. Calibration and test records come from
  disjoint sets of images.
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

from . import images

CALIBRATION = 16
TEST = 8
IMAGENET_MEAN = np.array([0.485, 0.456, 0.406])
IMAGENET_STD = np.array([0.229, 0.224, 0.225])


def _pixels(rng: np.random.Generator, spec: dict[str, Any], split: str, h: int, w: int):
    """One image [h, w, 3] in [0, 1] from ``spec``'s ``source``, and the width it fills."""
    source = spec.get("source", "photo")
    if source == "photo":
        return images.photo_crop(rng, split, h, w), w
    if source == "document":
        return images.document(rng, split, h, w), w
    if source == "text":
        line = images.text_line(rng, split, h, w)
        return line, line.shape[1]
    raise ValueError(f"unknown image source {source!r}")


def _image(
    rng: np.random.Generator, shape: list[int], spec: dict[str, Any], split: str
) -> np.ndarray:
    nchw = spec.get("layout", "NHWC") == "NCHW"
    n, h, w, c = (shape[0], shape[2], shape[3], shape[1]) if nchw else tuple(shape)
    imgs = np.zeros((n, h, w, c))
    for i in range(n):
        pixels, filled = _pixels(rng, spec, split, h, w)
        if c == 1:
            pixels = pixels.mean(axis=2, keepdims=True)
        if spec["dist"] == "imagenet":
            pixels = (pixels - IMAGENET_MEAN[:c]) / IMAGENET_STD[:c]
        else:
            lo, hi = spec["range"]
            pixels = lo + (hi - lo) * pixels
        imgs[i, :, :filled] = pixels  # a text line is padded with zeros after normalising
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


def value(
    rng: np.random.Generator, spec: dict[str, Any], dtype: np.dtype, split: str
) -> np.ndarray:
    """One record's value of an input described by manifest ``spec``, from ``split``'s
    images."""
    shape = list(spec["shape"])
    dist = spec["dist"]
    if dist in ("image", "imagenet"):
        out = _image(rng, shape, spec, split)
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
    return [
        [value(rng, s, d, split) for s, d in zip(specs, dtypes, strict=True)] for _ in range(count)
    ]


def write_npz(path: Path, records: list[list[np.ndarray]]) -> Path:
    """``records`` in the quantizer's ``npz`` input_data format (array ``i`` per input)."""
    arrays = {str(i): np.stack([r[i] for r in records]) for i in range(len(records[0]))}
    np.savez(path, **arrays)  # type: ignore[arg-type]
    return path
