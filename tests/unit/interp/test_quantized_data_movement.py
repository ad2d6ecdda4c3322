"""Data movement on quantized INT8 / UINT8 / INT16 tensors: the kernels are not real-valued,
so the integers pass through unchanged (and PAD fills with the zero point); checked against
LiteRT's reference kernels, exactly."""

import numpy as np
import pytest

from one_cmds.interp import Interpreter
from one_cmds.ir import QuantParam
from support.litert import REFERENCE, run_model
from support.quantized import NUMPY, qrand
from support.single_op import const, new_options, op_model

RNG = np.random.default_rng(13)
DTYPES = ["INT8", "UINT8", "INT16"]
I32 = np.int32


def check(opcode, operands, options, dtype, outputs=1):
    """Every tensor of the quantized type shares one (scale, zero point); ours equals LiteRT."""
    zero_point = {"INT8": -7, "UINT8": 131}.get(dtype, 0)
    q = QuantParam(
        scale=np.array([0.037], np.float32),
        zero_point=np.array([zero_point], np.int64),
        quantized_dimension=0,
    )
    model = op_model(opcode, operands, options, outputs=[dtype] * outputs)
    op = model.main.operators[0]
    for tensor in [*op.inputs, *op.outputs]:
        if tensor is not None and tensor.dtype == dtype:
            tensor.quant = q
    inputs = [o for o in operands if isinstance(o, np.ndarray)]
    expected = run_model(model, inputs, REFERENCE)
    got = Interpreter(model).run(inputs)
    assert len(got) == len(expected) == outputs
    for e, g in zip(expected, got, strict=True):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("dtype", DTYPES)
def test_reshape(dtype):
    x = qrand(RNG, dtype, 2, 3, 4)
    check("RESHAPE", [x, const([4, -1], I32)], new_options("ReshapeOptions"), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_transpose(dtype):
    x = qrand(RNG, dtype, 2, 3, 4, 5)
    check("TRANSPOSE", [x, const([0, 3, 1, 2], I32)], new_options("TransposeOptions"), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_squeeze(dtype):
    x = qrand(RNG, dtype, 2, 1, 4, 1)
    check("SQUEEZE", [x], new_options("SqueezeOptions", squeezeDims=[1]), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_expand_dims(dtype):
    x = qrand(RNG, dtype, 3, 4)
    check("EXPAND_DIMS", [x, const([-1], I32)], new_options("ExpandDimsOptions"), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_slice(dtype):
    x = qrand(RNG, dtype, 4, 5, 6)
    operands = [x, const([1, 0, 2], I32), const([2, -1, 3], I32)]
    check("SLICE", operands, new_options("SliceOptions"), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_strided_slice(dtype):
    x = qrand(RNG, dtype, 5, 6, 7)
    operands = [x, const([4, 1, 0], I32), const([0, 6, 7], I32), const([-2, 2, 3], I32)]
    options = new_options("StridedSliceOptions", beginMask=0, endMask=4, shrinkAxisMask=0)
    check("STRIDED_SLICE", operands, options, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_gather(dtype):
    x = qrand(RNG, dtype, 3, 6, 2)
    operands = [x, const([[5, 0], [2, 2]], I32)]
    check("GATHER", operands, new_options("GatherOptions", axis=1), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_split(dtype):
    x = qrand(RNG, dtype, 2, 9, 3)
    operands = [const(1, I32), x]
    check("SPLIT", operands, new_options("SplitOptions", numSplits=3), dtype, outputs=3)


@pytest.mark.parametrize("dtype", DTYPES)
def test_pack(dtype):
    parts = [qrand(RNG, dtype, 3, 4) for _ in range(3)]
    check("PACK", parts, new_options("PackOptions", valuesCount=3, axis=1), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_unpack(dtype):
    x = qrand(RNG, dtype, 3, 4, 2)
    check("UNPACK", [x], new_options("UnpackOptions", num=4, axis=1), dtype, outputs=4)


@pytest.mark.parametrize("dtype", DTYPES)
def test_pad_fills_with_the_zero_point(dtype):
    x = qrand(RNG, dtype, 2, 3, 4)
    paddings = const([[0, 1], [2, 0], [1, 3]], I32)
    check("PAD", [x, paddings], new_options("PadOptions"), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_padv2_uses_the_given_quantized_value(dtype):
    x = qrand(RNG, dtype, 2, 3)
    value = const(np.array([-3 if dtype != "UINT8" else 200], NUMPY[dtype]))
    check("PADV2", [x, const([[1, 1], [0, 2]], I32), value], new_options("PadV2Options"), dtype)
