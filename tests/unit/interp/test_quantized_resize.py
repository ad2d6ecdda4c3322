"""Quantized RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR against LiteRT's reference kernels."""

from __future__ import annotations

import numpy as np
import pytest

from one_cmds.interp import Interpreter
from one_cmds.ir import Graph, Model, Operator, QuantParam, Tensor, from_numpy
from support.litert import REFERENCE, run_model
from support.single_op import new_options

RNG = np.random.default_rng(12)

# (alignCorners, halfPixelCenters)
MODES = [(False, False), (True, False), (False, True)]
SIZES = [(7, 9), (3, 2), (1, 1), (10, 4), (5, 5)]


def resize_model(opcode, x, size, options, zero_point):
    quant = QuantParam(
        scale=np.array([0.02], np.float32), zero_point=np.array([zero_point], np.int64)
    )
    source = Tensor("input", from_numpy(x.dtype), x.shape, quant=quant)
    target = Tensor.constant("size", np.array(size, np.int32))
    out = Tensor("output", from_numpy(x.dtype), (), quant=quant)
    graph = Graph("main", [source], [out], [Operator(opcode, [source, target], [out], options)])
    graph.tensors = [source, target, out]
    return Model(graphs=[graph])


def values(dtype, shape):
    info = np.iinfo(dtype)
    return RNG.integers(info.min, info.max + 1, shape).astype(dtype)


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16"])
@pytest.mark.parametrize(("align", "half"), MODES)
@pytest.mark.parametrize("opcode", ["RESIZE_BILINEAR", "RESIZE_NEAREST_NEIGHBOR"])
def test_resize(opcode, dtype, align, half):
    """Exact: every output size, in both directions, against LiteRT."""
    name = (
        "ResizeBilinearOptions" if opcode == "RESIZE_BILINEAR" else "ResizeNearestNeighborOptions"
    )
    options = new_options(name, alignCorners=align, halfPixelCenters=half)
    zero_point = {"uint8": 128, "int8": -3, "int16": 0}[dtype]
    x = values(dtype, (2, 4, 5, 3))
    for size in SIZES:
        model = resize_model(opcode, x, size, options, zero_point)
        (expected,) = run_model(model, [x], REFERENCE)
        (got,) = Interpreter(model).run([x])
        assert got.dtype == expected.dtype and got.shape == expected.shape
        np.testing.assert_array_equal(got, expected, err_msg=f"size {size}")
