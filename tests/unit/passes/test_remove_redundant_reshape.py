"""remove_redundant_reshape (optimization.md §5.10)."""

import numpy as np

from support.passes import (
    Net,
    assert_same_outputs,
    kinds,
    new_options,
    op_named,
    optimized,
    origin_names,
)

PASS = "remove_redundant_reshape"


def reshape(net, x, shape, name):
    options = new_options("ReshapeOptions", newShape=list(shape))
    return net.op("RESHAPE", [x, net.const(f"{name}/shape", shape, np.int32)], options, name=name)


def test_outer_reshape_reads_the_original_input():
    net = Net()
    x = net.input("x", [2, 3, 4])
    r1 = reshape(net, x, [6, 4], "r1")
    net.outputs(reshape(net, r1, [4, -1], "r2"))
    model = net.model()
    after = optimized(model, PASS)
    assert kinds(after) == ["RESHAPE"]
    new = op_named(after, "RESHAPE")
    assert new.inputs[0] is after.main.inputs[0]
    np.testing.assert_array_equal(new.inputs[1].data, [4, -1])
    assert origin_names(after, new) == {"r1", "r2"}
    assert after.main.outputs[0].name == "r2"
    assert_same_outputs(model, after)


def test_chain_collapses_and_a_shared_inner_reshape_stays():
    net = Net()
    x = net.input("x", [2, 3, 4])
    r1 = reshape(net, x, [6, 4], "r1")
    r2 = reshape(net, r1, [24], "r2")
    r3 = reshape(net, r2, [4, 3, 2], "r3")
    net.outputs(net.op("RELU", [r3], name="relu"), net.op("NEG", [r1], name="neg"))
    model = net.model()
    after = optimized(model, PASS)
    assert sorted(kinds(after)) == ["NEG", "RELU", "RESHAPE", "RESHAPE"]
    last = next(
        op for op in after.main.operators if op.kind == "RESHAPE" and op.inputs[1].data.size == 3
    )
    assert last.inputs[0] is after.main.inputs[0]
    assert origin_names(after, last) == {"r1", "r2", "r3"}
    assert_same_outputs(model, after)


def test_single_reshape_stays():
    net = Net()
    x = net.input("x", [2, 3])
    net.outputs(reshape(net, net.op("RELU", [x]), [3, 2], "r"))
    model = net.model()
    assert kinds(optimized(model, PASS)) == ["RELU", "RESHAPE"]
