"""replace_sub_with_add (reference ReplaceSubWithAddPass)."""

import numpy as np
import pytest

from support.passes import (
    Net,
    assert_same_outputs,
    kinds,
    op_named,
    optimized,
    origin_names,
)

PASS = "replace_sub_with_add"


def sub_net(*, act=0, const_first=False, dtype="FLOAT32", dynamic=False):
    net = Net()
    x = net.input("x", [2, 3, 4], dtype)
    values = np.random.default_rng(4).uniform(-2, 2, (3, 1))
    c = (
        net.input("c", [3, 1], dtype)
        if dynamic
        else net.const("c", values, np.float32 if dtype == "FLOAT32" else np.int32)
    )
    net.outputs(net.binary("SUB", x, c, swap=const_first, act=act, name="sub"))
    return net.model()


@pytest.mark.parametrize("act", [0, 1, 3])
def test_sub_of_a_constant_becomes_add_of_its_negation(act):
    model = sub_net(act=act)
    after = optimized(model, PASS)
    assert kinds(after) == ["ADD"]
    add = op_named(after, "ADD")
    assert add.options.fusedActivationFunction == act
    np.testing.assert_array_equal(add.inputs[1].data, -model.main.operators[0].inputs[1].data)
    assert origin_names(after, add) == {"sub"}
    assert after.main.outputs[0].name == "sub"
    assert_same_outputs(model, after, rtol=0, atol=0)


@pytest.mark.parametrize("variant", [{"const_first": True}, {"dtype": "INT32"}, {"dynamic": True}])
def test_near_misses_stay(variant):
    model = sub_net(**variant)
    assert kinds(optimized(model, PASS)) == ["SUB"]
