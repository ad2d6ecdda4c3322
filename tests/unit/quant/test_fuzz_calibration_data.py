"""Calibration data under damage (issue 33's doors): damaged .npz and .h5 files, list files
naming missing or wrong-sized raw files, records of the wrong shape or type, given to
``one-quantize`` in process; every case ends in a quantized model that loads or in one line
naming the data file at fault (:mod:`support.fuzz`)."""

from __future__ import annotations

import shutil

import h5py
import numpy as np

import one_cmds
from support.fuzz import Case, check_door, damaged_files


def _quantize(data: str, data_format: str) -> list[str]:
    return [
        "-i",
        "m.tflite",
        "-o",
        "out.circle",
        "--input_data",
        data,
        "--input_data_format",
        data_format,
    ]


def test_damaged_calibration_data(tmp_path, capsys, fixture_path):
    shutil.copy(fixture_path("mobilenet_tiny.tflite"), tmp_path / "m.tflite")
    records = np.load(fixture_path("mobilenet_tiny_calibration.npz"))["0"][:4]
    np.savez(tmp_path / "c.npz", records)
    with h5py.File(tmp_path / "c.h5", "w") as f:
        for k, record in enumerate(records):
            f.create_dataset(f"value/{k}/0", data=record)
    cases = []
    for name, data_format in (("c.npz", "npz"), ("c.h5", "h5")):
        for damage, path in damaged_files(tmp_path / name, tmp_path).items():
            may_pass = damage == "flipped"
            cases.append(
                Case(f"{damage} {name}", _quantize(path.name, data_format), path.name, may_pass)
            )
    records[0].astype(np.float32).tofile(tmp_path / "good.raw")
    records[0].astype(np.float32)[:, :8].tofile(tmp_path / "short.raw")
    lists = {
        "missing.txt": ("good.raw\nabsent.raw\n", "absent.raw"),
        "short.txt": ("good.raw\nshort.raw\n", "short.raw"),
        "empty.txt": ("", "empty.txt"),
    }
    for name, (text, blame) in lists.items():
        (tmp_path / name).write_text(text)
        cases.append(Case(f"list {name}", _quantize(name, "list"), blame))
    np.savez(tmp_path / "rank.npz", records[:, 0])
    np.savez(tmp_path / "int.npz", records.astype(np.int64))
    cases += [
        Case("records of another rank", _quantize("rank.npz", "npz"), "rank.npz"),
        Case("integer records", _quantize("int.npz", "npz"), "int.npz", may_pass=True),
        Case("format of another kind", _quantize("c.npz", "h5"), "c.npz"),
        Case("h5 read as npz", _quantize("c.h5", "npz"), "input_data_format h5"),
    ]
    assert check_door("one-quantize", cases, tmp_path, capsys, one_cmds.load) == []
