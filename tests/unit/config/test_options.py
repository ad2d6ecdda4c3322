import pytest

from one_cmds.config.backend_steps import BACKEND_DRIVERS
from one_cmds.config.drivers import DRIVERS, command_line
from one_cmds.config.passes import PASS_NAMES
from one_cmds.config.resolve import build_options, convert_values
from one_cmds.config.source import Source
from one_cmds.errors import ConfigError
from one_cmds.pipeline.plan import RUN_STEPS as STEP_ORDER
from one_cmds.stages.options import (
    ImportOptions,
    OptimizeOptions,
    QuantizeOptions,
    ResizeOptions,
)


def test_registry_covers_the_steps_this_project_runs():
    # codegen and profile have open-ended keys (backend names): config/backend_steps.py
    assert tuple(DRIVERS) == tuple(s for s in STEP_ORDER if s not in BACKEND_DRIVERS)
    assert DRIVERS["one-resize"].model is ResizeOptions
    assert DRIVERS["one-import-circle"].model is ImportOptions
    assert "TF-style_maxpool" in DRIVERS["one-quantize"].keys
    assert "O" not in DRIVERS["one-optimize"].keys


def built(driver, **raw):
    """The step options the configuration builds from a section's raw values."""
    source = Source(place="test")
    return build_options(driver, main=source, section=convert_values(driver, raw, source))


def test_passes_are_complete_and_ordered():
    options = built("one-optimize", input_path="a", output_path="b", fuse_bcq=True, fold_cast=True)
    assert isinstance(options, OptimizeOptions)
    assert list(options.passes) == list(PASS_NAMES)
    assert options.enabled_passes == ["fold_cast", "fuse_bcq"]
    with pytest.raises(ConfigError, match="fold_cst"):
        built("one-optimize", input_path="a", output_path="b", fold_cst=True)


def test_command_line_optimize():
    options = built(
        "one-optimize",
        input_path="a.circle",
        output_path="b.circle",
        generate_profile_data=True,
        change_outputs="x,y",
        fuse_bcq=True,
        convert_nchw_to_nhwc=True,
    )
    assert command_line("one-optimize", options) == (
        "one-optimize --input_path a.circle --output_path b.circle --generate_profile_data "
        "--change_outputs x,y --convert_nchw_to_nhwc --fuse_bcq"
    )


def test_command_line_quantize():
    options = QuantizeOptions.model_validate(
        {
            "input_path": "a",
            "output_path": "b",
            "TF-style_maxpool": True,
            "input_type": ["uint8", "int16"],
            "force_quantparam": True,
            "tensor_name": ["t1", "t2"],
            "scale": [2.1, 1.0],
            "zero_point": [45, 0],
        }
    )
    line = command_line("one-quantize", options)
    assert line.startswith(
        "one-quantize --input_path a --output_path b --input_data_format h5 "
        "--input_model_dtype float32 --quantized_dtype uint8 --granularity layer "
        "--input_type uint8,int16 --min_percentile 1.0"
    )
    assert "--TF-style_maxpool --force_quantparam --tensor_name t1 --tensor_name t2 " in line
    assert "--scale 2.1 --scale 1.0 --zero_point 45 --zero_point 0 " in line
    assert "--input_dtype" not in line


def test_command_line_resize_and_import():
    resize = built("one-resize", input_path="a", output_path="b", input_shapes="[1,2],[3]")
    assert isinstance(resize, ResizeOptions)
    assert list(resize.input_shapes) == [(1, 2), (3,)]
    assert command_line("one-resize", resize) == (
        "one-resize --input_path a --output_path b --input_shapes [1,2],[3]"
    )
    imported = ImportOptions(input_path="a", output_path="b")
    assert command_line("one-import-tflite", imported) == (
        "one-import-tflite --input_path a --output_path b"
    )
