"""make_batchnorm_gamma_positive (optimization.md §5.25): changes results on purpose."""

import numpy as np
import pytest

from one_cmds.passes import load_passes
from support.litert import random_inputs
from support.passes import Net, batchnorm, kinds, op_named, optimized, origin_names, run_reference

PASS = "make_batchnorm_gamma_positive"
GAMMA = [-0.5, 1.5, -2.0, 0.25]


def bn_net(gamma=GAMMA, *, gamma_shape=(4,), add_act=1, mul_act=0, swap=False, second_use=False):
    net = Net()
    x = net.input("x", [1, 3, 3, 4])
    g = net.const("gamma", np.reshape(gamma, gamma_shape))
    beta = net.const("beta", [0.5, -0.5, 1.0, 0.0])
    mul, add = batchnorm(
        net, x, g, beta, swap_mul=swap, swap_add=swap, mul_act=mul_act, add_act=add_act
    )
    net.outputs(add)
    if second_use:
        net.outputs(net.op("NEG", [mul], name="other"))
    return net.model()


def test_registered_as_changing_results():
    assert load_passes()[PASS].changes_results


@pytest.mark.parametrize("swap", [False, True])
def test_negative_gammas_become_1e_10(swap):
    model = bn_net(swap=swap)
    after = optimized(model, PASS)
    assert kinds(after) == ["MUL", "ADD"]
    mul = op_named(after, "MUL")
    gamma = next(t for t in mul.inputs if t.data is not None).data
    assert gamma.dtype == np.float32
    np.testing.assert_array_equal(gamma, np.float32([1e-10, 1.5, 1e-10, 0.25]))
    assert origin_names(after, mul) == {"mul"}
    np.testing.assert_array_equal(model.main.operators[0].inputs[1 - swap].data, np.float32(GAMMA))
    # The documented result: relu(x * gamma' + beta), computed by LiteRT.
    inputs = random_inputs(model, seed=3)
    (got,) = run_reference(after, inputs)
    want = np.maximum(inputs[0] * gamma + np.float32([0.5, -0.5, 1.0, 0.0]), 0)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_positive_gammas_are_untouched():
    model = bn_net([0.5, 1.5, 0.0, 2.0])
    after = optimized(model, PASS)
    assert after.main.operators[0].inputs[1].name == "gamma"


@pytest.mark.parametrize(
    "variant",
    [
        {"add_act": 0},  # only with a RELU
        {"add_act": 3},
        {"gamma_shape": (1, 1, 1, 4)},  # rank 1 only
        {"second_use": True},
        {"mul_act": 1},
    ],
)
def test_near_misses_stay(variant):
    model = bn_net(**variant)
    after = optimized(model, PASS)
    mul = next(op for op in after.main.operators if op.opcode == "MUL")
    assert mul.inputs[1].name == "gamma"
