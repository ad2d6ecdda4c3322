"""decompose_softmax (reference DecomposeSoftmaxPass)."""

import numpy as np
import pytest

from support.passes import Net, assert_same_outputs, kinds, new_options, optimized, origin_names

PASS = "decompose_softmax"
PLAIN = ["REDUCE_MAX", "SUB", "EXP", "SUM", "DIV"]


def softmax_net(beta=1.0, shape=(2, 3, 5), dtype="FLOAT32"):
    net = Net()
    x = net.input("x", shape, dtype)
    net.outputs(
        net.op(
            "SOFTMAX",
            [x],
            new_options("SoftmaxOptions", beta=beta),
            name="softmax",
            outputs=[dtype],
        )
    )
    return net.model()


@pytest.mark.parametrize("shape", [(7,), (2, 3, 5), (1, 2, 3, 4)])
def test_softmax_decomposes(shape):
    model = softmax_net(shape=shape)
    after = optimized(model, PASS)
    assert kinds(after) == PLAIN
    peak, sub, exp, total, div = after.main.operators
    x = after.main.inputs[0]
    assert peak.inputs[0] is x and sub.inputs == [x, peak.outputs[0]]
    assert peak.inputs[1].data == -1 and peak.inputs[1].dtype == "INT32"
    assert peak.options.keepDims and total.options.keepDims
    assert exp.inputs[0] is sub.outputs[0] and total.inputs[0] is exp.outputs[0]
    assert div.inputs == [exp.outputs[0], total.outputs[0]]
    assert div.outputs[0].name == "softmax"
    for op in after.main.operators:
        assert origin_names(after, op) == {"softmax"}
    assert_same_outputs(model, after)


@pytest.mark.parametrize("beta", [0.5, 2.0, 1.0 + 2e-5])
def test_beta_adds_a_mul(beta):
    model = softmax_net(beta)
    after = optimized(model, PASS)
    assert kinds(after) == ["REDUCE_MAX", "SUB", "MUL", "EXP", "SUM", "DIV"]
    mul = after.main.operators[2]
    assert mul.inputs[1].shape == () and mul.inputs[1].data == np.float32(beta)
    assert origin_names(after, mul) == {"softmax"}
    assert_same_outputs(model, after)


def test_beta_within_1e_5_of_one_needs_no_mul():
    model = softmax_net(1.0 + 5e-6)
    after = optimized(model, PASS)
    assert kinds(after) == PLAIN


def test_non_float_softmax_stays():
    model = softmax_net(dtype="INT8")
    assert kinds(optimized(model, PASS)) == ["SOFTMAX"]
