"""remove_quantdequant (optimization.md §5.16): changes results on purpose."""

import numpy as np

from support.passes import Net, kinds, new_options, optimized, qparam, run_reference

PASS = "remove_quantdequant"


def quantized(t, scale, zero_point):
    t.quant = qparam(scale, zero_point)
    return t


def q_dq(net, x, dtype="UINT8", name="q"):
    q = quantized(
        net.op("QUANTIZE", [x], outputs=[dtype], name=name), 0.25, 128 if dtype == "UINT8" else 0
    )
    return q, net.op("DEQUANTIZE", [q], new_options("DequantizeOptions"), name=f"{name}_dq")


def test_pair_is_replaced_by_the_float_input():
    net = Net()
    x = net.input("x", [4, 5])
    _, dq = q_dq(net, x)
    net.outputs(net.op("RELU", [dq], name="relu"))
    model = net.model()
    after = optimized(model, PASS)
    assert kinds(after) == ["RELU"]
    inputs = [np.random.default_rng(3).standard_normal((4, 5)).astype(np.float32)]
    got = run_reference(after, inputs)[0]
    np.testing.assert_array_equal(got, np.maximum(inputs[0], 0))
    assert not np.array_equal(run_reference(model, inputs)[0], got)


def test_quantize_with_another_user_stays_for_it():
    net = Net()
    x = net.input("x", [4])
    q, dq = q_dq(net, x)
    net.outputs(dq, q)
    after = optimized(net.model(), PASS)
    assert kinds(after) == ["QUANTIZE"]
    assert after.main.outputs[0] is after.main.inputs[0]


def test_near_misses_stay():
    net = Net()
    x = quantized(net.input("x", [4], "INT8"), 0.5, 0)
    _, requantized = q_dq(net, x, dtype="INT8", name="requant")  # x is int8: the types differ
    weights = quantized(net.const("w", [1, 2, 3, 4], np.int8), 0.5, 0)
    dq_const = net.op("DEQUANTIZE", [weights], name="dq_const")
    net.outputs(requantized, net.op("ADD", [requantized, dq_const], new_options("AddOptions")))
    model = net.model()
    after = optimized(model, PASS)
    assert kinds(after) == kinds(model)
