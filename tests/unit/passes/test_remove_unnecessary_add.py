"""remove_unnecessary_add (optimization.md §5.18)."""

import numpy as np
import pytest

from support.passes import Net, assert_optimized, kinds, new_options, optimized

PASS = "remove_unnecessary_add"
DENORMAL = np.float32(1e-40)


def add_net(value, *, shape=(2, 3, 4), const_first=False, act=0, dtype="FLOAT32"):
    net = Net()
    x = net.input("x", shape, dtype)
    c = net.const("zero", value, np.float32 if dtype == "FLOAT32" else np.int32)
    relu = net.op("RELU" if dtype == "FLOAT32" else "NEG", [x], name="pre")
    add = net.binary("ADD", relu, c, swap=const_first, act=act, name="add")
    net.outputs(net.op("NEG", [add], name="post"))
    return net.model()


@pytest.mark.parametrize(
    ("value", "const_first"),
    [
        (np.zeros(4), False),
        (np.zeros((1, 1, 4)), True),
        (np.zeros(()), False),
        (np.full((3, 1), -0.0), True),
        (np.array([0.0, DENORMAL, -DENORMAL, 0.0]), False),
    ],
)
def test_add_of_zeros_is_removed(value, const_first):
    model = add_net(np.asarray(value, np.float32), const_first=const_first)
    assert_optimized(model, PASS, expect=["RELU", "NEG"])


@pytest.mark.parametrize(
    "variant",
    [
        {"value": np.array([0, 0, 1e-37, 0], np.float32)},  # above FLT_MIN
        {"value": np.array([0, np.nan, 0, 0], np.float32)},  # NaN is not zero
        {"value": np.zeros((2, 2, 3, 4), np.float32)},  # broadcasts x to a larger shape
        {"value": np.zeros((2, 1, 1), np.float32), "shape": (1, 3, 4)},  # broadcasts x's dim 0
        {"value": np.zeros(4, np.float32), "act": 1},  # RELU: relu(x + 0) != x
        {"value": np.zeros(4, np.int32), "dtype": "INT32"},
    ],
)
def test_near_misses_stay(variant):
    model = add_net(**variant)
    assert kinds(optimized(model, PASS)) == kinds(model)


def test_two_non_constant_operands_stay():
    net = Net()
    x = net.input("x", [4])
    zero = net.input("zero", [4])
    net.outputs(net.op("ADD", [x, zero], new_options("AddOptions")))
    assert kinds(optimized(net.model(), PASS)) == ["ADD"]
