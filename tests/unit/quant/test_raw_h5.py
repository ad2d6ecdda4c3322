"""Calibration records from h5 files in the raw layout (the group ``value`` carries the
attribute ``rawData``: each dataset's bytes are the input's values), from list files naming
one raw file per input, and the h5 files ``quant.datasets.package`` writes."""

import os

import h5py
import numpy as np
import pytest

from one_cmds.ir import Tensor
from one_cmds.quant.data import records
from one_cmds.quant.datasets import NUMPY, RAWDATA, package
from one_cmds.quant.errors import QuantizeError

INPUTS = [Tensor("a", "FLOAT32", (1, 2, 3)), Tensor("b", "INT32", (4,))]
RNG = np.random.default_rng(0)


def _record() -> list[np.ndarray]:
    return [
        RNG.standard_normal((1, 2, 3)).astype(np.float32),
        RNG.integers(-9, 9, (4,)).astype(np.int32),
    ]


def _h5(path, data: list[list[bytes | np.ndarray]], raw_flag=None) -> str:
    with h5py.File(path, "w") as f:
        group = f.create_group("value")
        if raw_flag is not None:
            group.attrs["rawData"] = raw_flag
        for number, record in enumerate(data):
            sample = group.create_group(str(number))
            for index, value in enumerate(record):
                if isinstance(value, bytes):
                    value = np.frombuffer(value, np.uint8)
                sample.create_dataset(str(index), data=value)
    return str(path)


def _raw(record: list[np.ndarray]) -> list[bytes]:
    return [v.astype(v.dtype.newbyteorder("<")).tobytes() for v in record]


def _same(got: list[list[np.ndarray]], want: list[list[np.ndarray]]) -> None:
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        for x, y in zip(g, w, strict=True):
            assert x.dtype == y.dtype and x.shape == y.shape
            np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("flag", ["1", b"1", 1, "0"])
def test_raw_layout_gives_the_typed_records(tmp_path, flag):
    """record-minmax reads raw bytes when the attribute exists, whatever its value."""
    data = [_record(), _record()]
    raw = _h5(tmp_path / "raw.h5", [_raw(r) for r in data], raw_flag=flag)
    typed = _h5(tmp_path / "typed.h5", data)
    _same(list(records(INPUTS, raw)), data)
    _same(list(records(INPUTS, typed)), data)


def test_raw_bytes_that_do_not_fit_name_file_record_input_and_sizes(tmp_path):
    first, second = _record(), _record()
    short = _raw(second)
    short[1] = short[1][:-4]
    path = _h5(tmp_path / "raw.h5", [_raw(first), short], raw_flag="1")
    with pytest.raises(QuantizeError) as e:
        list(records(INPUTS, path))
    message = str(e.value)
    assert message.startswith("Buffer size does not match")
    assert f"record 1 of {path}" in message and "input 'b'" in message
    assert "16 bytes" in message and "holds 12" in message


def test_without_the_attribute_uint8_bytes_are_a_type_mismatch(tmp_path):
    path = _h5(tmp_path / "bytes.h5", [_raw(_record())])
    with pytest.raises(QuantizeError, match="Buffer size does not match"):
        list(records(INPUTS, path))


def test_typed_dtype_mismatch_is_unchanged(tmp_path):
    a, b = _record()
    path = _h5(tmp_path / "typed.h5", [[a, b.astype(np.int64)]])
    with pytest.raises(QuantizeError, match="input 'b' holds int64, the model expects int32"):
        list(records(INPUTS, path))


def test_a_record_with_a_dataset_missing(tmp_path):
    path = _h5(tmp_path / "raw.h5", [_raw(_record())[:1]], raw_flag="1")
    with pytest.raises(QuantizeError, match="Wrong number of inputs"):
        list(records(INPUTS, path))


def test_a_file_without_the_value_group(tmp_path):
    path = tmp_path / "empty.h5"
    h5py.File(path, "w").close()
    with pytest.raises(QuantizeError, match="has no group 'value'"):
        list(records(INPUTS, str(path)))


