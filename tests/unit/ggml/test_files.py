"""Model files with GGML tensors (quantization.md §22.3): the load checks, a circle round trip,
the refused TFL3 export, and the engine choice (LiteRT has no GGML types)."""

import numpy as np
import pytest

import one_cmds
from one_cmds.engines.choice import litert_runner
from one_cmds.engines.litert_coverage import litert_gaps
from one_cmds.errors import ExportError, ModelFileError
from one_cmds.interp import Interpreter
from one_cmds.interp.ggml_blocks import quantize_q4_0, quantize_q8_0
from one_cmds.ir import Buffer, Tensor
from support.passes import Net, fc_options, new_options

RNG = np.random.default_rng(23)


def ggml_model(w_raw: np.ndarray, w_shape, dtype="GGML_Q4_0", emb=None) -> one_cmds.Model:
    """x -> FULLY_CONNECTED(x, w); with ``emb`` (raw Q8_0 [V, 64]) also GATHER(emb, ids)."""
    net = Net()
    x = net.input("x", (2, w_shape[-1]))
    w = Tensor("w", dtype, w_shape, buffer=Buffer.from_array(w_raw))
    net.outputs(net.op("FULLY_CONNECTED", [x, w, None], fc_options(), name="fc"))
    if emb is not None:
        ids = net.input("ids", (3,), "INT32")
        table = Tensor("emb", "GGML_Q8_0", (emb.shape[0], 64), buffer=Buffer.from_array(emb))
        options = new_options("GatherOptions", axis=0)
        net.outputs(net.op("GATHER", [table, ids], options, name="gathered"))
    return net.model()


def test_a_model_with_ggml_tensors_saves_and_loads_back_unchanged(tmp_path):
    w = quantize_q4_0(RNG.standard_normal((8, 64)).astype(np.float32))
    emb = quantize_q8_0(RNG.standard_normal((10, 64)).astype(np.float32))
    model = ggml_model(w, (8, 64), emb=emb)
    path = str(tmp_path / "m.circle")
    one_cmds.save(model, path)
    loaded = one_cmds.load(path)
    tensors = {t.name: t for t in loaded.main.tensors}
    for name, dtype, shape, raw in [
        ("w", "GGML_Q4_0", (8, 64), w),
        ("emb", "GGML_Q8_0", (10, 64), emb),
    ]:
        t = tensors[name]
        assert (t.dtype, t.shape, t.quant) == (dtype, shape, None)
        assert t.buffer.tobytes() == raw.tobytes()
    inputs = [RNG.standard_normal((2, 64)).astype(np.float32), np.array([9, 0, 4], np.int32)]
    for got, want in zip(
        Interpreter(loaded).run(inputs), Interpreter(model).run(inputs), strict=True
    ):
        np.testing.assert_array_equal(got, want)
    again = tmp_path / "again.circle"
    one_cmds.save(loaded, str(again))
    assert again.read_bytes() == (tmp_path / "m.circle").read_bytes()


def load_error(model, tmp_path) -> tuple[str, str]:
    path = str(tmp_path / "bad.circle")
    one_cmds.save(model, path)
    with pytest.raises(ModelFileError) as e:
        one_cmds.load(path)
    return str(e.value), path


def test_last_dimension_not_a_multiple_of_32_is_refused(tmp_path):
    raw = np.zeros(2 * 48 // 32 * 18 + 18, np.uint8)
    message, path = load_error(ggml_model(raw, (2, 48)), tmp_path)
    assert message == (
        f"Invalid input file: {path} (tensor w of graph 0: last dimension 48 is not a multiple of 32)"
    )


@pytest.mark.parametrize(
    ("dtype", "size", "expected"), [("GGML_Q4_0", 71, 72), ("GGML_Q8_0", 140, 136)]
)
def test_a_buffer_of_the_wrong_size_is_refused(tmp_path, dtype, size, expected):
    message, path = load_error(ggml_model(np.zeros(size, np.uint8), (2, 64), dtype), tmp_path)
    assert message == (
        f"Invalid input file: {path} (tensor w of graph 0: {dtype} buffer has {size} bytes, "
        f"expected {expected})"
    )


def test_tflite_export_is_refused(tmp_path):
    model = ggml_model(quantize_q4_0(np.ones((8, 64), np.float32)), (8, 64))
    path = str(tmp_path / "m.tflite")
    with pytest.raises(ExportError) as e:
        one_cmds.save(model, path)
    assert str(e.value) == (
        f"Failed to export: {path} (tensor type GGML_Q4_0 exists only in circle: graph 0, tensor w)"
    )


def test_engine_auto_falls_back_to_the_interpreter():
    emb = quantize_q8_0(np.ones((4, 64), np.float32))
    model = ggml_model(quantize_q4_0(np.ones((8, 64), np.float32)), (8, 64), emb=emb)
    assert [str(g) for g in litert_gaps(model)] == [
        "LiteRT has no GGML_Q4_0 tensor type (circle only) ('fc')",
        "LiteRT has no GGML_Q8_0 tensor type (circle only) ('gathered')",
    ]
    notes = []
    assert litert_runner(model, "auto", note=notes.append) is None
    assert notes == [
        "engine: reference (LiteRT cannot run the model: "
        "LiteRT has no GGML_Q4_0 tensor type (circle only) ('fc'))"
    ]
