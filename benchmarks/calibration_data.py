"""rawdata2hdf5 / one-create-quant-dataset, and one-quantize reading what they write.

    python benchmarks/calibration_data.py [--records N] [--repeat N]

``--records`` (default 128) seeded raw float32 records of MobileNetV2's input [1,224,224,3]
(602 KB each) are listed in a text file, as users feed the reference's tools. Timed, in this
process, median of ``--repeat`` (default 5) after a warm-up:
  (cp)  the baseline: copying the raw files (``shutil.copyfile``), the least any packaging does;
  (h5)  a second baseline: h5py writing the same arrays as one typed float32 dataset each
        (the layout one-quantize reads besides rawData) with the files read by numpy;
  (raw) ``rawdata2hdf5 -l list -o raw.h5`` (the rawData layout);
  (npy) ``one-create-quant-dataset -i numpy`` on the same records as .npy files;
  (read) iterating one-quantize's records over raw.h5 (bytes to the input's type and shape)
        against iterating them over the typed file.
Prints seconds and ratios to (cp) and (h5); target: the tools within 2x of (h5).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import tempfile
from pathlib import Path

import h5py
import numpy as np
from timing import median_seconds

from one_cmds.cli.data_tools import one_create_quant_dataset, rawdata2hdf5
from one_cmds.ir import Tensor
from one_cmds.quant.data import records

SHAPE = (1, 224, 224, 3)


def _make(folder: Path, count: int) -> tuple[list[Path], list[Path]]:
    rng = np.random.default_rng(0)
    raws, npys = [], []
    for i in range(count):
        data = rng.standard_normal(SHAPE).astype(np.float32)
        raws.append(folder / f"r{i}.bin")
        data.tofile(raws[-1])
        npys.append(folder / f"n{i}.npy")
        np.save(npys[-1], data)
    return raws, npys


def _copy(raws: list[Path], target: Path) -> None:
    target.mkdir(exist_ok=True)
    for path in raws:
        shutil.copyfile(path, target / path.name)


def _typed(raws: list[Path], out: Path) -> None:
    with h5py.File(out, "w") as f:
        group = f.create_group("value")
        for i, path in enumerate(raws):
            group.create_group(str(i)).create_dataset("0", data=np.fromfile(path, np.float32))


def _read(path: Path) -> int:
    inputs = [Tensor("input", "FLOAT32", SHAPE)]
    return sum(1 for _ in records(inputs, str(path), "h5"))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=128)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        raws, npys = _make(folder, args.records)
        (folder / "raw.txt").write_text("".join(f"{p}\n" for p in raws))
        (folder / "npy.txt").write_text("".join(f"{p}\n" for p in npys))
        raw_h5, npy_h5, typed_h5 = folder / "raw.h5", folder / "npy.h5", folder / "typed.h5"
        with open(os.devnull, "w") as quiet, contextlib.redirect_stdout(quiet):
            cp = median_seconds(lambda: _copy(raws, folder / "copy"), args.repeat, warmup=1)
            h5 = median_seconds(lambda: _typed(raws, typed_h5), args.repeat, warmup=1)
            raw = median_seconds(
                lambda: rawdata2hdf5(["-l", str(folder / "raw.txt"), "-o", str(raw_h5)]),
                args.repeat,
                warmup=1,
            )
            npy = median_seconds(
                lambda: one_create_quant_dataset(
                    ["-i", "numpy", "-l", str(folder / "npy.txt"), "-p", str(npy_h5)]
                ),
                args.repeat,
                warmup=1,
            )
        read_raw = median_seconds(lambda: _read(raw_h5), args.repeat, warmup=1)
        read_typed = median_seconds(lambda: _read(typed_h5), args.repeat, warmup=1)
    mb = args.records * np.prod(SHAPE) * 4 / 1e6
    print(f"{args.records} records, {mb:.0f} MB")
    print(f"(cp)   copy the raw files          {cp:7.3f} s")
    print(f"(h5)   h5py, typed datasets        {h5:7.3f} s  {h5 / cp:5.2f}x cp")
    print(
        f"(raw)  rawdata2hdf5                {raw:7.3f} s  {raw / cp:5.2f}x cp  {raw / h5:5.2f}x h5"
    )
    print(
        f"(npy)  one-create-quant-dataset    {npy:7.3f} s  {npy / cp:5.2f}x cp  {npy / h5:5.2f}x h5"
    )
    print(
        f"(read) records of raw.h5           {read_raw:7.3f} s  {read_raw / read_typed:5.2f}x typed"
    )


if __name__ == "__main__":
    main()
