"""remove_redundant_quantize (reference RemoveRedundantQuantizePass)."""

import numpy as np
import pytest

from support.passes import (
    Net,
    kinds,
    new_options,
    op_named,
    optimized,
    origin_names,
    qparam,
    run_reference,
)

PASS = "remove_redundant_quantize"


def quantize(net, x, dtype, scale, zero_point, name):
    out = net.op("QUANTIZE", [x], outputs=[dtype], name=name)
    out.quant = qparam(scale, zero_point)
    return out


def dequantized(net, q):
    return net.op("DEQUANTIZE", [q], new_options("DequantizeOptions"), name="dq")


def test_subsequent_quantizes_keep_only_the_last():
    """Quantize(Quantize(x)) reads x directly: the inner (coarser) rounding is skipped, so the
    result is that of the last Quantize alone."""
    net = Net()
    x = net.input("x", [4, 6])
    q1 = quantize(net, x, "UINT8", 0.05, 128, "q1")
    net.outputs(dequantized(net, quantize(net, q1, "INT8", 0.02, 0, "q2")))
    model = net.model()
    after = optimized(model, PASS)
    assert kinds(after) == ["QUANTIZE", "DEQUANTIZE"]
    new = op_named(after, "QUANTIZE")
    assert new.inputs[0] is after.main.inputs[0]
    assert origin_names(after, new) == {"q2"}

    single = Net()
    y = single.input("x", [4, 6])
    single.outputs(dequantized(single, quantize(single, y, "INT8", 0.02, 0, "q")))
    inputs = [np.random.default_rng(5).uniform(-2, 2, (4, 6)).astype(np.float32)]
    got = run_reference(after, inputs)[0]
    np.testing.assert_array_equal(got, run_reference(single.model(), inputs)[0])
    assert not np.array_equal(got, run_reference(model, inputs)[0])


def test_chain_collapses_in_one_run_and_a_shared_inner_quantize_stays():
    net = Net()
    x = net.input("x", [8])
    q1 = quantize(net, x, "UINT8", 0.1, 128, "q1")
    q2 = quantize(net, q1, "INT8", 0.05, 0, "q2")
    q3 = quantize(net, q2, "INT8", 0.02, 3, "q3")
    net.outputs(dequantized(net, q3), q1)
    after = optimized(net.model(), PASS)
    assert sorted(kinds(after)) == ["DEQUANTIZE", "QUANTIZE", "QUANTIZE"]
    last = after.main.operators[-1].inputs[0]
    producer = next(op for op in after.main.operators if last in op.outputs)
    assert producer.inputs[0] is after.main.inputs[0]
    assert origin_names(after, producer) == {"q3"}


def test_quantize_to_the_same_parameters_is_removed():
    net = Net()
    x = net.input("x", [2, 5], "INT8")
    x.quant = qparam(0.1, -3)
    net.outputs(dequantized(net, quantize(net, x, "INT8", 0.1, -3, "same")))
    model = net.model()
    after = optimized(model, PASS)
    assert kinds(after) == ["DEQUANTIZE"]
    inputs = [np.arange(-5, 5, dtype=np.int8).reshape(2, 5) * 12]
    np.testing.assert_array_equal(run_reference(after, inputs)[0], run_reference(model, inputs)[0])


@pytest.mark.parametrize(
    ("source", "source_q", "target_q"),
    [
        ("INT8", (0.1, -3), (0.2, -3)),  # another scale
        ("INT8", (0.1, -3), (0.1, 0)),  # another zero point
        ("UINT8", (0.1, 100), (0.1, 100)),  # another type
        ("INT8", ([0.1, 0.1], [-3, -3]), ([0.1, 0.1], [-3, -3])),  # per channel
    ],
)
def test_other_parameters_keep_the_quantize(source, source_q, target_q):
    net = Net()
    x = net.input("x", [2, 5], source)
    x.quant = qparam(*source_q)
    net.outputs(quantize(net, x, "INT8", *target_q, "q"))
    assert kinds(optimized(net.model(), PASS)) == ["QUANTIZE"]
