"""The Python API: build() runs a configuration like onecc -C and reports each step."""

import os

import pytest

import one_cmds
from one_cmds.errors import ConfigError
from one_cmds.formats import reader
from one_cmds.stages import stage

CONFIG = """
[onecc]
one-import-tflite=True
one-resize=True
one-optimize=True

[Environment]
ONE_CMDS_TEST_VALUE=from config

[one-import-tflite]
input_path={fixture}
output_path=a.circle

[one-resize]
input_path=a.circle
output_path=b.circle
input_shapes=[2,8,8,4]

[one-optimize]
input_path=b.circle
output_path=c.circle
"""


@pytest.fixture
def config(tmp_path, fixture_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "build.cfg"
    path.write_text(CONFIG.format(fixture=fixture_path("dynamic_batch.tflite")))
    return str(path)


def test_build_hands_one_model_from_step_to_step(config, monkeypatch):
    loads = []
    real_load = reader.load
    monkeypatch.setattr(
        stage, "load", lambda path, warn=None: loads.append(path) or real_load(path, warn)
    )
    results = one_cmds.build(config)
    assert [r.driver for r in results] == ["one-import-tflite", "one-resize", "one-optimize"]
    assert [r.in_memory for r in results] == [False, True, True]
    assert len(loads) == 1  # the file is parsed once; later steps get the Model object
    assert results[1].model is results[0].model is results[2].model
    assert [r.output_path for r in results] == ["a.circle", "b.circle", "c.circle"]
    assert all(os.path.getsize(r.output_path) == r.output_size for r in results)
    assert results[2].operators_after == 6


def test_in_memory_and_re_read_outputs_are_identical(config, tmp_path):
    one_cmds.build(config)
    chained = (tmp_path / "c.circle").read_bytes()
    text = (
        (tmp_path / "build.cfg")
        .read_text()
        .replace("input_path=b.circle", "input_path=./b.circle ")
    )
    (tmp_path / "build.cfg").write_text(text)
    results = one_cmds.build(
        config, one_optimize={"input_path": str(tmp_path / "x" / ".." / "b.circle")}
    )
    assert results[2].in_memory
    (tmp_path / "b2.circle").write_bytes((tmp_path / "b.circle").read_bytes())
    results = one_cmds.build(config, one_optimize={"input_path": "b2.circle"})
    assert not results[2].in_memory
    assert (tmp_path / "c.circle").read_bytes() == chained


def test_overrides_take_precedence(config, tmp_path):
    results = one_cmds.build(config, one_resize={"input_shapes": "[3,8,8,4]"})
    assert results[1].model.main.outputs[0].shape == (3, 10)


def test_environment_applies_during_the_call_only(config, monkeypatch):
    monkeypatch.delenv("ONE_CMDS_TEST_VALUE", raising=False)
    seen = []
    real_load = reader.load
    monkeypatch.setattr(
        stage,
        "load",
        lambda p, warn=None: (
            seen.append(os.environ.get("ONE_CMDS_TEST_VALUE")) or real_load(p, warn)
        ),
    )
    one_cmds.build(config)
    assert seen == ["from config"]
    assert "ONE_CMDS_TEST_VALUE" not in os.environ


def test_config_errors_are_raised(config):
    with pytest.raises(ConfigError, match="did you mean 'input_shapes'"):
        one_cmds.build(config, one_resize={"input_shape": "[1]"})


def test_paths_may_be_path_objects(config, tmp_path):
    """load, save and build take pathlib paths as well as strings."""
    one_cmds.build(tmp_path / "build.cfg")
    model = one_cmds.load(tmp_path / "c.circle")
    assert one_cmds.save(model, tmp_path / "d.circle") == os.path.getsize(tmp_path / "d.circle")
    assert (tmp_path / "d.circle").read_bytes() == (tmp_path / "c.circle").read_bytes()
