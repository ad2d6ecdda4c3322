"""fold_dequantize (optimization.md §5.17) and the DEQUANTIZE kernel cases it relies on."""

import numpy as np
import pytest

from one_cmds.interp import Interpreter
from one_cmds.ir import QuantParam, Tensor
from support.litert import random_inputs
from support.passes import (
    Net,
    assert_optimized,
    assert_same_outputs,
    kinds,
    new_options,
    op_named,
    optimized,
    origin_names,
    run_reference,
)

PASS = "fold_dequantize"
ADD = new_options("AddOptions")
RNG = np.random.default_rng(17)
NUMPY = {"INT8": np.int8, "UINT8": np.uint8, "INT16": np.int16, "INT32": np.int32}
NUMPY |= {"INT64": np.int64, "INT4": np.int8, "UINT4": np.uint8}
RANGES = {"INT4": (-8, 8), "UINT4": (0, 16), "INT32": (-(2**30), 2**30)}
RANGES |= {"INT64": (-(2**40), 2**40)}


def quantized_const(name, dtype, shape, scale, zero_point, dim=0):
    """A constant of ``dtype`` (INT4/UINT4 packed two to a byte, low nibble first) with its
    elements ``q`` (unpacked, int64) for the expected-value formula."""
    info = np.iinfo(NUMPY[dtype])
    low, high = RANGES.get(dtype, (info.min, info.max + 1))
    q = RNG.integers(low, high, shape)
    if dtype in ("INT4", "UINT4"):
        nibbles = np.append(q.reshape(-1), np.zeros(q.size % 2, np.int64)) & 0x0F
        t = Tensor.constant(name, (nibbles[0::2] | nibbles[1::2] << 4).astype(np.uint8), dtype)
        t.shape = tuple(shape)
    else:
        t = Tensor.constant(name, q.astype(NUMPY[dtype]))
    t.quant = QuantParam(
        scale=np.asarray(scale, np.float32),
        zero_point=np.asarray(zero_point, np.int64),
        quantized_dimension=dim,
    )
    return t, q


def formula(q, scale, zero_point, dim):
    """``float32(q − zp[c])·scale[c]``, c the index along ``dim`` (0 past the zero points)."""
    scale, zero_point = np.asarray(scale, np.float32), np.asarray(zero_point, np.int64)
    c = np.arange(q.shape[dim]) if q.ndim else np.zeros(1, int)
    c[c >= len(zero_point)] = 0
    shape = [1] * q.ndim
    if q.ndim:
        shape[dim] = -1
    zp, s = zero_point[c].reshape(shape), scale[c].reshape(shape)
    return (q - zp).astype(np.float32) * s


def dequantize_net(source, shape, *, as_output=False):
    net = Net()
    x = net.input("x", shape)
    dq = net.op("DEQUANTIZE", [source], name="dq")
    net.outputs(net.op("ADD", [x, dq], ADD, name="add"))
    if as_output:
        net.outputs(dq)
    return net.model()


def compare_with_interpreter_before(model, after):
    """LiteRT cannot run every source type: the original runs in the interpreter."""
    inputs = random_inputs(model, seed=5)
    want = Interpreter(model).run(inputs)
    got = run_reference(after, inputs)
    for w, g in zip(want, got, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=0)


CASES = [
    ("INT8", (2, 3, 4), [0.02], [3], 0),
    ("INT8", (2, 3, 4), [0.1, 0.2, 0.05], [0, 0, 0], 1),  # per channel
    ("UINT8", (4, 5), [0.5], [128], 0),
    ("INT16", (3, 4), [0.001, 0.002, 0.003, 0.004], [0, 0, 0, 0], 1),
    ("INT4", (3, 5), [0.5, 0.25, 2.0], [0, 0, 0], 0),  # odd element count
    ("INT4", (2, 2), [0.125], [0], 1),
    ("UINT4", (3, 4), [0.5], [8], 0),
    ("INT32", (2, 3), [1e-4, 2e-4, 3e-4], [0, 0, 0], 1),
    ("INT64", (4,), [3e-7], [0], 0),
    ("INT8", (3, 4), [0.1, 0.2, 0.3, 0.4], [2], 1),  # one zero point: pair 0 everywhere
    ("INT16", (), [0.25], [0], 0),  # scalar
]


