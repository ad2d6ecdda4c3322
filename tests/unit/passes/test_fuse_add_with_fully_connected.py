"""fuse_add_with_fully_connected (optimization.md §5.5), float32 and the int16 variant."""

import numpy as np
import pytest

from support.litert import BUILTIN, run_model
from support.passes import (
    Net,
    assert_same_outputs,
    fc_options,
    kinds,
    new_options,
    op_named,
    optimized,
    origin_names,
    qparam,
)

PASS = "fuse_add_with_fully_connected"
UNFUSED = ["FULLY_CONNECTED", "ADD"]


def fc_add_net(
    *,
    addend_shape=(4,),
    bias="const",
    bias_shape=(4,),
    swap=False,
    add_act=0,
    fc_act=0,
    keep=False,
    in_shape=(3, 5),
    const_w=True,
    const_addend=True,
    second_use=False,
    fc_is_output=False,
):
    net = Net()
    x = net.input("x", in_shape)
    w = net.random("w", [4, 5]) if const_w else net.input("w", [4, 5])
    b = {"const": lambda: net.random("b", bias_shape), "input": lambda: net.input("b", [4])}
    fc = net.op(
        "FULLY_CONNECTED", [x, w, b[bias]() if bias else None], fc_options(fc_act, keep), name="fc"
    )
    addend = net.random("a", addend_shape) if const_addend else net.input("a", addend_shape)
    net.outputs(net.binary("ADD", fc, addend, swap=swap, act=add_act, name="add"))
    if second_use:
        net.outputs(net.op("RELU", [fc], name="other"))
    if fc_is_output:
        net.outputs(fc)
    return net.model()


@pytest.mark.parametrize("swap", [False, True])
@pytest.mark.parametrize("add_act", [0, 1, 2, 3])
@pytest.mark.parametrize(
    "variant",
    [
        {},
        {"bias": None},
        {"bias_shape": (1, 4), "addend_shape": (1, 4)},
        {"keep": True, "in_shape": (2, 3, 5), "addend_shape": (1, 1, 4)},
    ],
)
def test_the_add_becomes_the_fc_bias(swap, add_act, variant):
    model = fc_add_net(swap=swap, add_act=add_act, **variant)
    after = optimized(model, PASS)
    assert kinds(after) == ["FULLY_CONNECTED"]
    fc = op_named(after, "FULLY_CONNECTED")
    assert fc.options.fusedActivationFunction == add_act
    assert fc.options.keepNumDims == variant.get("keep", False)
    assert origin_names(after, fc) == {"fc", "add"}
    assert after.main.outputs[0].name == "add"
    assert after.main.outputs[0].shape == model.main.outputs[0].shape
    # exact=False: (x·W + b) + a becomes x·W + (a + b), another float rounding order; the
    # values here stay within the default 1e-5.
    assert_same_outputs(model, after)
    assert kinds(model) == UNFUSED, "the input model is untouched"


def test_bias_is_addend_plus_old_bias():
    model = fc_add_net(bias_shape=(1, 4), addend_shape=(1, 4))
    after = optimized(model, PASS)
    old = model.main.operators[0].inputs[2].data
    addend = model.main.operators[1].inputs[1].data
    bias = op_named(after, "FULLY_CONNECTED").inputs[2]
    assert bias.shape == (4,)
    assert bias.dtype == "FLOAT32"
    np.testing.assert_array_equal(bias.data, (addend + old).reshape(-1))


@pytest.mark.parametrize(
    "variant",
    [
        {"fc_act": 1},  # the FC's own activation would run before the Add
        {"add_act": 4},  # TANH: LiteRT's FC kernel refuses it
        {"addend_shape": (1, 1, 4)},  # rank 3 on a rank-2 result: the Add broadcasts
        {"addend_shape": (3, 4)},  # not per output channel
        {"addend_shape": (1,)},  # broadcast scalar-like, not [N]
        {"addend_shape": ()},  # rank 0 (reference TODO)
        {"const_w": False},
        {"bias": "input"},  # a bias that is a feature map
        {"const_addend": False},
        {"second_use": True},
        {"fc_is_output": True},
    ],
)
def test_near_misses_stay(variant):
    model = fc_add_net(**variant)
    after = optimized(model, PASS)
    assert kinds(after) == kinds(model)
    assert after.main.operators[1].opcode == "ADD"


# -- int16 (16x8: int16 activations, int8 symmetric weights, int64 bias) ---------------------


