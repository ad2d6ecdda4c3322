"""force_quantparam, copy_quantparam and requantize (quantization.md §15)."""

import numpy as np
import pytest

import one_cmds
from one_cmds.errors import OneCmdsError


def test_force_quantparam_sets_scale_and_zero_point(fixture_path):
    model = one_cmds.load(fixture_path("add2.tflite"))
    out = one_cmds.quantize(
        model, force_quantparam=True, tensor_name=["ifm1"], scale=[2.1], zero_point=[45]
    )
    t = out.main.inputs[0]
    assert t.dtype == "FLOAT32" and t.quant.scale.tolist() == pytest.approx([2.1])
    assert t.quant.zero_point.tolist() == [45] and t.quant.min is None


def test_force_quantparam_unknown_tensor(fixture_path):
    model = one_cmds.load(fixture_path("add2.tflite"))
    with pytest.raises(OneCmdsError, match="tensor 'nope' is not in the model"):
        one_cmds.quantize(
            model, force_quantparam=True, tensor_name=["nope"], scale=[1.0], zero_point=[0]
        )


def test_copy_quantparam(fixture_path):
    model = one_cmds.load(fixture_path("int8_quant.tflite"))
    source, target = model.main.inputs[0].name, model.main.outputs[0].name
    out = one_cmds.quantize(
        model, copy_quantparam=True, src_tensor_name=[source], dst_tensor_name=[target]
    )
    assert out.main.outputs[0].quant.scale.tolist() == out.main.inputs[0].quant.scale.tolist()


def test_requantize_int8_to_uint8_shifts_values_and_zero_points(fixture_path):
    """LiteRT has no uint8 per-channel convolution, so the shift itself is checked."""
    model = one_cmds.load(fixture_path("int8_quant.tflite"))
    out = one_cmds.quantize(
        model, requantize=True, input_model_dtype="int8", quantized_dtype="uint8"
    )
    before = {t.name: t for t in model.main.referenced_tensors()}
    shifted = 0
    for t in out.main.referenced_tensors():
        old = before[t.name]
        if old.dtype != "INT8":
            assert t.dtype == old.dtype
            continue
        shifted += 1
        assert t.dtype == "UINT8"
        np.testing.assert_array_equal(t.quant.zero_point, np.asarray(old.quant.zero_point) + 128)
        if old.is_constant:
            np.testing.assert_array_equal(t.data.astype(np.int16), old.data.astype(np.int16) + 128)
    assert shifted >= 4
    assert out.main.inputs[0].dtype == "UINT8" and model.main.inputs[0].dtype == "INT8"


def test_a_fake_quantized_model_with_float_outputs_runs_in_litert(fixture_path):
    """The output's DEQUANTIZE reads a float value once its producer is simulated: it goes
    (LiteRT refused the float DEQUANTIZE, so evaluate_result and ampq ran on the reference
    interpreter), and the graph output keeps its name."""
    from one_cmds.engines.choice import litert_runner
    from one_cmds.quant.fake_quantize import fake_quantize

    model = one_cmds.load(fixture_path("mobilenet_tiny.tflite"))
    q = one_cmds.quantize(model, granularity="channel", input_type="float32", output_type="float32")
    fake_quantize(q)
    assert [t.name for t in q.main.outputs] == [t.name for t in model.main.outputs]
    assert not any(op.opcode == "DEQUANTIZE" and op.inputs[0].dtype == "FLOAT32"
                   for op in q.main.operators)  # fmt: skip
    runner = litert_runner(q, "litert")
    x = np.random.default_rng(0).uniform(-1, 1, model.main.inputs[0].shape).astype(np.float32)
    (lite,), _ = runner.run([x])
    (want,) = one_cmds.Interpreter(q, engine="reference").run([x])
    assert np.abs(lite - want).max() <= 1e-4
