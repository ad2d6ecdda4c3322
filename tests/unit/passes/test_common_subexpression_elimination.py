"""common_subexpression_elimination (optimization.md §5.24)."""

import numpy as np
import pytest

from one_cmds.ir import Tensor
from one_cmds.passes import load_passes
from one_cmds.passes.toolkit import GraphEditor
from support.passes import (
    Net,
    assert_optimized,
    assert_same_outputs,
    conv2d_options,
    kinds,
    new_options,
    op_named,
    optimized,
    origin_names,
    qparam,
)

PASS = "common_subexpression_elimination"
VALID = 1


def conv(net, x, w, b, name, act=0):
    return net.op("CONV_2D", [x, w, b], conv2d_options(act, padding=VALID), name=name)


def test_duplicates_merge_into_the_first_with_the_union_of_origins():
    net = Net()
    x = net.input("x", [2, 3])
    a = net.op("RELU", [x], name="relu1")
    b = net.op("RELU", [x], name="relu2")
    c = net.op("RELU", [x], name="relu3")
    net.outputs(
        net.op(
            "SUB", [net.op("ADD", [a, b], new_options("AddOptions")), c], new_options("SubOptions")
        )
    )
    model = net.model()
    after = optimized(model, PASS)
    assert kinds(after) == ["RELU", "ADD", "SUB"]
    relu = op_named(after, "RELU")
    assert origin_names(after, relu) == {"relu1", "relu2", "relu3"}
    assert after.main.operators[1].inputs == [relu.outputs[0], relu.outputs[0]]
    assert_same_outputs(model, after)


def test_equal_constants_in_separate_tensors_are_identical_inputs():
    net = Net()
    x = net.input("x", [1, 4, 4, 2])
    w, b = np.ones((3, 1, 1, 2), np.float32), np.arange(3, dtype=np.float32)
    c1 = conv(net, x, net.const("w1", w), net.const("b1", b), "conv1")
    c2 = conv(net, x, net.const("w2", w), net.const("b2", b), "conv2")
    c3 = conv(net, x, net.const("w3", w * 2), net.const("b3", b), "conv3")  # other bytes
    c4 = conv(net, x, net.const("w4", w), net.const("b4", b), "conv4", act=1)  # other options
    c5 = conv(
        net, x, net.const("w5", w), net.const("b5", b.astype(np.int32).view(np.float32)), "conv5"
    )
    net.outputs(c1, c2, c3, c4, c5)
    model = net.model()
    after = optimized(model, PASS)
    assert kinds(after) == ["CONV_2D"] * 4
    assert origin_names(after, after.main.operators[0]) == {"conv1", "conv2"}
    assert after.main.outputs[0] is after.main.outputs[1]
    assert_same_outputs(model, after)


def test_chains_of_duplicates_collapse_in_one_run():
    net = Net()
    x = net.input("x", [4])
    outs = []
    for i in range(3):
        shape = [2, 2] if i != 1 else np.array([2, 2], np.int32)  # a list or an array: equal
        r = net.op(
            "RESHAPE", [x], new_options("ReshapeOptions", newShape=shape), name=f"reshape{i}"
        )
        outs.append(net.op("NEG", [r], name=f"neg{i}"))
    net.outputs(net.op("ADD", [outs[0], outs[1]], new_options("AddOptions")), outs[2])
    model = net.model()
    editor = GraphEditor(model, 0)
    assert load_passes()[PASS].run(editor) == 4
    editor.commit()
    assert sorted(kinds(model)) == ["ADD", "NEG", "RESHAPE"]


def test_duplicated_graph_outputs_keep_working():
    net = Net()
    x = net.input("x", [3])
    net.outputs(net.op("NEG", [x], name="n1"), net.op("NEG", [x], name="n2"))
    model = net.model()
    assert_optimized(model, PASS, expect=["NEG"])


def quantize(net, x, scale, name):
    q = net.op("QUANTIZE", [x], outputs=["INT8"], name=name)
    q.quant = qparam(scale, 0)
    return q


def test_results_with_other_quantization_differ():
    net = Net()
    x = net.input("x", [5])
    net.outputs(
        quantize(net, x, 0.1, "q1"), quantize(net, x, 0.2, "q2"), quantize(net, x, 0.1, "q3")
    )
    model = net.model()
    assert_optimized(
        model,
        PASS,
        expect=["QUANTIZE", "QUANTIZE"],
        inputs=[np.linspace(-3, 3, 5, dtype=np.float32)],
    )


@pytest.mark.parametrize("which", ["custom", "variable"])
def test_stateful_or_custom_operators_are_never_merged(which):
    net = Net()
    x = net.input("x", [2])
    if which == "custom":
        ops = [net.op("CUSTOM", [x], custom_code="Foo", name=f"c{i}") for i in range(2)]
    else:
        state = Tensor("state", "FLOAT32", (2,), is_variable=True)
        ops = [net.op("ADD", [x, state], new_options("AddOptions"), name=f"a{i}") for i in range(2)]
    net.outputs(*ops)
    model = net.model(infer=False)
    editor = GraphEditor(model, 0)
    assert load_passes()[PASS].run(editor) == 0


def test_ten_thousand_operators_in_one_linear_visit():
    net = Net()
    t = net.input("x", [2])
    add = new_options("AddOptions")
    steps = 3334
    for i in range(steps):
        a, b = net.op("NEG", [t], name=f"a{i}"), net.op("NEG", [t], name=f"b{i}")
        t = net.op("ADD", [a, b], add, name=f"s{i}")
    net.outputs(t)
    model = net.model(infer=False)
    assert len(model.main.operators) > 10_000
    assert load_passes()[PASS].run(GraphEditor(model, 0)) == steps
