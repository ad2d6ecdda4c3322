"""FULLY_CONNECTED and GATHER with GGML_Q4_0 / GGML_Q8_0 constants (quantization.md §22.5): the
float kernels on the weights as gguf dequantizes them; large weights a chunk of rows at a time;
every other use of a block type refused."""

import gguf
import numpy as np
import pytest
from gguf import GGMLQuantizationType

from one_cmds.interp import Interpreter, InterpreterError, real_weights
from one_cmds.interp.kernels import indexing
from one_cmds.ir import Buffer, Tensor
from support.passes import Net, conv2d_options, fc_options, new_options

QTYPES = {"GGML_Q4_0": GGMLQuantizationType.Q4_0, "GGML_Q8_0": GGMLQuantizationType.Q8_0}
RNG = np.random.default_rng(22)


def blocks(name: str, dtype: str, w: np.ndarray) -> tuple[Tensor, np.ndarray]:
    """A GGML constant of ``w`` made by gguf, and the float32 values gguf reads back."""
    raw = gguf.quants.quantize(w, QTYPES[dtype])
    tensor = Tensor(name, dtype, w.shape, buffer=Buffer.from_array(raw))
    return tensor, gguf.quants.dequantize(raw, QTYPES[dtype])


def fc_models(dtype, x_shape, units, depth, *, bias=True, act=0, keep=False):
    """The FULLY_CONNECTED model with GGML weights and its float twin on gguf's values."""
    w = RNG.standard_normal((units, depth)).astype(np.float32)
    b = RNG.standard_normal(units).astype(np.float32) if bias else None
    models = []
    for weights in (blocks("w", dtype, w)[0], Tensor.constant("w", blocks("w", dtype, w)[1])):
        net = Net()
        x = net.input("x", x_shape)
        bias_t = None if b is None else net.const("b", b)
        net.outputs(net.op("FULLY_CONNECTED", [x, weights, bias_t], fc_options(act, keep)))
        models.append(net.model())
    return models


@pytest.mark.parametrize("dtype", QTYPES)
@pytest.mark.parametrize(
    ("x_shape", "keep", "act", "bias"),
    [((3, 64), False, 0, True), ((2, 5, 64), True, 1, True), ((2, 2, 32), False, 3, False)],
)
def test_fully_connected_is_the_float_kernel_on_gguf_values(dtype, x_shape, keep, act, bias):
    quantized, float_twin = fc_models(
        dtype, x_shape, 16, x_shape[-1], bias=bias, act=act, keep=keep
    )
    x = RNG.standard_normal(x_shape).astype(np.float32)
    (got,) = Interpreter(quantized).run([x])
    (want,) = Interpreter(float_twin).run([x])
    assert got.dtype == np.float32 and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


class Spy:
    """Records the rows that ``module`` (real_weights or the GATHER kernels) decodes."""

    def __init__(self, monkeypatch, module=real_weights):
        self.calls = []
        decode = module.dequantize_rows

        def spy(dtype, raw, shape, rows):
            self.calls.append(rows)
            return decode(dtype, raw, shape, rows)

        monkeypatch.setattr(module, "dequantize_rows", spy)


@pytest.mark.parametrize("dtype", QTYPES)
def test_large_weights_are_read_a_chunk_of_rows_at_a_time(dtype, monkeypatch):
    quantized, float_twin = fc_models(dtype, (4, 96), 50, 96)
    x = RNG.standard_normal((4, 96)).astype(np.float32)
    (whole,) = Interpreter(float_twin).run([x])
    monkeypatch.setattr(real_weights, "CHUNK_BYTES", 7 * 96 * 4)  # 7 rows of float32
    spy = Spy(monkeypatch)
    interpreter = Interpreter(quantized)
    for _ in range(2):  # too large to be kept: streamed again on every run
        (got,) = interpreter.run([x])
        np.testing.assert_allclose(got, whole, rtol=1e-5, atol=1e-5 * np.abs(whole).max())
    spans = [(s.start, min(s.stop, 50)) for s in spy.calls]
    assert spans == [(s, min(s + 7, 50)) for s in range(0, 50, 7)] * 2


def test_small_weights_are_decoded_once_per_loaded_model(monkeypatch):
    quantized, float_twin = fc_models("GGML_Q4_0", (2, 64), 8, 64)
    spy = Spy(monkeypatch)
    interpreter = Interpreter(quantized)
    x = RNG.standard_normal((2, 64)).astype(np.float32)
    for _ in range(3):
        (got,) = interpreter.run([x])
    assert spy.calls == [slice(None)]
    np.testing.assert_array_equal(got, Interpreter(float_twin).run([x])[0])


