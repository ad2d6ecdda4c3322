"""fuse_prelu (optimization.md §5.14)."""

import numpy as np
import pytest

from support.passes import (
    Net,
    assert_optimized,
    assert_same_outputs,
    kinds,
    op_named,
    optimized,
    origin_names,
)

PASS = "fuse_prelu"
PATTERN = ["RELU", "ABS", "SUB", "MUL", "MUL", "ADD"]


def prelu_net(
    *,
    swap_add=False,
    swap_alpha=False,
    swap_half=False,
    half=0.5,
    alpha_shape=(3,),
    sub_swapped=False,
    act_on=None,
    alpha_input=False,
    other_abs=False,
):
    net = Net()
    x = net.input("x", [1, 4, 4, 3])
    acts = {name: int(name == act_on) for name in ("sub", "mul_alpha", "mul_half", "add")}
    relu = net.op("RELU", [x], name="relu")
    abs_in = net.input("y", [1, 4, 4, 3]) if other_abs else x
    abs_ = net.op("ABS", [abs_in], name="abs")
    sub = net.binary("SUB", x, abs_, swap=sub_swapped, act=acts["sub"], name="sub")
    alpha = (
        net.input("alpha", alpha_shape)
        if alpha_input
        else net.random("alpha", alpha_shape, 0.1, 0.9)
    )
    m1 = net.binary("MUL", sub, alpha, swap=swap_alpha, act=acts["mul_alpha"], name="mul_alpha")
    h = net.const("half", np.float32(half))
    m2 = net.binary("MUL", m1, h, swap=swap_half, act=acts["mul_half"], name="mul_half")
    net.outputs(net.binary("ADD", relu, m2, swap=swap_add, act=acts["add"], name="add"))
    return net.model()


@pytest.mark.parametrize("swap_add", [False, True])
@pytest.mark.parametrize("swap_alpha", [False, True])
@pytest.mark.parametrize("swap_half", [False, True])
def test_fuses_into_prelu(swap_add, swap_alpha, swap_half):
    model = prelu_net(swap_add=swap_add, swap_alpha=swap_alpha, swap_half=swap_half)
    after = optimized(model, PASS)
    assert kinds(after) == ["PRELU"]
    prelu = op_named(after, "PRELU")
    assert prelu.inputs[0] is after.main.inputs[0]
    assert origin_names(after, prelu) == {"relu", "abs", "sub", "mul_alpha", "mul_half", "add"}
    assert after.main.outputs[0].name == "add"
    assert_same_outputs(model, after)


@pytest.mark.parametrize("alpha_shape", [(), (1, 1, 3), (1, 4, 4, 3)])
def test_alpha_shapes_that_broadcast_to_x(alpha_shape):
    model = prelu_net(alpha_shape=alpha_shape)
    assert_optimized(model, PASS, expect=["PRELU"])


@pytest.mark.parametrize(
    "variant",
    [
        {"half": 0.25},
        {"sub_swapped": True},
        {"act_on": "sub"},
        {"act_on": "mul_alpha"},
        {"act_on": "mul_half"},
        {"act_on": "add"},
        {"other_abs": True},
        {"alpha_shape": (2, 1, 4, 4, 3)},  # alpha would widen the result
    ],
    ids=str,
)
def test_near_misses_stay(variant):
    assert_optimized(prelu_net(**variant), PASS, expect=PATTERN, any_order=True)


def test_non_constant_alpha_stays():
    model = prelu_net(alpha_input=True)
    assert sorted(kinds(optimized(model, PASS))) == sorted(PATTERN)
