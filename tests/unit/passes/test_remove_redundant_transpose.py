"""remove_redundant_transpose (optimization.md §5.9)."""

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

PASS = "remove_redundant_transpose"


def two_transposes(p_in, p_out, shape=(2, 3, 4)):
    net = Net()
    x = net.input("x", shape)
    t1 = net.op("TRANSPOSE", [x, net.const("p_in", p_in, np.int32)], name="t1")
    t2 = net.op("TRANSPOSE", [t1, net.const("p_out", p_out, np.int32)], name="t2")
    net.outputs(net.op("RELU", [t2], name="relu"))
    return net.model()


def test_inverse_pair_disappears():
    model = two_transposes([1, 2, 0], [2, 0, 1])
    assert_optimized(model, PASS, expect=["RELU"])


@pytest.mark.parametrize(
    "p_in, p_out", [([1, 0, 2], [0, 2, 1]), ([2, 0, 1], [2, 0, 1]), ([0, 2, 1], [1, 0, 2])]
)
def test_non_commuting_pairs_compose_correctly(p_in, p_out):
    model = two_transposes(p_in, p_out)
    after = optimized(model, PASS)
    assert kinds(after) == ["TRANSPOSE", "RELU"]
    merged = op_named(after, "TRANSPOSE")
    np.testing.assert_array_equal(merged.inputs[1].data, np.array(p_in)[p_out])
    assert origin_names(after, merged) == {"t1", "t2"}
    assert_same_outputs(model, after)


def test_chain_of_transposes_collapses_in_one_run():
    net = Net()
    x = net.input("x", [2, 3, 4])
    t = x
    for i in range(6):
        t = net.op("TRANSPOSE", [t, net.const(f"p{i}", [1, 2, 0], np.int32)], name=f"t{i}")
    net.outputs(t)
    model = net.model()
    after = optimized(model, PASS)
    assert kinds(after) == []
    assert after.main.outputs[0] is after.main.inputs[0]
    assert_same_outputs(model, after)


def test_inner_transpose_with_another_user_stays():
    net = Net()
    x = net.input("x", [2, 3, 4])
    t1 = net.op("TRANSPOSE", [x, net.const("p", [1, 0, 2], np.int32)], name="t1")
    t2 = net.op("TRANSPOSE", [t1, net.const("q", [1, 0, 2], np.int32)], name="t2")
    net.outputs(net.op("RELU", [t2]), net.op("NEG", [t1]))
    model = net.model()
    after = optimized(model, PASS)
    assert sorted(kinds(after)) == ["NEG", "RELU", "TRANSPOSE"]
    assert_same_outputs(model, after)
