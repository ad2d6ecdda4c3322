"""Values the static shapes determine, folded before quantization (quant/computed_constants.py)."""

import numpy as np

import one_cmds
from one_cmds.ir.schema import new_options
from one_cmds.quant import computed_constants
from support.litert import BUILTIN, run_model
from support.passes import Net


def _broadcast_model():
    """``x + BROADCAST_TO(1.0, SHAPE(x))``, as torch's attention writes its mask."""
    net = Net()
    x = net.input("x", [4, 4])
    shape = net.op("SHAPE", [x], new_options("ShapeOptions", outType=2), outputs=["INT32"])
    ones = net.op("BROADCAST_TO", [net.const("one", np.array(1.0, np.float32)), shape], version=2)
    net.outputs(net.binary("ADD", x, ones, name="sum"))
    return net.model()


def _int8(model, tmp_path):
    records = np.random.default_rng(0).uniform(-1, 1, (8, 4, 4)).astype(np.float32)
    np.savez(tmp_path / "r.npz", **{"0": records})
    q = one_cmds.quantize(
        model, quantized_dtype="int8", input_type="float32", output_type="float32",
        input_data=str(tmp_path / "r.npz"), input_data_format="npz",
    )  # fmt: skip
    return q, records


def test_a_constant_broadcast_to_a_computed_shape_is_folded(tmp_path):
    """With static shapes the mask is one constant (quantized as the ADD's), and the int8
    model runs in LiteRT equal to float."""
    q, records = _int8(_broadcast_model(), tmp_path)
    assert [op.kind for op in q.main.operators] == ["QUANTIZE", "ADD", "DEQUANTIZE"]
    (got,) = run_model(q, [records[0]], BUILTIN)
    np.testing.assert_allclose(got, records[0] + 1, atol=2 * 3 / 255)


def test_results_above_the_limit_stay_computed(monkeypatch):
    monkeypatch.setattr(computed_constants, "MAX_ELEMENTS", 15)
    model = _broadcast_model()
    assert computed_constants.fold_computed_constants(model) == 1  # the SHAPE only
    assert [op.kind for op in model.main.operators] == ["BROADCAST_TO", "ADD"]


def test_operators_on_the_model_s_own_constants_are_left(fixture_path):
    """fp16 weights (DEQUANTIZE of a constant) are one-optimize's to fold (fold_dequantize)."""
    model = one_cmds.load(fixture_path("fp16_weights.tflite"))
    before = [op.kind for op in model.main.operators]
    assert computed_constants.fold_computed_constants(model) == 0
    assert [op.kind for op in model.main.operators] == before