@pytest.mark.parametrize(("dtype", "shape", "scale", "zero_point", "dim"), CASES)
def test_quantized_constant_folds_to_float32(dtype, shape, scale, zero_point, dim):
    source, q = quantized_const("w", dtype, shape, scale, zero_point, dim)
    model = dequantize_net(source, shape)
    after = optimized(model, PASS)
    assert kinds(after) == ["ADD"]
    assert origin_names(after, op_named(after, "ADD")) == {"add"}
    folded = after.main.operators[0].inputs[1]
    assert (folded.name, folded.dtype, folded.shape) == ("w_DQ", "FLOAT32", tuple(shape))
    np.testing.assert_array_equal(folded.data, formula(q, scale, zero_point, dim))
    compare_with_interpreter_before(model, after)


@pytest.mark.parametrize("dtype", ["INT8", "INT4"])
def test_litert_dequantizes_as_the_folded_constant(dtype):
    """The kernel the fold uses agrees with LiteRT on the types LiteRT dequantizes."""
    source, _ = quantized_const("w", dtype, (3, 5), [0.5, 0.25, 2.0], [0, 0, 0], 0)
    model = dequantize_net(source, (3, 5))
    assert_optimized(model, PASS, expect=["ADD"])


def test_float16_constant_widens_exactly():
    values = np.array([[1.5, -2.25, 65504], [6e-8, 0.1, -0.0]], np.float16)
    model = dequantize_net(Tensor.constant("h", values), (2, 3))
    after = optimized(model, PASS)
    assert kinds(after) == ["ADD"]
    folded = after.main.operators[0].inputs[1]
    assert folded.name == "h_DQ"
    np.testing.assert_array_equal(folded.data, values.astype(np.float32))
    assert_same_outputs(model, after)


def test_a_dequantize_that_is_a_graph_output_keeps_its_name():
    source, _ = quantized_const("w", "INT8", (2, 3), [0.5], [0], 0)
    model = dequantize_net(source, (2, 3), as_output=True)
    after = optimized(model, PASS)
    assert kinds(after) == ["ADD"]
    assert [t.name for t in after.main.outputs] == ["add", "dq"]
    assert after.main.outputs[1].is_constant
    assert_same_outputs(model, after)


def test_near_misses_stay():
    plain = Tensor.constant("plain", np.arange(6, dtype=np.int8).reshape(2, 3))  # no qparam
    floats = Tensor.constant("floats", np.ones((2, 3), np.float32))
    for source in (plain, floats):
        assert kinds(optimized(dequantize_net(source, (2, 3)), PASS)) == ["DEQUANTIZE", "ADD"]
    net = Net()
    x = net.input("x", (2, 3), "INT8")
    x.quant = QuantParam(scale=np.array([0.5], np.float32), zero_point=np.array([0]))
    net.outputs(net.op("DEQUANTIZE", [x], name="dq"))
    assert kinds(optimized(net.model(), PASS)) == ["DEQUANTIZE"]


# -- Dequantize(Gather(const, indices)) --------------------------------------------------------


def gather_net(*, consumer="ADD", gather_also_used=False):
    net = Net()
    params, q = quantized_const("table", "INT8", (5, 4), [0.1], [-2], 0)
    idx = net.input("idx", (3,), "INT32")
    gathered = net.op(
        "GATHER", [params, idx], new_options("GatherOptions"), outputs=["INT8"], name="gather"
    )
    gathered.quant = QuantParam(scale=np.array([0.1], np.float32), zero_point=np.array([-2]))
    dq = net.op("DEQUANTIZE", [gathered], name="dq")
    if consumer == "ADD":
        net.outputs(net.op("ADD", [dq, net.random("bias", [3, 4])], ADD, name="add"))
    else:
        fc = new_options("FullyConnectedOptions")
        net.outputs(net.op("FULLY_CONNECTED", [dq, net.random("w", [2, 4]), None], fc))
    if gather_also_used:
        net.outputs(gathered)
    return net.model(), q


def test_gather_of_quantized_params_gathers_dequantized_params():
    model, q = gather_net()
    after = optimized(model, PASS)
    assert kinds(after) == ["GATHER", "ADD"]
    gather = op_named(after, "GATHER")
    assert origin_names(after, gather) == {"gather", "dq"}
    params = gather.inputs[0]
    assert (params.name, params.dtype) == ("table_DQ", "FLOAT32")
    np.testing.assert_array_equal(params.data, formula(q, [0.1], [-2], 0))
    assert gather.outputs[0].dtype == "FLOAT32"
    inputs = [np.array([4, 0, 4], np.int32)]
    assert_same_outputs(model, after, inputs)


@pytest.mark.parametrize("variant", [{"gather_also_used": True}, {"consumer": "FULLY_CONNECTED"}])
def test_gather_near_misses_stay(variant):
    model, _ = gather_net(**variant)
    after = optimized(model, PASS)
    assert "DEQUANTIZE" in kinds(after)
    assert_same_outputs(model, after, [np.array([1, 2, 3], np.int32)])
