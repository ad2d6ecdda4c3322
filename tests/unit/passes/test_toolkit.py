"""The pattern toolkit the passes share: the graph editor and the operand readers."""

import numpy as np

from one_cmds.ir import NO_ORIGIN
from one_cmds.passes.toolkit import (
    GraphEditor,
    channel_vector,
    fold,
    is_const_scalar,
    scalar_value,
    split_const,
)
from support.passes import Net, new_options


def chain():
    """x -> RELU (a) -> NEG (b) -> ABS (c, the output)."""
    net = Net()
    x = net.input("x", [2, 3])
    a = net.op("RELU", [x], name="a")
    b = net.op("NEG", [a], name="b")
    net.outputs(net.op("ABS", [b], name="c"))
    return net.model()


def test_replacing_a_result_drops_what_became_dead_at_once():
    model = chain()
    g = GraphEditor(model, 0)
    relu, neg, _ = model.main.operators
    g.replace(neg.outputs[0], relu.outputs[0])
    assert g.consumers(relu.outputs[0]) == [model.main.operators[2]]
    assert g.producer(neg.outputs[0]) is None, "NEG vanished with its last reader"
    assert [op.opcode for op in g.ops()] == ["RELU", "ABS"]
    g.commit()
    assert [op.opcode for op in model.main.operators] == ["RELU", "ABS"]


def test_replace_with_builds_the_operator_in_place_of_a_result():
    model = chain()
    g = GraphEditor(model, 0)
    relu, neg, _ = model.main.operators
    new = g.replace_with(neg, "RELU6", [relu.outputs[0]], origin=neg.origin)
    assert new.outputs[0].name == "b" and new.outputs[0].shape == neg.outputs[0].shape
    g.commit()
    assert [op.opcode for op in model.main.operators] == ["RELU", "RELU6", "ABS"]
    assert model.main.operators[1].origin == neg.origin


def test_single_consumer_ignores_a_graph_output():
    model = chain()
    g = GraphEditor(model, 0)
    relu, neg, abs_ = model.main.operators
    assert g.single_consumer(relu.outputs[0]) is neg
    assert g.only_use_is(relu.outputs[0], neg)
    assert g.single_consumer(abs_.outputs[0]) is None


def test_new_operators_get_inferred_shapes_and_take_the_replaced_name():
    model = chain()
    g = GraphEditor(model, 0)
    relu, neg, _ = model.main.operators
    pad = g.const("pads", np.array([[1, 1], [0, 0]], np.int32))
    padded = g.op("PAD", [relu.outputs[0], pad], None, origin=neg.origin)
    assert padded.outputs[0].shape == (4, 3)
    assert padded.outputs[0].dtype == "FLOAT32"
    g.replace(neg.outputs[0], padded.outputs[0])
    assert padded.outputs[0].name == "b", "a new result takes over the name it replaces"
    g.commit()
    assert [op.opcode for op in model.main.operators] == ["RELU", "PAD", "ABS"]
    assert model.main.operators[1].origin == neg.origin


def test_replace_keeps_the_readers_it_is_told_to_keep():
    model = chain()
    g = GraphEditor(model, 0)
    relu = model.main.operators[0]
    x = relu.outputs[0]
    twice = g.op("MUL", [x, g.const("two", np.float32(2.0))], new_options("MulOptions"),
                 origin=NO_ORIGIN, like=x)  # fmt: skip
    g.replace(x, twice.outputs[0], keep=[twice])
    assert twice.inputs[0] is x
    assert model.main.operators[1].inputs[0] is twice.outputs[0]
    assert x.name == "a", "with readers kept, the names stay"
    g.commit()
    assert [op.opcode for op in model.main.operators] == ["RELU", "MUL", "NEG", "ABS"]


def test_a_graph_output_keeps_its_name_when_an_intermediate_replaces_it():
    model = chain()
    g = GraphEditor(model, 0)
    _, neg, abs_ = model.main.operators
    g.replace(abs_.outputs[0], neg.outputs[0])
    g.commit()
    assert model.main.outputs[0] is neg.outputs[0]
    assert model.main.outputs[0].name == "c"


def test_unused_new_operators_are_not_committed():
    model = chain()
    g = GraphEditor(model, 0)
    relu = model.main.operators[0]
    g.op("EXP", [relu.outputs[0]], origin=NO_ORIGIN)
    g.commit()
    assert [op.opcode for op in model.main.operators] == ["RELU", "NEG", "ABS"]


def test_fold_evaluates_through_the_kernels_and_keeps_qparams():
    net = Net()
    x = net.input("x", [2])
    s = net.op("ADD", [net.const("a", [1.0, 2.0]), net.const("b", [3.0, 4.0])],
               new_options("AddOptions"), name="s")  # fmt: skip
    net.outputs(net.op("MUL", [x, s], new_options("MulOptions"), name="m"))
    model = net.model()
    g = GraphEditor(model, 0)
    add = model.main.operators[0]
    assert fold(g, add)
    g.commit()
    (mul,) = model.main.operators
    np.testing.assert_array_equal(mul.inputs[1].data, [4.0, 6.0])
    assert mul.inputs[1].name == "s"


def test_operand_readers():
    net = Net()
    x = net.input("x", [1, 2, 2, 3])
    c = net.const("c", np.arange(3, dtype=np.float32).reshape(1, 1, 1, 3))
    one = net.const("one", np.float32(0.5))
    net.outputs(net.op("MUL", [c, x], new_options("MulOptions")))
    model = net.model()
    mul = model.main.operators[0]
    assert split_const(mul) == (x, c)
    np.testing.assert_array_equal(channel_vector(c, 3, ranks=(4,)), [0, 1, 2])
    assert channel_vector(c, 3, ranks=(1,)) is None
    assert channel_vector(c, 4, ranks=(4,)) is None
    assert scalar_value(one) == 0.5 and is_const_scalar(one, 0.5)
    assert scalar_value(c) is None and scalar_value(x) is None
