import json

import pytest

from one_cmds.config.load import plan_from_arguments
from one_cmds.errors import UsageError

IO = {"input_path": "a.circle", "output_path": "b.circle"}


def quantize(**given):
    return plan_from_arguments("one-quantize", given).steps[0].options


def error_of(**given) -> str:
    with pytest.raises(UsageError) as error:
        quantize(**given)
    return error.value.message


def test_defaults():
    options = quantize(**IO)
    assert options.action == "default"
    assert (options.quantized_dtype, options.granularity) == ("uint8", "layer")
    assert options.input_type == options.output_type == ["uint8"]
    assert (options.min_percentile, options.max_percentile) == (1.0, 99.0)
    assert options.input_data_format == "h5"


def test_values_are_case_insensitive_and_normalized():
    options = quantize(
        **IO,
        quantized_dtype="INT16",
        granularity="Channel",
        input_type="UINT8,int16",
        input_data_format="filelist",
    )
    assert options.quantized_dtype == "int16"
    assert options.input_type == ["uint8", "int16"]
    assert options.output_type == ["int16"]
    assert options.input_data_format == "list"


def test_requantize_dtypes_are_checked_first():
    assert error_of(requantize=True) == (
        "the following arguments are required: --input_model_dtype --quantized_dtype"
    )
    options = quantize(**IO, requantize=True, input_dtype="int8", quantized_dtype="uint8")
    assert (options.action, options.input_model_dtype) == ("requantize", "int8")
    assert error_of(**IO, requantize=True, input_model_dtype="int8", quantized_dtype="int16") == (
        "Unsupported output type (quantized_dtype: int16; supported: uint8)"
    )


def test_required_paths_before_quantparam_lists():
    message = error_of(force_quantparam=True)
    assert message == "the following arguments are required: -i/--input_path -o/--output_path"


def test_force_and_copy_quantparam():
    given = {"force_quantparam": True, "tensor_name": ["t"], "scale": ["2.1"]}
    assert error_of(**IO, **given) == "the following arguments are required: --zero_point"
    assert error_of(**IO, **given, zero_point=["1", "2"]) == (
        "The same number of tensor_name, scale, and zero_point should be given."
    )
    options = quantize(**IO, **given, zero_point=["45"])
    assert (options.action, options.scale, options.zero_point) == ("force_quantparam", [2.1], [45])
    assert error_of(
        **IO, copy_quantparam=True, src_tensor_name=["a", "b"], dst_tensor_name=["c"]
    ) == ("The same number of src_tensor_name and dst_tensor_name should be given.")


def test_dispatch_precedence():
    assert quantize(**IO, fake_quantize=True, ampq=True).action == "ampq"
    assert (
        quantize(
            **IO,
            fake_quantize=True,
            requantize=True,
            input_model_dtype="int8",
            quantized_dtype="uint8",
        ).action
        == "fake_quantize"
    )


IO_TYPES = "supported: uint8, int16, int8, float32, int32, int64, bool"


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"mode": "average"}, "Unsupported mode"),
        ({"max_percentile": "101"}, "Percentile must be ranged from 0 to 100"),
        ({"min_percentile": "-1"}, "Percentile must be ranged from 0 to 100"),
        ({"min_percentile": "low"}, "min_percentile must be float"),
        ({"max_percentile": "high"}, "max_percentile must be float"),
        ({"mode": "moving_average", "moving_avg_batch": "0.1"}, "moving_avg_batch must be integer"),
        ({"mode": "moving_average", "moving_avg_const": "c"}, "moving_avg_const must be float"),
        ({"mode": "moving_average", "moving_avg_const": "2"}, "moving_avg_const must be in [0, 1]"),
        # the reference's text, then the value given and the values supported (issue 33)
        (
            {"quantized_dtype": "uint16"},
            "Unsupported output type (quantized_dtype: uint16; supported: uint8, int16, int8)",
        ),
        (
            {"granularity": "layered"},
            "Unsupported granularity (granularity: layered; supported: layer, channel)",
        ),
        (
            {"input_dtype": "float64"},
            "Unsupported input type (input_model_dtype: float64; supported: float32)",
        ),
        ({"input_type": "float64"}, f"Unsupported input type (input_type: float64; {IO_TYPES})"),
        ({"output_type": "uint8,int4"}, f"Unsupported output type (output_type: int4; {IO_TYPES})"),
        (
            {"input_data_format": "h5list"},
            "Unsupported input data format (input_data_format: h5list; supported: h5, hdf5, "
            "list, filelist, dir, directory, npz, npy)",
        ),
        ({"quantized_dtype": "int16"}, "Layer-wise quantization only supports uint8 dtype."),
        (
            {"input_dtype": "float32", "input_model_dtype": "float32"},
            "'input_dtype' and 'input_model_dtype' are the same option: give only one",
        ),
    ],
)
def test_value_messages(given, message):
    assert error_of(**IO, **given) == message


def test_numbers_of_the_other_mode_are_not_checked(capsys):
    options = quantize(**IO, moving_avg_batch="x")
    assert options.moving_avg_batch == 16
    assert "'moving_avg_batch' has no effect with mode 'percentile'" in capsys.readouterr().err
    options = quantize(**IO, mode="moving_average", min_percentile="x", moving_avg_batch="4")
    assert (options.min_percentile, options.moving_avg_batch) == (1.0, 4)


def test_evaluation_flags_without_evaluate_result_warn(capsys):
    quantize(**IO, print_mae=True, test_data="t.h5")
    err = capsys.readouterr().err
    assert "WARNING: 'print_mae' has no effect without 'evaluate_result' and is ignored" in err
    assert "'test_data' has no effect" in err
    quantize(**IO, evaluate_result=True, print_mae=True)
    assert capsys.readouterr().err == ""


def test_quant_config_defaults_and_errors(write):
    write(
        "q.json",
        json.dumps({"default_quantization_dtype": "int16", "default_granularity": "channel"}),
    )
    options = quantize(**IO, quant_config="q.json")
    assert (options.quantized_dtype, options.granularity) == ("int16", "channel")
    assert quantize(**IO, quant_config="q.json", quantized_dtype="uint8").quantized_dtype == "uint8"
    write("bad.json", "{")
    assert error_of(**IO, quant_config="bad.json") == (
        "Failed to decode bad.json. Please check it is a json file."
    )
    assert "Not found given quantization configuration file" in error_of(
        **IO, quant_config="missing.json"
    )
