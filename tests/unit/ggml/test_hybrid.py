"""Hybrid operators (weights-only quantization, quantization.md §21.3): FULLY_CONNECTED,
CONV_2D and DEPTHWISE_CONV_2D with constant INT8 / INT16 / INT4 per-channel weights and float32
activations run the float kernel on ``float32(q) * scale[c]``; the forms LiteRT cannot run are
reported by ``litert_gaps``."""

import numpy as np
import pytest

from one_cmds.engines.litert_coverage import litert_gaps
from one_cmds.interp import Interpreter, InterpreterError, real_weights
from one_cmds.ir import Buffer, QuantParam, Tensor
from support.litert import BUILTIN, run_model
from support.passes import Net, conv2d_options, depthwise_options, fc_options

RNG = np.random.default_rng(21)
LIMIT = {"INT8": 127, "INT16": 32767, "INT4": 7}
NUMPY = {"INT8": np.int8, "INT16": np.int16}


def packed_int4(q: np.ndarray) -> np.ndarray:
    """Two's complement nibbles, element 2k low, 2k+1 high; a last odd high nibble is 0."""
    nibbles = (q.reshape(-1).astype(np.int8) & 0x0F).astype(np.uint8)
    if nibbles.size % 2:
        nibbles = np.append(nibbles, np.uint8(0))
    return nibbles[0::2] | (nibbles[1::2] << 4)


def weights(dtype: str, shape: tuple[int, ...], axis: int) -> tuple[Tensor, np.ndarray]:
    """A per-channel ``dtype`` constant (zero points 0) and its real values computed here."""
    q = RNG.integers(-LIMIT[dtype], LIMIT[dtype] + 1, shape)
    scale = RNG.uniform(0.001, 0.01, shape[axis]).astype(np.float32)
    if dtype == "INT4":
        tensor = Tensor("w", "INT4", shape, buffer=Buffer.from_array(packed_int4(q)))
    else:
        tensor = Tensor.constant("w", q.astype(NUMPY[dtype]))
    tensor.quant = QuantParam(
        scale=scale, zero_point=np.zeros(len(scale), np.int64), quantized_dimension=axis
    )
    broadcast = [1] * len(shape)
    broadcast[axis] = -1
    return tensor, q.astype(np.float32) * scale.reshape(broadcast)


def pair(kind: str, dtype: str, out: int = 0):
    """The hybrid model of ``kind`` and its float twin, and an input."""
    if kind == "FULLY_CONNECTED":
        shape, axis, x_shape, options = (6, 9), 0, (3, 9), fc_options(act=1)
    elif kind == "CONV_2D":
        shape, axis, x_shape, options = (4, 3, 3, 3), 0, (1, 6, 6, 3), conv2d_options(act=3)
    else:
        shape, axis, x_shape, options = (1, 3, 3, 4), 3, (1, 6, 6, 4), depthwise_options()
    w, real = weights(dtype, shape, axis)
    bias = RNG.standard_normal(shape[axis]).astype(np.float32)
    models = []
    for weight in (w, Tensor.constant("w", real)):
        net = Net()
        x = net.input("x", x_shape)
        net.outputs(net.op(kind, [x, weight, net.const("b", bias)], options))
        models.append(net.model())
    return *models, RNG.standard_normal(x_shape).astype(np.float32)


@pytest.mark.parametrize("dtype", ["INT8", "INT16", "INT4"])
@pytest.mark.parametrize("kind", ["FULLY_CONNECTED", "CONV_2D", "DEPTHWISE_CONV_2D"])
def test_hybrid_runs_the_float_kernel_on_real_weights(kind, dtype):
    hybrid, float_twin, x = pair(kind, dtype)
    (got,) = Interpreter(hybrid).run([x])
    (want,) = Interpreter(float_twin).run([x])
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", ["INT8", "INT4"])
def test_large_hybrid_weights_are_read_a_chunk_of_rows_at_a_time(dtype, monkeypatch):
    hybrid, float_twin, x = pair("FULLY_CONNECTED", dtype)
    monkeypatch.setattr(real_weights, "CHUNK_BYTES", 2 * 9 * 4)  # 2 rows: odd nibble starts
    calls = []
    decode = real_weights.dequantized

    def spy(tensor, value, rows=slice(None)):
        calls.append((rows.start, rows.stop))
        return decode(tensor, value, rows)

    monkeypatch.setattr(real_weights, "dequantized", spy)
    (got,) = Interpreter(hybrid).run([x])
    (want,) = Interpreter(float_twin).run([x])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())
    assert calls == [(0, 2), (2, 4), (4, 6)]


