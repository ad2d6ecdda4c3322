"""Calibration: range reduction, calibration data formats, record-minmax on the interpreter
(quantization.md §3)."""

from types import SimpleNamespace

import h5py
import numpy as np
import pytest

import one_cmds
from one_cmds.quant.calibration import observed, record_minmax, store_ranges
from one_cmds.quant.data import records
from one_cmds.quant.errors import QuantizeError
from one_cmds.quant.ranges import moving_average, percentile
from support.passes import Net, new_options


def test_percentile_example_of_the_spec():
    assert percentile([3, 1, 2, 10], 1) == pytest.approx(1.03)
    assert percentile([3, 1, 2, 10], 99) == pytest.approx(9.79)
    assert percentile([4.0], 37) == 4.0
    with pytest.raises(QuantizeError, match="Percentile must be ranged from 0 to 100"):
        percentile([1.0], 101)


def test_moving_average_example_of_the_spec():
    assert moving_average([0, -1, -2, -3, -4], 2, 0.1, np.min) == pytest.approx(-1.48)
    assert moving_average([1, 3, 2, 6, 4], 2, 0.1, np.max) == pytest.approx(3.37)
    assert moving_average([1, 3, 2, 6, 4] * 100, 300, 0.1, np.max) == 6.0, "no 8-bit wrap"
    with pytest.raises(QuantizeError, match=r"moving_avg_const must be in \[0, 1\]"):
        moving_average([1.0], 1, 1.5, np.max)


def two_input_model():
    net = Net()
    a = net.input("a", [1, 3])
    b = net.input("b", [2], "INT32")
    net.outputs(net.op("RELU", [a], name="r"), net.op("CAST", [b], outputs=["FLOAT32"]))
    return net.model()


def write_raw(path, *arrays):
    with open(path, "wb") as f:
        for a in arrays:
            f.write(np.ascontiguousarray(a).astype(a.dtype.newbyteorder("<")).tobytes())


def expected_records():
    return [
        [np.array([[1, 2, 3]], np.float32), np.array([4, 5], np.int32)],
        [np.array([[-1, 0, 1]], np.float32), np.array([7, 8], np.int32)],
    ]


def check(got):
    want = expected_records()
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        for x, y in zip(g, w, strict=True):
            assert x.dtype == y.dtype
            np.testing.assert_array_equal(x, y)


def test_h5_records(tmp_path):
    path = tmp_path / "data.h5"
    with h5py.File(path, "w") as f:
        for i, record in enumerate(expected_records()):
            for j, a in enumerate(record):
                f.create_dataset(f"value/{i}/{j}", data=a)
    check(list(records(two_input_model().main.inputs, str(path), "h5")))


def test_list_records_concatenated_and_one_file_per_input(tmp_path):
    lines = []
    for i, (a, b) in enumerate(expected_records()):
        if i == 0:
            write_raw(tmp_path / "r0.raw", a, b)
            lines.append(str(tmp_path / "r0.raw"))
        else:
            write_raw(tmp_path / "a1.raw", a)
            write_raw(tmp_path / "b1.raw", b)
            lines.append(f"{tmp_path / 'a1.raw'} {tmp_path / 'b1.raw'}")
    (tmp_path / "list.txt").write_text("\n".join(lines) + "\n\n")
    check(list(records(two_input_model().main.inputs, str(tmp_path / "list.txt"), "list")))


def test_dir_records_in_sorted_order(tmp_path):
    folder = tmp_path / "records"
    folder.mkdir()
    for i, record in reversed(list(enumerate(expected_records()))):
        write_raw(folder / f"{i:03d}.raw", *record)
    check(list(records(two_input_model().main.inputs, str(folder), "dir")))


def test_npz_records(tmp_path):
    path = tmp_path / "data.npz"
    want = expected_records()
    np.savez(path, **{str(j): np.stack([r[j] for r in want]) for j in range(2)})
    check(list(records(two_input_model().main.inputs, str(path), "npz")))


def test_npz_with_more_arrays_than_inputs_names_them(tmp_path):
    path = tmp_path / "data.npz"
    want = expected_records()
    arrays = {str(j): np.stack([r[j] for r in want]) for j in range(2)}
    np.savez(path, **arrays, extra=arrays["0"], **{"2": arrays["1"]})
    with pytest.raises(QuantizeError, match="has arrays the model has no input for: '2', 'extra'"):
        list(records(two_input_model().main.inputs, str(path), "npz"))


@pytest.mark.parametrize(("value", "kind"), [(np.inf, "inf"), (-np.inf, "inf"), (np.nan, "NaN")])
def test_a_record_holding_inf_or_nan_is_an_error(tmp_path, value, kind):
    path = tmp_path / "data.npz"
    want = expected_records()
    arrays = {str(j): np.stack([r[j] for r in want]) for j in range(2)}
    arrays["0"] = arrays["0"].astype(np.float32)
    arrays["0"][1].flat[0] = value
    np.savez(path, **arrays)
    inputs = two_input_model().main.inputs
    with pytest.raises(
        QuantizeError, match=f"record 1 of .*: input '{inputs[0].name}' holds {kind}"
    ):
        list(records(inputs, str(path), "npz"))