def int16_net(
    *,
    seed=0,
    rows=64,
    units=8,
    depth=16,
    add_act=0,
    bias=True,
    weight_scales=None,
    addend_scales=1,
    addend_zp=0,
    add_zp=0,
    bias_dtype=np.int64,
    input_quant=True,
):
    """FC(int16 x, int8 W per channel, int64 b) -> Add(int16 const) with scales chosen so
    that no intermediate result saturates; returns (model, input, exact result in output
    steps)."""
    rng = np.random.default_rng(seed)
    s_in = np.float32(1 / 32767)
    xq = rng.integers(-32767, 32768, (rows, depth)).astype(np.int16)
    s_w = rng.uniform(0.5, 1.0, weight_scales or units).astype(np.float32) / 127
    wq = rng.integers(-127, 128, (units, depth))
    s_b = (s_in * s_w).astype(np.float32)
    bq = rng.integers(-200000, 200000, units)
    fc_real = (xq * np.float64(s_in)) @ (wq * np.broadcast_to(s_w, units)[:, None]).T
    if bias:
        fc_real += bq * np.broadcast_to(s_b, units).astype(np.float64)
    s_fc = np.abs(fc_real).max() / 32000
    s_a = np.full(addend_scales, 2 / 32767, np.float32)
    aq = rng.integers(-32767, 32768, (1, units))
    real = fc_real + aq * np.float64(s_a[0])
    s_out = np.float32(np.abs(real).max() / 32000)

    net = Net()
    x = net.input("x", [rows, depth], "INT16")
    x.quant = qparam([s_in]) if input_quant else None
    w = net.const("w", wq, np.int8)
    w.quant = qparam(s_w)
    b = net.const("b", bq, bias_dtype) if bias else None
    if b is not None:
        b.quant = qparam(s_b)
    fc = net.op("FULLY_CONNECTED", [x, w, b], fc_options(), outputs=["INT16"], name="fc")
    fc.quant = qparam([s_fc])
    a = net.const("a", aq, np.int16)
    a.quant = qparam(s_a, np.full(addend_scales, addend_zp))
    options = new_options("AddOptions", fusedActivationFunction=add_act, potScaleInt16=False)
    add = net.op("ADD", [fc, a], options, outputs=["INT16"], name="add")
    add.quant = qparam([s_out], [add_zp])
    net.outputs(add)
    return net.model(), xq, real / np.float64(s_out)


@pytest.mark.parametrize("add_act", [0, 1])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("weight_scales", [None, 1])
def test_int16_fuses_within_one_step(add_act, bias, weight_scales):
    """The unfused graph rounds twice (the FC result to its own int16 grid, then the Add's
    sum); the fused one rounds once. Both are roundings of the same real value, so they can
    differ by one step, never more; the fused result is the correctly rounded one (within half
    a step of the exact value, plus the int64 bias rounding and LiteRT's fixed-point
    multiplier)."""
    model, xq, exact = int16_net(add_act=add_act, bias=bias, weight_scales=weight_scales)
    after = optimized(model, PASS)
    assert kinds(after) == ["FULLY_CONNECTED"]
    fc = op_named(after, "FULLY_CONNECTED")
    assert fc.options.fusedActivationFunction == add_act
    assert origin_names(after, fc) == {"fc", "add"}
    out = after.main.outputs[0]
    assert (out.name, out.dtype) == ("add", "INT16")
    add_out = model.main.operators[1].outputs[0]
    np.testing.assert_array_equal(out.quant.scale, add_out.quant.scale)
    np.testing.assert_array_equal(out.quant.zero_point, [0])
    bias_t = fc.inputs[2]
    assert bias_t.dtype == "INT64"
    s_in, s_w = model.main.inputs[0].quant.scale, model.main.operators[0].inputs[1].quant.scale
    np.testing.assert_array_equal(bias_t.quant.scale, (s_in * s_w).astype(np.float32))
    np.testing.assert_array_equal(bias_t.quant.zero_point, np.zeros(s_w.size))

    want = run_model(model, [xq], BUILTIN)[0].astype(np.int64)
    got = run_model(after, [xq], BUILTIN)[0].astype(np.int64)
    assert np.abs(got - want).max() <= 1
    if add_act:
        exact = np.maximum(exact, 0)
    assert np.abs(got - exact).max() <= 0.51


def int16_bias_net(addend, bias=None, s_w=1.0):
    """x(s=1) -> FC(W s=s_w, bias s=1) -> Add(addend s=1) -> s=2: for checking the bias."""
    units = len(addend)
    net = Net()
    x = net.input("x", [1, 4], "INT16")
    x.quant = qparam([1.0])
    w = net.const("w", np.zeros((units, 4)), np.int8)
    w.quant = qparam(np.full(units, s_w))
    b = None if bias is None else net.const("b", bias, np.int64)
    if b is not None:
        b.quant = qparam(np.ones(units))
    fc = net.op("FULLY_CONNECTED", [x, w, b], fc_options(), outputs=["INT16"], name="fc")
    fc.quant = qparam([1.0])
    a = net.const("a", [addend], np.int16)
    a.quant = qparam(np.ones(units))
    add = net.op("ADD", [fc, a], new_options("AddOptions"), outputs=["INT16"], name="add")
    add.quant = qparam([2.0])
    net.outputs(add)
    return net.model()


def fused_bias(model):
    after = optimized(model, PASS)
    assert kinds(after) == ["FULLY_CONNECTED"]
    return after.main.operators[0].inputs[2].data.tolist()


def test_int16_bias_is_the_requantized_sum():
    # the reference's unit test: all scales 1, bias i, addend i -> 2i
    units = 16
    assert fused_bias(int16_bias_net(list(range(units)), list(range(units)))) == [
        2 * i for i in range(units)
    ]


def test_int16_bias_rounds_half_away_from_zero():
    # bias scale s_in·s_w = 2: the sums ±1, ±3, ±5 are ±0.5, ±1.5, ±2.5 steps
    addend = [1, -1, 3, -3, 5, -5]
    assert fused_bias(int16_bias_net(addend, s_w=2.0)) == [1, -1, 2, -2, 3, -3]


@pytest.mark.parametrize(
    "variant",
    [
        {"addend_zp": 3},  # the addend must be symmetric
        {"add_zp": 1},  # the FC result takes the Add's qparam with zero point 0
        {"addend_scales": 3},  # neither one scale nor N
        {"bias_dtype": np.int32},  # int16 FCs carry INT64 biases
        {"input_quant": False},  # no input scale: the bias scale is unknown
    ],
)
def test_int16_near_misses_stay(variant):
    model, _, _ = int16_net(**variant)
    after = optimized(model, PASS)
    assert kinds(after) == UNFUSED