@pytest.mark.parametrize("dtype", ["INT8", "INT16", "INT4"])
def test_rows_of_a_weight_are_the_rows_of_its_values(dtype):
    w, real = weights(dtype, (5, 7), 0)
    for start, stop in [(0, 5), (1, 4), (3, 4), (4, 5)]:
        rows = real_weights.dequantized(w, w.data, slice(start, stop))
        np.testing.assert_array_equal(rows, real[start:stop])


def test_a_quantized_output_is_not_hybrid():
    w, _ = weights("INT8", (3, 8), 0)
    net = Net()
    x = net.input("x", (2, 8))
    y = net.op("FULLY_CONNECTED", [x, w, None], fc_options())
    net.outputs(y)
    model = net.model()
    y.dtype = "INT8"  # after shape inference, which gives the input's type
    y.quant = QuantParam(scale=np.float32([0.1]), zero_point=np.int64([0]))
    with pytest.raises(InterpreterError, match="hybrid or partially quantized"):
        Interpreter(model).run([np.ones((2, 8), np.float32)])


@pytest.mark.parametrize(
    ("kind", "dtype"),
    [
        ("FULLY_CONNECTED", "INT16"),
        ("CONV_2D", "INT16"),
        ("DEPTHWISE_CONV_2D", "INT16"),
        ("DEPTHWISE_CONV_2D", "INT4"),
    ],
)
def test_litert_gaps_name_the_hybrid_forms_litert_cannot_run(kind, dtype):
    hybrid, _, x = pair(kind, dtype)
    name = hybrid.main.outputs[0].name
    assert [str(g) for g in litert_gaps(hybrid)] == [
        f"LiteRT has no {kind} kernel with float32 input and {dtype} weights ('{name}')"
    ]
    (ours,) = Interpreter(hybrid).run([x])
    try:
        (theirs,) = run_model(hybrid, [x], BUILTIN)
    except RuntimeError:
        return  # refused at Prepare
    assert not np.allclose(theirs, ours, rtol=0.1, atol=0.1)  # CONV_2D with INT16: garbage


@pytest.mark.parametrize(
    ("kind", "dtype"),
    [
        ("FULLY_CONNECTED", "INT8"),
        ("FULLY_CONNECTED", "INT4"),
        ("CONV_2D", "INT8"),
        ("CONV_2D", "INT4"),
        ("DEPTHWISE_CONV_2D", "INT8"),
    ],
)
def test_litert_runs_the_other_hybrid_forms(kind, dtype):
    # LiteRT quantizes the input at run time: within 2 % of max|y| (quantization.md §23.2).
    hybrid, _, x = pair(kind, dtype)
    assert litert_gaps(hybrid) == []
    (ours,) = Interpreter(hybrid).run([x])
    (theirs,) = run_model(hybrid, [x], BUILTIN)
    assert np.abs(theirs - ours).max() <= 0.02 * np.abs(ours).max()


@pytest.mark.parametrize(("dtype", "gap"), [("INT16", True), ("INT8", False), ("INT4", False)])
def test_per_channel_dequantize_of_int16_is_a_gap(dtype, gap):
    w, real = weights(dtype, (4, 8), 0)
    net = Net()
    x = net.input("x", (4, 8))
    net.outputs(net.binary("ADD", x, net.op("DEQUANTIZE", [w])))
    model = net.model()
    inputs = [np.ones((4, 8), np.float32)]
    np.testing.assert_array_equal(Interpreter(model).run(inputs)[0], real + 1)
    if gap:
        assert [g.what for g in litert_gaps(model)] == ["per-channel INT16 DEQUANTIZE kernel"]
        with pytest.raises(RuntimeError, match="not supported for per-channel"):
            run_model(model, inputs, BUILTIN)
    else:
        assert litert_gaps(model) == []
        np.testing.assert_array_equal(run_model(model, inputs, BUILTIN)[0], real + 1)
