"""The quantizer's checks (quantization.md §14)."""

import numpy as np
import pytest

import one_cmds
from one_cmds.quant.checks import check_constant_operands, check_quantized
from one_cmds.quant.errors import QuantizeError
from support.litert import BUILTIN, random_inputs, run_model
from support.passes import Net, conv2d_options


def test_quantized_fixtures_pass(fixture_path):
    for name in ("mobilenet_tiny.tflite", "conv_spatial.tflite", "transformer_block.tflite"):
        model = one_cmds.quantize(one_cmds.load(fixture_path(name)))
        check_quantized(model, "uint8")


def test_non_constant_weights_are_refused_before_quantization():
    net = Net()
    x = net.input("x", [1, 4, 4, 2])
    w = net.input("w", [3, 1, 1, 2])
    net.outputs(net.op("CONV_2D", [x, w, net.random("b", [3])], conv2d_options()))
    with pytest.raises(QuantizeError, match="input 1 'w' must be a constant"):
        check_constant_operands(net.model())


def test_a_float_operand_left_in_a_quantized_conv_is_invalid(fixture_path):
    model = one_cmds.quantize(one_cmds.load(fixture_path("mobilenet_tiny.tflite")))
    conv = next(op for op in model.main.operators if op.opcode == "CONV_2D")
    conv.inputs[1] = one_cmds.Tensor.constant("w_float", np.zeros(conv.inputs[1].shape, np.float32))
    with pytest.raises(QuantizeError, match=r"^Quantized graph is invalid \(CONV_2D"):
        check_quantized(model, "uint8")


def test_split_outputs_must_share_the_input_qparams(fixture_path):
    model = one_cmds.quantize(one_cmds.load(fixture_path("transformer_block.tflite")))
    split = next(op for op in model.main.operators if op.opcode == "SPLIT")
    out = split.outputs[0]
    out.quant = type(out.quant)(scale=out.quant.scale * 2, zero_point=out.quant.zero_point)
    with pytest.raises(QuantizeError, match="does not share its input's scale/zero point"):
        check_quantized(model, "uint8")


def test_a_float_constant_of_an_unsupported_operator_is_refused():
    net = Net()
    x = net.input("x", [1, 4])
    mean = net.const("mean", np.full([4], 0.5, np.float32))
    net.outputs(net.op("SQUARED_DIFFERENCE", [x, mean], name="spread"))
    with pytest.raises(
        QuantizeError, match=r"Unsupported Op for const inputs \(SQUARED_DIFFERENCE 'spread'"
    ):
        one_cmds.quantize(net.model())


def test_a_select_constant_takes_the_result_qparams(fixture_path):
    """misc_ops_b's ``SELECT_V2(Max > Sum, Max, e)``: LiteRT's integer SELECT copies raw
    values, so the constant is quantized with the result's qparams and the model runs."""
    model = one_cmds.load(fixture_path("misc_ops_b.tflite"))
    q = one_cmds.quantize(model, input_type="float32", output_type="float32")
    (select,) = [op for op in q.main.operators if op.kind == "SELECT_V2"]
    for t in select.inputs[1:]:
        assert (t.quant.scale.tolist(), t.quant.zero_point.tolist()) == (
            select.outputs[0].quant.scale.tolist(),
            select.outputs[0].quant.zero_point.tolist(),
        )
    x = random_inputs(model, seed=5)
    want = run_model(model, x, BUILTIN)
    got = run_model(q, x, BUILTIN)
    for w, g in zip(want, got, strict=True):
        assert np.abs(w - g).max() <= 0.05 * max(float(np.ptp(w)), 1e-6)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("int8_quant.tflite", r"Unsupported input type \(tensor .* is already quantized"),
        ("two_subgraphs.tflite", "models with subgraphs"),
    ],
)
def test_models_the_pipeline_cannot_quantize_are_refused(fixture_path, name, message):
    with pytest.raises(QuantizeError, match=message):
        one_cmds.quantize(one_cmds.load(fixture_path(name)))


def test_float16_weights_are_widened_and_quantized(fixture_path):
    """A float16 model (the TFLite converter's FLOAT16 weights behind DEQUANTIZE) quantizes:
    the reference asks for fold_dequantize first; the 16-bit weights an import keeps must not
    make a model that quantized before unquantizable."""
    model = one_cmds.load(fixture_path("fp16_weights.tflite"))
    inputs = random_inputs(model)
    (expected,) = run_model(model, inputs, BUILTIN)
    quantized = one_cmds.quantize(model, input_type="float32", output_type="float32")
    assert "FLOAT16" not in {t.dtype for t in quantized.main.referenced_tensors()}
    conv = next(op for op in quantized.main.operators if op.opcode == "CONV_2D")
    assert conv.inputs[1].dtype == "UINT8" and conv.inputs[1].is_constant
    (got,) = run_model(quantized, inputs, BUILTIN)
    assert np.abs(got - expected).max() <= 0.05 * np.abs(expected).max()
