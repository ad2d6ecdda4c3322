"""Real images for the corpus records: photographs and text that scikit-image and Pillow ship.

* **Photographs**: the colour and grey photographs bundled in scikit-image's wheel (grey ones
  repeated over the three channels), split by image so calibration and test never share one.
* **Text lines**: sentences of the Zen of Python (the ``this`` module's text) rendered with
  Pillow's bundled FreeType font in dark ink on light crops of the split's photographs, plus
  strips of scikit-image's scanned ``page`` (calibration) and photographed ``text`` (test).
* **Documents**: several such lines on one page-sized photo crop, or a crop of ``page``/``text``.

Every crop is chosen by the caller's seeded generator; images are decoded once per process.
"""

from __future__ import annotations

import ast
import codecs
import functools
import importlib.util
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

PHOTOS = {
    "calibration": (
        "astronaut",
        "coffee",
        "immunohistochemistry",
        "rocket",
        "stereo_motorcycle",
        "camera",
        "coins",
        "clock",
    ),
    "test": ("chelsea", "retina", "hubble_deep_field", "brick", "moon"),
}
SCANS = {"calibration": "page", "test": "text"}


@functools.cache
def photo(name: str) -> np.ndarray:
    """scikit-image's bundled image ``name`` as uint8 RGB [H, W, 3]."""
    import skimage.data

    img = getattr(skimage.data, name)()
    img = img[0] if isinstance(img, tuple) else img  # stereo_motorcycle: (left, right, disp)
    img = np.asarray(img)
    if img.ndim == 2:
        img = np.repeat(img[..., None], 3, axis=2)
    return np.ascontiguousarray(img[..., :3]).astype(np.uint8)


@functools.cache
def _sentences(split: str) -> tuple[str, ...]:
    """The Zen of Python's lines, the first half for calibration, the second for test."""
    spec = importlib.util.find_spec("this")  # read, not imported: importing it prints the Zen
    assert spec is not None and spec.origin is not None
    tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
    coded = next(n.value.value for n in tree.body if isinstance(n, ast.Assign))
    lines = [s for s in codecs.decode(coded, "rot13").splitlines()[2:] if s.strip()]
    half = len(lines) // 2
    return tuple(lines[:half] if split == "calibration" else lines[half:])


def _resize(img: np.ndarray, h: int, w: int) -> np.ndarray:
    """Bilinear resize of a uint8 RGB image to [h, w, 3] in [0, 1]."""
    out = Image.fromarray(img).resize((w, h), Image.Resampling.BILINEAR)
    return np.asarray(out, np.float64) / 255.0


def _crop(rng: np.random.Generator, img: np.ndarray, aspect: float) -> np.ndarray:
    """A random crop of ``img`` with width/height ``aspect``, 40-100 % of the largest one."""
    ih, iw = img.shape[:2]
    ch = min(ih, iw / aspect)
    ch *= rng.uniform(0.4, 1.0)
    cw = max(1, round(ch * aspect))
    ch = max(1, round(ch))
    y = int(rng.integers(0, ih - ch + 1))
    x = int(rng.integers(0, iw - cw + 1))
    return img[y : y + ch, x : x + cw]


def photo_crop(rng: np.random.Generator, split: str, h: int, w: int) -> np.ndarray:
    """A crop of one of ``split``'s photographs, resized to [h, w, 3] in [0, 1]."""
    names = PHOTOS[split]
    img = photo(names[int(rng.integers(len(names)))])
    if rng.uniform() < 0.5:
        img = img[:, ::-1]
    return _resize(_crop(rng, img, w / h), h, w)


def _paper(rng: np.random.Generator, split: str, h: int, w: int) -> np.ndarray:
    """A light background: a photo crop pressed into the upper fifth of the range, uint8."""
    base = photo_crop(rng, split, h, w)
    light = rng.uniform(0.75, 0.95)
    return np.clip(255 * (light + 0.15 * (base - base.mean())), 0, 255).astype(np.uint8)


def _render(
    rng: np.random.Generator, split: str, h: int, w: int, lines: int, size: int = 0
) -> np.ndarray:
    """``lines`` sentences of ``split`` in dark ink on paper, [h, w, 3] in [0, 1], in a font
    of ``size`` pixels (0: 55-75 % of a line's height)."""
    page = Image.fromarray(_paper(rng, split, h, w))
    draw = ImageDraw.Draw(page)
    size = size or max(8, int(h / lines * rng.uniform(0.55, 0.75)))
    font = ImageFont.load_default(size=size)
    sentences = _sentences(split)
    ink = tuple(int(v) for v in rng.integers(0, 70, size=3))
    for k in range(lines):
        text = sentences[int(rng.integers(len(sentences)))]
        y = (k + 0.5) * h / lines - size * 0.6
        x = int(rng.integers(0, max(1, w // 10))) if lines > 1 else size // 2
        draw.text((x, int(y)), text, fill=ink, font=font)
    return np.asarray(page, np.float64) / 255.0


def _scan_crop(rng: np.random.Generator, split: str, h: int, w: int) -> np.ndarray:
    return _resize(_crop(rng, photo(SCANS[split]), w / h), h, w)


def text_line(rng: np.random.Generator, split: str, h: int, w: int) -> np.ndarray:
    """One line of text [h, cw, 3] in [0, 1], ``cw <= w``: a recognizer's input before its
    right padding (a sentence at its own width, or a strip of a scan with the aspect ratio of
    3 to ``w / h``)."""
    if rng.uniform() < 0.25:
        return _scan_crop(rng, split, h, round(h * rng.uniform(3.0, w / h)))
    size = int(h * rng.uniform(0.55, 0.75))
    sentences = _sentences(split)
    text = sentences[int(rng.integers(len(sentences)))]
    width = ImageFont.load_default(size=size).getlength(text) + size
    return _render(rng, split, h, min(w, round(width)), 1, size)


def document(rng: np.random.Generator, split: str, h: int, w: int) -> np.ndarray:
    """A page of text, [h, w, 3] in [0, 1]: rendered lines or a crop of a scanned page."""
    if rng.uniform() < 0.25:
        return _scan_crop(rng, split, h, w)
    return _render(rng, split, h, w, int(rng.integers(4, 9)))
