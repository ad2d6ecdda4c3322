"""remove_fakequant (optimization.md §5.16): changes results on purpose."""

import numpy as np

from support.passes import Net, kinds, new_options, optimized, run_reference

PASS = "remove_fakequant"


def fake_quant(net, x, name):
    options = new_options("FakeQuantOptions", min=-1.0, max=1.0, numBits=4, narrowRange=False)
    return net.op("FAKE_QUANT", [x], options, name=name)


def test_fake_quant_is_replaced_by_its_input():
    net = Net()
    x = net.input("x", [2, 8])
    relu = net.op("RELU", [x], name="relu")
    net.outputs(net.op("NEG", [fake_quant(net, relu, "fq")], name="neg"))
    model = net.model()
    after = optimized(model, PASS)
    assert kinds(after) == ["RELU", "NEG"]
    inputs = [np.linspace(-2, 2, 16, dtype=np.float32).reshape(2, 8)]
    got = run_reference(after, inputs)[0]
    np.testing.assert_array_equal(got, -np.maximum(inputs[0], 0))
    before = run_reference(model, inputs)[0]
    assert not np.array_equal(before, got), "the quantization noise is gone"


def test_chain_at_the_graph_boundary_leaves_the_input_as_output():
    net = Net()
    x = net.input("x", [3])
    net.outputs(fake_quant(net, fake_quant(net, x, "fq1"), "fq2"))
    after = optimized(net.model(), PASS)
    assert kinds(after) == []
    assert after.main.outputs[0] is after.main.inputs[0]