@pytest.mark.parametrize(
    ("make", "fmt", "message"),
    [
        (lambda p: p.write_text("not hdf5"), "h5", "Given data file is not HDF5"),
        (lambda p: p.write_text("x"), "h5list", "Unsupported input data format"),
        (lambda p: None, "list", "Cannot open file"),
        (lambda p: None, "dir", "Cannot open directory"),
        (lambda p: p.write_bytes(b"\0" * 7), "dir", "Input tensor size mismatches"),
    ],
)
def test_data_errors(tmp_path, make, fmt, message):
    path = tmp_path / "data"
    if fmt == "dir" and message != "Cannot open directory":
        path.mkdir()
        make(path / "r")
    else:
        make(path)
    with pytest.raises(QuantizeError, match=message):
        list(records(two_input_model().main.inputs, str(path), fmt))


def test_random_records_are_seeded_and_in_range():
    inputs = two_input_model().main.inputs
    first, again = list(records(inputs, None)), list(records(inputs, None))
    assert len(first) == 3
    for a, b in zip(first, again, strict=True):
        np.testing.assert_array_equal(a[0], b[0])
        assert a[0].dtype == np.float32 and np.all(np.abs(a[0]) <= 5)
        assert a[1].dtype == np.int32 and np.all((a[1] >= 0) & (a[1] <= 100))


def test_record_minmax_observes_float_results_only():
    model = two_input_model()
    names = {
        t.name for g in model.graphs for t in g.referenced_tensors() if id(t) in observed(model)
    }
    assert names == {"a", "r", model.main.outputs[1].name}
    minmax = record_minmax(model, expected_records())
    by_name = {t.name: key for key, t in minmax.tensors.items()}
    assert minmax.mins[by_name["r"]] == [1.0, 0.0]
    assert minmax.maxs[by_name["a"]] == [3.0, 1.0]
    options = SimpleNamespace(mode="percentile", min_percentile=0.0, max_percentile=100.0)
    store_ranges(minmax, options)
    r = model.main.operators[0].outputs[0]
    assert (r.quant.min[0], r.quant.max[0]) == (0.0, 3.0) and r.quant.scale is None


def test_record_minmax_on_a_fixture(fixture_path):
    model = one_cmds.load(fixture_path("mobilenet_tiny.tflite"))
    minmax = record_minmax(model, records(model.main.inputs, None))
    assert minmax.records == 3
    assert len(minmax.tensors) == 1 + len(model.main.operators)


def _scaled(values: list[float]):
    net = Net()
    x = net.input("x", [len(values)])
    c = net.const("c", [1.0] * len(values))
    net.outputs(net.op("MUL", [x, c], new_options("MulOptions")))
    return net.model(), [[np.array(values, np.float32)]]


@pytest.mark.parametrize("engine", ["litert", "reference"])
def test_all_nan_is_an_error(engine):
    model, data = _scaled([np.nan, np.nan])
    with pytest.raises(QuantizeError, match="'x' holds only NaN in record 0"):
        record_minmax(model, data, engine=engine)


@pytest.mark.parametrize("engine", ["litert", "reference"])
@pytest.mark.parametrize("values", [[-7.0, np.nan, 2.0], [np.nan, 1.0], [3.0, np.nan]])
def test_nan_is_skipped_wherever_it_is(engine, values):
    model, data = _scaled(values)
    minmax = record_minmax(model, data, engine=engine)
    expected = float(np.nanmin(values)), float(np.nanmax(values))
    for key in minmax.tensors:
        assert (minmax.mins[key], minmax.maxs[key]) == ([expected[0]], [expected[1]])


def test_litert_ranges_do_not_depend_on_the_thread_count(fixture_path, monkeypatch):
    model = one_cmds.load(fixture_path("mobilenet_tiny.tflite"))
    data = list(records(model.main.inputs, None)) * 3
    found = []
    for cpus in (1, 2, 3):
        monkeypatch.setattr("one_cmds.quant.calibration.usable_cpus", lambda cpus=cpus: cpus)
        minmax = record_minmax(model, data, engine="litert")
        found.append([(t.name, minmax.mins[k], minmax.maxs[k]) for k, t in minmax.tensors.items()])
    assert found[0] == found[1] == found[2]


@pytest.mark.parametrize(
    "name",
    [
        "mobilenet_tiny.tflite",
        "conv_spatial.tflite",
        "conv_channel_affine.tflite",
        "instnorm_decomposed.tflite",
        "misc_ops_a.tflite",
        "prelu_decomposed.tflite",
        "two_subgraphs.tflite",
    ],
)
def test_batched_calibration_gives_the_one_by_one_ranges(fixture_path, name):
    """Bit for bit: kernels whose BLAS products depend on the row count run per record."""
    from support.litert import random_inputs

    model = one_cmds.load(fixture_path(name))
    data = [random_inputs(model, seed) for seed in range(21)]  # one batch of 16 and 5 more
    notes = []
    batched = record_minmax(model, data, note=notes.append, engine="reference")
    single = record_minmax(model, data, batch=1, engine="reference")
    assert notes == ["engine: reference", "calibration: 16 records per run"]
    assert batched.records == single.records == 21
    assert batched.mins == single.mins
    assert batched.maxs == single.maxs


def test_a_model_that_cannot_be_batched_runs_one_by_one(fixture_path):
    model = one_cmds.load(fixture_path("transformer_block.tflite"))  # batch baked into RESHAPE
    notes = []
    record_minmax(model, records(model.main.inputs, None), note=notes.append, engine="reference")
    assert notes == ["engine: reference", "calibration: one by one"]
