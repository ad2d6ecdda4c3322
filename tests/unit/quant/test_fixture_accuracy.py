"""Every float fixture the quantizer takes, in each dtype and granularity: the quantized
model runs in the interpreter's quantized kernels and stays close to the float model; the
uint8 layer-wise one runs in LiteRT's reference kernels with the interpreter's exact results.

Calibration and test records come from the same distribution (seeded random inputs), so the
error measured is the quantizer's, not ranges that do not cover the test data.
"""

import numpy as np
import pytest

import one_cmds
from one_cmds.interp import Interpreter
from support.litert import REFERENCE, random_inputs, run_model

FLOAT_IO = {"input_type": "float32", "output_type": "float32"}
FIXTURES = [
    "add2.tflite",
    "buffer_offset.tflite",
    "clamp_dense.tflite",
    "conv_channel_affine.tflite",
    "conv_spatial.tflite",
    "expand_dims.tflite",
    "gelu_erf_custom.tflite",
    "instnorm_decomposed.tflite",
    "layout_chains.tflite",
    "mean_of_mean.tflite",
    "misc_ops_a.tflite",
    "mobilenet_tiny.tflite",
    "prelu_decomposed.tflite",
    "splitv_equal.tflite",
    "transformer_block.tflite",
]
# Without a LiteRT kernel for a type or operator the quantized model uses (UINT8 elementwise
# math, the custom Erf).
NOT_IN_LITERT = {
    "gelu_erf_custom.tflite",
    "instnorm_decomposed.tflite",
    "misc_ops_a.tflite",
    "prelu_decomposed.tflite",
    "transformer_block.tflite",
}
# Largest mean PEIR (largest error over the float output's range, averaged over records).
BOUND = {"uint8": 0.05, "int16": 0.01}


def mpeir(expected, got):
    return float(
        np.mean(
            [
                np.max(np.abs(e - g)) / (float(np.ptp(e)) or 1.0)
                for es, gs in zip(expected, got, strict=True)
                for e, g in zip(es, gs, strict=True)
            ]
        )
    )


@pytest.mark.parametrize("name", FIXTURES)
@pytest.mark.parametrize(
    ("dtype", "granularity"), [("uint8", "layer"), ("uint8", "channel"), ("int16", "channel")]
)
def test_quantized_fixture_is_close_to_float(fixture_path, tmp_path, name, dtype, granularity):
    model = one_cmds.load(fixture_path(name))
    calibration = [random_inputs(model, seed) for seed in range(32)]
    data = tmp_path / "calibration.npz"
    stacked = zip(*calibration, strict=True)
    np.savez(data, **{str(i): np.stack(values) for i, values in enumerate(stacked)})
    quantized = one_cmds.quantize(
        model,
        quantized_dtype=dtype,
        granularity=granularity,
        input_data=str(data),
        input_data_format="npz",
        **FLOAT_IO,
    )
    tests = [random_inputs(model, 100 + seed) for seed in range(4)]
    expected = [Interpreter(model).run(x) for x in tests]
    got = [Interpreter(quantized).run(x) for x in tests]
    assert mpeir(expected, got) <= BOUND[dtype]
    if (dtype, granularity) == ("uint8", "layer") and name not in NOT_IN_LITERT:
        for x, ours in zip(tests, got, strict=True):
            for theirs, mine in zip(run_model(quantized, x, REFERENCE), ours, strict=True):
                np.testing.assert_array_equal(mine, theirs)
