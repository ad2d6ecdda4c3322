"""``one-create-quant-dataset`` and ``rawdata2hdf5``: their options, messages and exit codes
(the reference's tests grep them), and an h5 file of raw data that one-quantize reads as it
reads the same records typed."""

import h5py
import numpy as np
import pytest

from one_cmds.cli.data_tools import one_create_quant_dataset, rawdata2hdf5
from one_cmds.cli.drivers import one_quantize

SHAPE = (1, 4, 4, 3)  # both inputs of tests/fixtures/add2.tflite


@pytest.fixture
def raw_list(tmp_path, monkeypatch):
    """Two records of add2.tflite's two float32 inputs as raw files and their list."""
    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(0)
    data = [[rng.uniform(-3, 3, SHAPE).astype("<f4") for _ in range(2)] for _ in range(2)]
    lines = []
    for number, record in enumerate(data):
        names = [f"r{number}_{i}.bin" for i in range(2)]
        for name, value in zip(names, record, strict=True):
            (tmp_path / name).write_bytes(value.tobytes())
        lines.append(" ".join(names))
    (tmp_path / "datalist.txt").write_text("\n".join(lines) + "\n")
    return data


def test_rawdata2hdf5_packages_the_list(raw_list, capsys):
    assert rawdata2hdf5(["--data_list", "datalist.txt", "--output_path", "out.h5"]) == 0
    assert capsys.readouterr().out == (
        "Raw data have been packaged to out.h5\nNumber of packaged data: 2\n"
    )
    with h5py.File("out.h5") as f:
        assert f["value"].attrs["rawData"] == "1"
        assert f["value"]["1"].attrs["desc"] == "r1_0.bin,r1_1.bin"


def test_create_quant_dataset_numpy(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    np.save("x.npy", np.ones(SHAPE, np.float32))
    (tmp_path / "datalist_numpy.txt").write_text("x.npy x.npy\n")
    argv = ["-i", "numpy", "-l", "datalist_numpy.txt", "-p", "out.h5"]
    assert one_create_quant_dataset(argv) == 0
    assert "Numpy data have been packaged to out.h5" in capsys.readouterr().out
    with h5py.File("out.h5") as f:
        assert f["value"]["0"]["1"].shape == SHAPE


@pytest.mark.parametrize(
    ("main", "argv", "message"),
    [
        (rawdata2hdf5, ["-o", "o.h5"], "the following arguments are required: -l/--data_list"),
        (rawdata2hdf5, ["-l", "", "-o", "o.h5"], "arguments are required: -l/--data_list"),
        (
            one_create_quant_dataset,
            ["-i", "numpy", "-p", "o.h5"],
            "the following arguments are required: -l/--data_list",
        ),
        (
            one_create_quant_dataset,
            ["-l", "datalist.txt", "-p", "o.h5"],
            "the following arguments are required: -i/--input_data_format",
        ),
        (
            one_create_quant_dataset,
            ["-i", "raw", "-l", "datalist.txt", "-p", "o.h5"],
            "argument -i/--input_data_format: invalid choice:",
        ),
    ],
)
def test_argument_errors_exit_2(tmp_path, monkeypatch, capsys, main, argv, message):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and ": error: " in err
    assert not (tmp_path / "o.h5").exists()


@pytest.mark.parametrize(
    ("listing", "output", "message"),
    [
        (b"non-existing-file.data\n", "out.h5", "No such file. non-existing-file.data"),
        (b"\x00\xff\xfe circle", "out.h5", "UnicodeDecodeError"),
        (b"r0_0.bin\n", "non_existing_dir/out.h5", "Unable to create file"),
    ],
)
def test_failures_exit_255(raw_list, tmp_path, capsys, listing, output, message):
    (tmp_path / "wronglist.txt").write_bytes(listing)
    for main, flag in ((rawdata2hdf5, []), (one_create_quant_dataset, ["-i", "rawdata"])):
        out_flag = "-o" if main is rawdata2hdf5 else "-p"
        assert main([*flag, "-l", "wronglist.txt", out_flag, output]) == 255
        err = capsys.readouterr().err
        prog = "rawdata2hdf5" if main is rawdata2hdf5 else "one-create-quant-dataset"
        assert err.startswith(f"{prog}: ") and message in err
    assert not list(tmp_path.glob("*.h5")) and not list(tmp_path.glob(".*.tmp"))


def test_quantize_reads_raw_h5_as_the_typed_h5(raw_list, tmp_path, fixture_path):
    """rawdata2hdf5's file and a typed float32 h5 of the same records quantize alike."""
    assert rawdata2hdf5(["-l", "datalist.txt", "-o", "raw.h5"]) == 0
    with h5py.File("typed.h5", "w") as f:
        group = f.create_group("value")
        for number, record in enumerate(raw_list):
            for index, value in enumerate(record):
                group.create_dataset(f"{number}/{index}", data=value.astype(np.float32))
    model = fixture_path("add2.tflite")
    for name in ("raw", "typed"):
        assert one_quantize(["-i", model, "-o", f"{name}.circle", "-d", f"{name}.h5"]) == 0
    raw, typed = (tmp_path / "raw.circle").read_bytes(), (tmp_path / "typed.circle").read_bytes()
    assert raw == typed
    default = tmp_path / "random.circle"
    assert one_quantize(["-i", model, "-o", str(default)]) == 0
    assert default.read_bytes() != raw  # the data made a difference