def test_list_line_with_one_file_per_input_or_one_for_all(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    first, second = _record(), _record()
    a, b = _raw(first)
    (tmp_path / "a.bin").write_bytes(a)
    (tmp_path / "b.bin").write_bytes(b)
    (tmp_path / "both.bin").write_bytes(b"".join(_raw(second)))
    (tmp_path / "list.txt").write_text("a.bin b.bin\nboth.bin\n")
    _same(list(records(INPUTS, "list.txt", "list")), [first, second])


def test_list_line_with_a_wrong_file_count(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("x", "y", "z"):
        (tmp_path / name).write_bytes(b"")
    (tmp_path / "list.txt").write_text("x y z\n")
    with pytest.raises(QuantizeError) as e:
        list(records(INPUTS, "list.txt", "list"))
    assert str(e.value).startswith("Wrong number of inputs (list.txt line 1 names 3 files")


def test_list_file_per_input_with_a_wrong_size(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    a, b = _raw(_record())
    (tmp_path / "a.bin").write_bytes(a)
    (tmp_path / "b.bin").write_bytes(b + b"\0")
    (tmp_path / "list.txt").write_text("a.bin b.bin\n")
    with pytest.raises(QuantizeError) as e:
        list(records(INPUTS, "list.txt", "list"))
    assert str(e.value) == (
        "Input tensor size mismatches (b.bin, list.txt line 1: 17 bytes, 16 expected for input 'b')"
    )


def test_dir_files_are_concatenated_records_in_name_order(tmp_path):
    data = [_record(), _record()]
    folder = tmp_path / "records"
    folder.mkdir()
    for number, record in enumerate(data):
        (folder / f"r{number}.bin").write_bytes(b"".join(_raw(record)))
    _same(list(records(INPUTS, str(folder), "dir")), data)


def test_package_rawdata_writes_the_reference_layout(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    data = [_record(), _record()]
    for number, record in enumerate(data):
        for index, chunk in enumerate(_raw(record)):
            (tmp_path / f"r{number}_{index}.bin").write_bytes(chunk)
    (tmp_path / "list.txt").write_text("r0_0.bin r0_1.bin\n\n  r1_0.bin   r1_1.bin  \n")
    assert package(RAWDATA, "list.txt", "out.h5") == 2
    with h5py.File("out.h5") as f:
        group = f["value"]
        assert group.attrs["rawData"] == "1"
        assert sorted(group) == ["0", "1"]
        assert group["1"].attrs["desc"] == "r1_0.bin,r1_1.bin"
        assert group["0"]["1"].dtype == np.uint8 and group["0"]["1"].shape == (16,)
    _same(list(records(INPUTS, "out.h5")), data)
    assert sorted(os.listdir(tmp_path)) == sorted(
        ["list.txt", "out.h5", *(f"r{n}_{i}.bin" for n in (0, 1) for i in (0, 1))]
    )


def test_package_numpy_writes_typed_datasets(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    data = [_record()]
    np.save("a.npy", data[0][0])
    np.save("b.npy", data[0][1])
    (tmp_path / "list.txt").write_text("a.npy b.npy\n")
    assert package(NUMPY, "list.txt", "out.h5") == 1
    with h5py.File("out.h5") as f:
        assert "rawData" not in f["value"].attrs
        assert f["value"]["0"]["0"].dtype == np.float32
        assert f["value"]["0"].attrs["desc"] == "a.npy,b.npy"
    _same(list(records(INPUTS, "out.h5")), data)


def _package_error(tmp_path, fmt: str, listing: bytes, output: str = "out.h5") -> str:
    (tmp_path / "list.txt").write_bytes(listing)
    with pytest.raises(QuantizeError) as e:
        package(fmt, "list.txt", output)
    assert not [name for name in os.listdir(tmp_path) if name.endswith((".h5", ".tmp"))]
    return str(e.value)


def test_package_errors_name_the_file_and_leave_no_output(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.bin").write_bytes(b"\0" * 4)
    np.savez("arrays.npz", np.zeros(2))
    (tmp_path / "text.npy").write_text("not numpy")
    np.save("names.npy", np.array(["x"]))
    error = _package_error
    assert error(tmp_path, RAWDATA, b"a.bin\nmissing.bin\n") == (
        "No such file. missing.bin (list.txt line 2)"
    )
    assert error(tmp_path, RAWDATA, b"\x89PNG\xff\xfe").startswith("UnicodeDecodeError: ")
    assert error(tmp_path, RAWDATA, b"a.bin\n", "nowhere/out.h5") == (
        "FileNotFoundError: Unable to create file nowhere/out.h5 (No such file or directory)"
    )
    assert "is an .npz archive" in error(tmp_path, NUMPY, b"arrays.npz\n")
    assert error(tmp_path, NUMPY, b"text.npy\n").startswith("text.npy is not a numpy .npy file")
    assert error(tmp_path, NUMPY, b"names.npy\n").startswith("names.npy holds <U1 values")
    with pytest.raises(QuantizeError, match=r"No such file\. absent\.txt"):
        package(RAWDATA, "absent.txt", "out.h5")
