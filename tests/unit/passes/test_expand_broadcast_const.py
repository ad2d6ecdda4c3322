"""expand_broadcast_const (reference ExpandBroadcastConstPass, without its layout bug)."""

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

PASS = "expand_broadcast_const"


def binary_net(opcode, const_shape, *, x_shape=(2, 3, 4), const_first=False, dtype=np.float32):
    net = Net()
    x = net.input("x", x_shape, "FLOAT32" if dtype == np.float32 else "INT32")
    c = net.const("c", np.random.default_rng(6).uniform(1, 2, const_shape).astype(dtype))
    net.outputs(net.binary(opcode, x, c, swap=const_first, act=1, name="op"))
    return net.model()


@pytest.mark.parametrize(
    ("opcode", "const_first"),
    [("ADD", False), ("ADD", True), ("MUL", False), ("DIV", True), ("DIV", False)],
)
def test_depth_broadcast_constant_is_expanded(opcode, const_first):
    model = binary_net(opcode, (2, 3, 1), const_first=const_first)
    after = optimized(model, PASS)
    assert kinds(after) == [opcode]
    op = op_named(after, opcode)
    expanded = op.inputs[0 if const_first else 1]
    assert expanded.shape == (2, 3, 4)
    original = model.main.operators[0].inputs[0 if const_first else 1].data
    np.testing.assert_array_equal(expanded.data, np.repeat(original, 4, axis=2))
    assert op.options.fusedActivationFunction == 1
    assert origin_names(after, op) == {"op"}
    assert_same_outputs(model, after, rtol=0, atol=0)


@pytest.mark.parametrize(
    "variant",
    [
        {"const_shape": (1, 3, 1)},  # also broadcasts along axis 0
        {"const_shape": (2, 1, 4)},  # not the last axis
        {"const_shape": (2, 3, 4)},  # nothing to expand
        {"const_shape": (3, 1)},  # another rank
        {"const_shape": (2, 3, 1), "x_shape": (2, 3, 1)},
        {"const_shape": (2, 3, 1), "dtype": np.int32},
    ],
)
def test_near_misses_stay(variant):
    model = binary_net("MUL", **variant)
    after = optimized(model, PASS)
    assert after.main.operators[0].inputs[1] is not None
    assert after.main.operators[0].inputs[1].shape == model.main.operators[0].inputs[1].shape
