"""remove_unnecessary_split (optimization.md §5.13)."""

import numpy as np

from support.passes import Net, assert_same_outputs, kinds, new_options, optimized

PASS = "remove_unnecessary_split"


def split_net(count):
    net = Net()
    x = net.input("x", [2, 4])
    relu = net.op("RELU", [x], name="relu")
    options = new_options("SplitOptions", numSplits=count)
    parts = net.op(
        "SPLIT", [net.const("axis", 1, np.int32), relu], options, outputs=count, name="split"
    )
    net.outputs(*(parts if count > 1 else [parts]))
    return net.model()


def test_split_into_one_is_removed():
    model = split_net(1)
    after = optimized(model, PASS)
    assert kinds(after) == ["RELU"]
    assert after.main.outputs[0].name == "split"
    assert_same_outputs(model, after)


def test_split_into_two_stays():
    model = split_net(2)
    assert kinds(optimized(model, PASS)) == ["RELU", "SPLIT"]