def test_chunked_records_are_those_of_single_runs(monkeypatch):
    quantized, _ = fc_models("GGML_Q8_0", (None, 64), 20, 64)
    monkeypatch.setattr(real_weights, "CHUNK_BYTES", 3 * 64 * 4)
    x = RNG.standard_normal((3, 64)).astype(np.float32)
    (batched,) = Interpreter(quantized, records=True).run([x])
    singles = [Interpreter(quantized).run([x[i : i + 1]])[0] for i in range(3)]
    np.testing.assert_array_equal(batched, np.concatenate(singles))


def gather_model(params: Tensor, indices_shape, axis=0):
    net = Net()
    indices = net.input("ids", indices_shape, "INT32")
    net.outputs(net.op("GATHER", [params, indices], new_options("GatherOptions", axis=axis)))
    return net.model()


@pytest.mark.parametrize("dtype", QTYPES)
@pytest.mark.parametrize(
    ("shape", "ids"), [((10, 64), [[3, 0, 9], [3, 3, 1]]), ((6, 2, 32), [5, 0])]
)
def test_gather_dequantizes_the_selected_rows(dtype, shape, ids, monkeypatch):
    w = RNG.standard_normal(shape).astype(np.float32)
    params, values = blocks("emb", dtype, w)
    model = gather_model(params, np.shape(ids))
    assert model.main.outputs[0].dtype == "FLOAT32"  # the shape rule
    spy = Spy(monkeypatch, indexing)
    (got,) = Interpreter(model).run([np.array(ids, np.int32)])
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, values[np.array(ids)])
    per_index = int(np.prod(shape[1:-1]))
    assert spy.calls[0].shape == (*np.shape(ids), per_index)  # only those rows decoded


def test_gather_refuses_an_index_out_of_range():
    params, _ = blocks("emb", "GGML_Q4_0", np.ones((4, 32), np.float32))
    with pytest.raises(InterpreterError, match=r"gather index out of range \[0, 4\)"):
        Interpreter(gather_model(params, (1,))).run([np.array([4], np.int32)])


def test_gather_of_blocks_is_along_axis_0():
    params, _ = blocks("emb", "GGML_Q8_0", np.ones((4, 32), np.float32))
    with pytest.raises(InterpreterError, match="gathered along axis 0"):
        Interpreter(gather_model(params, (1,), axis=1)).run([np.array([0], np.int32)])


def block_tensor(name, dtype, shape):
    """A tensor of a block type with zero bytes of the right size (18 per 32 elements)."""
    raw = np.zeros(int(np.prod(shape)) // 32 * 18, np.uint8)
    return Tensor(name, dtype, shape, buffer=Buffer.from_array(raw))


@pytest.mark.parametrize("dtype", ["GGML_Q4_1", "GGML_Q8_1", "MXFP4", "MXINT8"])
def test_other_block_types_are_refused(dtype):
    net = Net()
    x = net.input("x", (1, 64))
    net.outputs(net.op("FULLY_CONNECTED", [x, block_tensor("w", dtype, (4, 64)), None]))
    model = net.model()
    with pytest.raises(InterpreterError) as e:
        Interpreter(model).run([np.ones((1, 64), np.float32)])
    assert str(e.value).endswith(f"Unsupported tensor type {dtype} for FULLY_CONNECTED input 1")


def test_other_uses_of_ggml_are_refused():
    net = Net()
    x = net.input("x", (1, 4, 4, 32))
    filters = block_tensor("f", "GGML_Q4_0", (2, 1, 1, 32))
    y = net.op("CONV_2D", [x, filters, None], conv2d_options())
    net.outputs(y)
    model = net.model()
    with pytest.raises(
        InterpreterError, match="Unsupported tensor type GGML_Q4_0 for CONV_2D input 1"
    ):
        Interpreter(model).run([np.ones((1, 4, 4, 32), np.float32)])


def test_ggml_activation_input_of_fully_connected_is_refused():
    net = Net()
    w = net.input("w", (4, 64))
    net.outputs(net.op("FULLY_CONNECTED", [block_tensor("x", "GGML_Q8_0", (1, 64)), w, None]))
    model = net.model()
    with pytest.raises(
        InterpreterError, match="Unsupported tensor type GGML_Q8_0 for FULLY_CONNECTED input 0"
    ):
        Interpreter(model).run([np.ones((4, 64), np.float32)])
