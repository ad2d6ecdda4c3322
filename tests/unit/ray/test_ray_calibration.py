"""Calibration on Ray actors (quant/calibration.py, engines/ray_calibration.py): with
``calibration_workers=2`` on a local cluster the per-record ranges, and so the quantized
model, are those of a run in this process, on LiteRT and on the reference interpreter; an
actor's error is the project's own; without a cluster the option warns and changes nothing;
a bad value is the configuration's error."""

from __future__ import annotations

import functools
import gc
import time

import numpy as np
import pytest

import one_cmds
from one_cmds.config.load import plan_from_arguments
from one_cmds.engines import ray_cluster
from one_cmds.engines.choice import litert_runner
from one_cmds.engines.litert import LiteRTError
from one_cmds.engines.ray_calibration import sharded
from one_cmds.errors import UsageError
from one_cmds.quant.calibration import record_minmax
from one_cmds.quant.errors import QuantizeError
from support.litert import random_inputs
from support.passes import Net, new_options

pytestmark = pytest.mark.xdist_group("ray")

# LiteRT runs the first; the second has a custom Erf that only the reference interpreter runs.
MODELS = ("mobilenet_tiny.tflite", "gelu_erf_custom.tflite")
RECORDS = 40  # three chunks: both actors busy, the last chunk short


def _data(model):
    return [random_inputs(model, seed) for seed in range(RECORDS)]


def _ranges(minmax):
    return {t.name: (minmax.mins[k], minmax.maxs[k]) for k, t in minmax.tensors.items()}


@pytest.mark.parametrize("name", MODELS)
def test_ray_ranges_are_the_local_ranges(ray_cluster, fixture_path, name):
    model = one_cmds.load(fixture_path(name))
    data = _data(model)
    notes: list[str] = []
    on_ray = record_minmax(model, data, workers=2, note=notes.append)
    local = record_minmax(model, data)
    assert notes[-1] == "calibration: 2 Ray actors"
    assert on_ray.records == local.records == RECORDS
    assert _ranges(on_ray) == _ranges(local)


@pytest.mark.parametrize("mode", ["percentile", "moving_average"])
@pytest.mark.parametrize("name", MODELS)
def test_ray_quantized_bytes_are_the_local_bytes(ray_cluster, fixture_path, tmp_path, name, mode):
    model = one_cmds.load(fixture_path(name))
    records = _data(model)
    path = tmp_path / "records.npz"
    np.savez(path, **{str(i): np.stack([r[i] for r in records]) for i in range(len(records[0]))})
    options = {"input_data": str(path), "input_data_format": "npz", "mode": mode}
    if mode == "moving_average":
        options["moving_avg_batch"] = 8
    written = []
    for workers in (2, 1):
        quantized = one_cmds.quantize(model, calibration_workers=workers, **options)
        written.append(tmp_path / f"q{workers}.circle")
        one_cmds.save(quantized, str(written[-1]))
    assert written[0].read_bytes() == written[1].read_bytes()


def test_an_actor_error_is_the_projects_own(ray_cluster):
    net = Net()
    x = net.input("x", [2])
    net.outputs(net.op("MUL", [x, net.const("c", [1.0, 1.0])], new_options("MulOptions")))
    data = [[np.array([k, -k], np.float32)] for k in range(20)]
    data[17] = [np.full(2, np.nan, np.float32)]
    with pytest.raises(QuantizeError, match="'x' holds only NaN in record 17"):
        record_minmax(net.model(), data, workers=2)


def test_an_actor_that_cannot_prepare_raises_the_projects_error(ray_cluster, fixture_path, caplog):
    """The other actor's failures are fetched too: Ray printed them later as "Unhandled
    error", in the middle of the next command's output."""
    model = one_cmds.load(fixture_path("gelu_erf_custom.tflite"))  # Erf: not in LiteRT
    model.source_md5 = None
    prepare = functools.partial(litert_runner, engine="litert")
    with pytest.raises(LiteRTError, match="LiteRT cannot run the model"):
        sharded(ray_cluster, prepare, print, model, [[0]] * 20, 2)  # print: never called
    gc.collect()
    time.sleep(1.0)  # Ray reports an unfetched error when its reference goes
    assert "Unhandled error" not in caplog.text


def test_without_a_cluster_the_workers_warn_and_change_nothing(fixture_path, monkeypatch, capsys):
    monkeypatch.setattr(ray_cluster, "active", lambda: None)
    model = one_cmds.load(fixture_path("mobilenet_tiny.tflite"))
    one_cmds.quantize(model, calibration_workers=2)
    assert (
        "WARNING: calibration_workers has no effect without onecc --ray; records are calibrated "
        "in this process"
    ) in capsys.readouterr().err


@pytest.mark.parametrize("value", ["0", "-2", "two", "1.5", "true"])
def test_a_bad_worker_count_is_an_error(value):
    given = {"input_path": "a.circle", "output_path": "b.circle", "calibration_workers": value}
    with pytest.raises(UsageError) as error:
        plan_from_arguments("one-quantize", given)
    assert error.value.message == "calibration_workers must be a positive integer"
    options = plan_from_arguments("one-quantize", {**given, "calibration_workers": "3"})
    assert options.steps[0].options.calibration_workers == 3


def _calibrate_in_task(path: str, records: list) -> tuple[int, list[str]]:
    from one_cmds.quant.calibration import record_minmax

    notes: list[str] = []
    minmax = record_minmax(one_cmds.load(path), records, workers=2, note=notes.append)
    return minmax.records, notes


def test_inside_a_ray_task_calibration_uses_only_free_cpus(ray_cluster, fixture_path):
    """A build running as a task holds one of the cluster's 2 CPUs: a second actor could
    never start, so the records run in the task's process instead of waiting for ever."""
    import sys

    from ray import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # tests/ is not on workers
    path = fixture_path("mobilenet_tiny.tflite")
    records = _data(one_cmds.load(path))[:8]
    task = ray_cluster.remote(num_cpus=1)(_calibrate_in_task)
    count, notes = ray_cluster.get(task.remote(path, records), timeout=120)
    assert count == 8
    assert "calibration: no free CPUs on the Ray cluster for actors; in this process" in notes
