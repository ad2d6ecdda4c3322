"""The GGML block codec (interp/ggml_blocks.py) against the `gguf` package (quantization.md
§23.1) and the worked examples of §22.4."""

import gguf
import numpy as np
import pytest
from gguf import GGMLQuantizationType

from one_cmds.interp.ggml_blocks import (
    BLOCK_BYTES,
    dequantize_q4_0,
    dequantize_q8_0,
    dequantize_rows,
    ggml_size,
    quantize_q4_0,
    quantize_q8_0,
)

CODECS = {
    "GGML_Q4_0": (quantize_q4_0, dequantize_q4_0, GGMLQuantizationType.Q4_0),
    "GGML_Q8_0": (quantize_q8_0, dequantize_q8_0, GGMLQuantizationType.Q8_0),
}
RNG = np.random.default_rng(20)


def assert_like_gguf(dtype: str, x: np.ndarray) -> np.ndarray:
    """Our blocks are gguf's byte for byte and dequantize to gguf's values exactly."""
    quantize, dequantize, qtype = CODECS[dtype]
    ours = quantize(x)
    theirs = gguf.quants.quantize(x, qtype)
    assert ours.dtype == np.uint8
    assert ours.shape == (*x.shape[:-1], x.shape[-1] // 32 * BLOCK_BYTES[dtype])
    assert ours.tobytes() == theirs.tobytes()
    values = dequantize(ours, x.shape)
    assert values.dtype == np.float32
    np.testing.assert_array_equal(values, gguf.quants.dequantize(theirs, qtype))
    return ours


def block(*values: float) -> np.ndarray:
    """A block of 32 starting with ``values``, the rest small."""
    x = np.linspace(-0.5, 0.5, 32, dtype=np.float32)
    x[: len(values)] = values
    return x


@pytest.mark.parametrize("dtype", CODECS)
@pytest.mark.parametrize("scale", [1e-3, 1.0, 100.0])
@pytest.mark.parametrize("shape", [(8, 64), (3, 4, 96)])
def test_normal_data_matches_gguf(dtype, scale, shape):
    assert_like_gguf(dtype, (RNG.standard_normal(shape) * scale).astype(np.float32))


@pytest.mark.parametrize("dtype", CODECS)
def test_many_random_tensors_match_gguf(dtype):
    for _ in range(50):
        rows, blocks = RNG.integers(1, 6), RNG.integers(1, 5)
        scale = 10.0 ** RNG.uniform(-4, 3)
        x = (RNG.standard_normal((rows, 32 * blocks)) * scale).astype(np.float32)
        assert_like_gguf(dtype, x)


@pytest.mark.parametrize("dtype", CODECS)
def test_zero_blocks(dtype):
    x = RNG.standard_normal((2, 96)).astype(np.float32)
    x[0, 32:64] = 0
    x[1, :32] = -0.0
    raw = assert_like_gguf(dtype, x)
    np.testing.assert_array_equal(CODECS[dtype][1](raw, x.shape)[0, 32:64], 0)


@pytest.mark.parametrize("dtype", CODECS)
def test_exact_half_products(dtype):
    # Q4_0: max -8 gives d = 1 and x*id + 8.5 lands on .5 + integers; Q8_0: max 127 gives
    # d = 1 and x*id = x, halves rounded away from zero.
    halves = np.arange(-16, 16, dtype=np.float32) / 2
    q4 = block(-8, *halves[1:])
    q8 = block(127, *halves[1:])
    assert_like_gguf(dtype, np.stack([q4, q8, -q4, -q8]))


@pytest.mark.parametrize("dtype", CODECS)
@pytest.mark.parametrize("peak", [5.0, -5.0])
def test_positive_and_negative_maxima(dtype, peak):
    assert_like_gguf(dtype, np.stack([block(peak), block(0, peak), block(1, 2, peak)]))


@pytest.mark.parametrize("dtype", CODECS)
def test_ties_of_largest_magnitude(dtype):
    # Q4_0 takes the first element of largest |x|: its sign decides the sign of d.
    raw = assert_like_gguf(dtype, np.stack([block(3, -3), block(-3, 3), block(0, 3, 3)]))
    if dtype == "GGML_Q4_0":
        d = raw.reshape(3, 18)[:, :2].copy().view("<f2").reshape(-1)
        np.testing.assert_array_equal(d, np.float16([-0.375, 0.375, -0.375]))


def test_q4_0_worked_example():
    x = (np.arange(32, dtype=np.float32) - 16) / 4
    raw = quantize_q4_0(x)
    assert raw.tobytes().hex(" ") == ("00 38 80 91 91 a2 a2 b3 b3 c4 c4 d5 d5 e6 e6 f7 f7 f8")
    values = dequantize_q4_0(raw, (32,))
    assert values[:4].tolist() == [-4, -3.5, -3.5, -3]
    assert values[-3:].tolist() == [3.5, 3.5, 3.5]
    negated = quantize_q4_0(-x)
    assert negated[:2].tobytes() == bytes([0x00, 0xB8])
    assert negated[2:].tobytes() == raw[2:].tobytes()


def test_q4_0_all_zero_block():
    raw = quantize_q4_0(np.zeros(32, np.float32))
    assert raw.tobytes() == bytes([0x00, 0x80]) + bytes([0x88] * 16)


def test_q8_0_worked_example():
    x = (np.arange(32, dtype=np.float32) - 16) / 4
    raw = quantize_q8_0(x)
    assert raw[:2].tobytes() == bytes([0x08, 0x28])
    assert raw[2] == 0x81 and raw[-1] == 0x77
    values = dequantize_q8_0(raw, (32,))
    assert values[0] == np.float32(-3.9997559)
    assert raw[:2].view("<f2")[0] == np.float16(0.031494141)


@pytest.mark.parametrize("quantize", [quantize_q4_0, quantize_q8_0])
@pytest.mark.parametrize("shape", [(2, 48), (31,), ()])
def test_last_dimension_must_hold_whole_blocks(quantize, shape):
    with pytest.raises(ValueError, match="is not a multiple of 32"):
        quantize(np.zeros(shape, np.float32))


def test_sizes():
    assert ggml_size("GGML_Q4_0", (4, 64)) == 4 * 2 * 18
    assert ggml_size("GGML_Q8_0", (2, 3, 32)) == 6 * 34
    with pytest.raises(ValueError, match="last dimension 40"):
        ggml_size("GGML_Q8_0", (2, 40))
    with pytest.raises(ValueError, match="not a GGML block type"):
        ggml_size("GGML_Q4_1", (2, 32))


@pytest.mark.parametrize("dtype", CODECS)
def test_rows_decode_only_what_is_asked(dtype):
    quantize, dequantize, _ = CODECS[dtype]
    x = RNG.standard_normal((2, 5, 64)).astype(np.float32)
    raw = quantize(x)
    whole = dequantize(raw.reshape(-1), x.shape).reshape(10, 64)
    np.testing.assert_array_equal(dequantize_rows(dtype, raw, x.shape, slice(3, 7)), whole[3:7])
    picked = np.array([[9, 0], [4, 4]])
    np.testing.assert_array_equal(dequantize_rows(dtype, raw, x.shape, picked), whole[picked])


def test_rows_need_the_whole_buffer():
    raw = quantize_q8_0(np.ones((2, 32), np.float32))
    with pytest.raises(ValueError, match="needs 68 bytes, got 67"):
        dequantize_q8_0(raw.reshape(-1)[:-1], (2, 32))
