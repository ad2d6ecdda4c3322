"""Custom operators stay float in a quantized model (quant/float_islands.py): MediaPipe's
MaxPoolingWithArgmax2D -> MaxUnpooling2D between two convolutions quantizes; the pool reads a
DEQUANTIZE, the unpool's result goes through a QUANTIZE, the indices between the two stay
float32, and the integer run stays close to float."""

import struct

import numpy as np
import pytest

import one_cmds
from support.passes import Net, conv2d_options

VALID = 2


def _pool_options() -> bytes:
    return struct.pack("<10i", VALID, 2, 2, 2, 2, 0, 0, 0, 0, 0)  # TfLitePoolParams


def _model():
    net = Net()
    x = net.input("x", [1, 8, 8, 3])
    w = net.random("w", [4, 3, 3, 3])
    y = net.op("CONV_2D", [x, w, net.random("b", [4])], conv2d_options(padding=1), name="conv")
    pooled, indices = net.op(
        "CUSTOM", [y], None, outputs=2, name="pool",
        custom_code="MaxPoolingWithArgmax2D", custom_options=_pool_options(),
    )  # fmt: skip
    up = net.op(
        "CUSTOM", [pooled, indices], None, name="unpool",
        custom_code="MaxUnpooling2D", custom_options=_pool_options(),
    )  # fmt: skip
    w2 = net.random("w2", [2, 3, 3, 4])
    net.outputs(net.op("CONV_2D", [up, w2, net.random("b2", [2])], conv2d_options(padding=1)))
    return net.model()


@pytest.mark.parametrize(("dtype", "granularity"), [("uint8", "layer"), ("int8", "channel")])
def test_custom_operators_compute_in_float(tmp_path, dtype, granularity):
    model = _model()
    records = np.random.default_rng(0).uniform(-1, 1, (8, 1, 8, 8, 3)).astype(np.float32)
    np.savez(tmp_path / "r.npz", **{"0": records})
    quantized = one_cmds.quantize(
        model, quantized_dtype=dtype, granularity=granularity, input_type="float32",
        output_type="float32", input_data=str(tmp_path / "r.npz"), input_data_format="npz",
    )  # fmt: skip
    ops = quantized.main.operators
    kinds = [op.kind for op in ops]
    pool = kinds.index("CUSTOM(MaxPoolingWithArgmax2D)")
    unpool = kinds.index("CUSTOM(MaxUnpooling2D)")
    assert kinds[pool - 1] == "DEQUANTIZE" and kinds[unpool + 1] == "QUANTIZE"
    assert all(t.dtype == "FLOAT32" for t in ops[pool].outputs + ops[unpool].inputs)
    assert ops[unpool].inputs[1] is ops[pool].outputs[1], "the indices stay float, no pair"
    x = records[0]
    (want,) = one_cmds.Interpreter(model).run([x])
    (got,) = one_cmds.Interpreter(quantized).run([x])
    assert np.abs(got - want).max() <= 0.05 * (want.max() - want.min())
