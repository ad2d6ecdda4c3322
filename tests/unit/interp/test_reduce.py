"""Reductions (MEAN, SUM, REDUCE_MAX/MIN/PROD/ANY) against LiteRT."""

import numpy as np
import pytest

from one_cmds.interp import Interpreter, InterpreterError
from one_cmds.ir import QuantParam
from support.litert import BUILTIN, run_model
from support.single_op import (
    TYPE_NAMES,
    check_against_litert,
    const,
    new_options,
    op_model,
    randoms,
)

RNG = np.random.default_rng(3)
rand = randoms(3)

AXES = [
    ((2, 3, 4), [1]),
    ((2, 3, 4), [-1]),
    ((2, 3, 4), [0, 2]),
    ((2, 3, 4), [2, -1, 2]),  # repeated axes
    ((2, 3, 4), [0, 1, 2]),  # every axis: a scalar without keep_dims
    ((1, 5, 5, 3), [1, 2]),  # global average pooling
    ((6,), 0),  # scalar axis
    ((3, 4), []),  # no axis: nothing reduced
]


def reduce_check(opcode, x, axes, keep_dims, dtype):
    return check_against_litert(
        opcode,
        [x, const(axes, np.int32)],
        new_options("ReducerOptions", keepDims=keep_dims),
        outputs=[TYPE_NAMES[dtype]],
    )


@pytest.mark.parametrize(("shape", "axes"), AXES)
@pytest.mark.parametrize("keep_dims", [False, True])
@pytest.mark.parametrize("opcode", ["MEAN", "SUM", "REDUCE_MAX", "REDUCE_MIN", "REDUCE_PROD"])
def test_float_reductions(opcode, shape, axes, keep_dims):
    reduce_check(opcode, rand(*shape), axes, keep_dims, np.float32)


@pytest.mark.parametrize(("shape", "axes"), AXES)
@pytest.mark.parametrize("keep_dims", [False, True])
@pytest.mark.parametrize(
    ("opcode", "dtype"),
    [
        ("MEAN", np.int32),
        ("MEAN", np.int64),
        ("SUM", np.int32),
        ("SUM", np.int64),
        ("REDUCE_MAX", np.int32),
        ("REDUCE_MAX", np.int8),
        ("REDUCE_MIN", np.int64),
        ("REDUCE_MIN", np.uint8),
        ("REDUCE_PROD", np.int32),
        ("REDUCE_PROD", np.int64),
    ],
)
def test_integer_reductions(opcode, dtype, shape, axes, keep_dims):
    x = (
        rand(*shape, dtype=dtype)
        if dtype != np.uint8
        else RNG.integers(0, 255, shape).astype(dtype)
    )
    if opcode == "REDUCE_PROD":
        x = (x % 3).astype(dtype)
    reduce_check(opcode, x, axes, keep_dims, dtype)


def test_integer_mean_truncates_toward_zero():
    x = np.array([[-7, 0, 0], [5, 1, 0], [-2, -2, -1]], np.int32)
    (out,) = reduce_check("MEAN", x, [1], False, np.int32)
    assert out.tolist() == [-2, 2, -1]


@pytest.mark.parametrize(("shape", "axes"), AXES)
@pytest.mark.parametrize("keep_dims", [False, True])
def test_reduce_any(shape, axes, keep_dims):
    x = RNG.random(shape) < 0.2
    reduce_check("REDUCE_ANY", x, axes, keep_dims, np.bool_)


@pytest.mark.parametrize(
    ("shape", "axes"),
    [
        ((8, 64, 64, 16), [1, 2]),
        ((1000, 64), [0]),
        ((16, 32, 40), [0, 2]),
        ((64, 100), [0, 1]),
        ((3000,), [0]),
    ],
)
@pytest.mark.parametrize("opcode", ["MEAN", "SUM"])
def test_float_mean_and_sum_are_bit_exact_with_the_builtin_kernel(opcode, shape, axes):
    """Sequential float32 accumulation reproduces LiteRT's builtin kernel bit for bit (MEAN
    over trailing axes only is the exception: LiteRT sums in SIMD lanes there)."""
    x = (RNG.standard_normal(shape) * 3 + 1).astype(np.float32)
    model = op_model(opcode, [x, const(axes, np.int32)], new_options("ReducerOptions"))
    (expected,) = run_model(model, [x], BUILTIN)
    (got,) = Interpreter(model).run([x])
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize(("shape", "axes"), [((64, 1000), [1]), ((2, 3, 300), [2])])
def test_float_mean_over_trailing_axes_is_close(shape, axes):
    x = (RNG.standard_normal(shape) * 3 + 1).astype(np.float32)
    reduce_check("MEAN", x, axes, False, np.float32)


def test_quantized_mean_needs_output_qparams():
    x = rand(2, 3, dtype=np.int8)
    model = op_model(
        "MEAN", [x, const([1], np.int32)], new_options("ReducerOptions"), outputs=["INT8"]
    )
    model.main.inputs[0].quant = QuantParam(
        scale=np.array([0.5], np.float32), zero_point=np.array([0], np.int64)
    )
    with pytest.raises(InterpreterError, match="needs quantization parameters on 'output0'"):
        Interpreter(model).run([x])
