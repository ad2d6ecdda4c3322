"""forward_transpose_op (reference ForwardTransposeOpPass)."""

import numpy as np
import pytest

from support.passes import (
    Net,
    assert_same_outputs,
    kinds,
    optimized,
    origin_names,
)

PASS = "forward_transpose_op"
PERM = [0, 2, 3, 1]  # [1,4,5,6] -> [1,5,6,4]


def transposed(net, name="x", perm=PERM, shape=(1, 4, 5, 6), dtype="FLOAT32"):
    x = net.input(name, shape, dtype)
    return net.op("TRANSPOSE", [x, net.const(f"{name}_perm", perm, np.int32)], name=f"t_{name}")


def check_forwarded(model, opcode, transposes=("t_x",)):
    """The operator now reads the Transpose's input; one Transpose follows it."""
    after = optimized(model, PASS)
    assert kinds(after) == [opcode, "TRANSPOSE"]
    new, moved = after.main.operators
    assert moved.inputs[0] is new.outputs[0]
    assert moved.inputs[1].data.tolist() == PERM
    assert origin_names(after, new) == {"op"}
    assert origin_names(after, moved) == set(transposes)
    assert after.main.outputs[0].name == "op"
    assert_same_outputs(model, after)
    return new


@pytest.mark.parametrize("opcode", ["ABS", "LOGISTIC", "RELU6"])
def test_unary_operators(opcode):
    net = Net()
    net.outputs(net.op(opcode, [transposed(net)], name="op"))
    new = check_forwarded(net.model(), opcode)
    assert new.inputs[0].shape == (1, 4, 5, 6)


@pytest.mark.parametrize("opcode", ["ADD", "MUL"])
@pytest.mark.parametrize("const_shape", [(), (1,), (1, 1, 1, 1)])
@pytest.mark.parametrize("const_first", [False, True])
def test_binary_with_a_one_element_constant(opcode, const_shape, const_first):
    net = Net()
    c = net.const("c", np.full(const_shape, 1.5, np.float32))
    t = transposed(net)
    net.outputs(net.binary(opcode, t, c, swap=const_first, act=1, name="op"))
    new = check_forwarded(net.model(), opcode)
    assert new.inputs[0 if const_first else 1].name == "c", "the constant is kept"
    assert new.options.fusedActivationFunction == 1


@pytest.mark.parametrize("opcode", ["ADD", "MUL"])
@pytest.mark.parametrize("const_shape", [(1, 5, 6, 4), (1, 1, 1, 4), (1, 5, 1, 1)])
@pytest.mark.parametrize("const_first", [False, True])
def test_binary_with_a_rank4_constant_permuted_back(opcode, const_shape, const_first):
    net = Net()
    c = net.random("c", const_shape)
    t = transposed(net)
    net.outputs(net.op(opcode, [c, t] if const_first else [t, c], name="op"))
    model = net.model()
    new = check_forwarded(model, opcode)
    moved = new.inputs[0 if const_first else 1]
    np.testing.assert_array_equal(moved.data.transpose(PERM), c.data)


@pytest.mark.parametrize("opcode", ["ADD", "MUL"])
def test_binary_of_two_transposes_by_the_same_perm(opcode):
    net = Net()
    a, b = transposed(net, "x"), transposed(net, "y", shape=(1, 4, 1, 6))
    net.outputs(net.op(opcode, [a, b], name="op"))
    new = check_forwarded(net.model(), opcode, transposes=("t_x", "t_y"))
    assert [t.name for t in new.inputs] == ["x", "y"]


def test_a_chain_moves_to_the_end_and_cancels_with_its_inverse():
    net = Net()
    t = transposed(net)
    y = net.op("MUL", [net.op("RELU6", [net.op("ABS", [t])]), net.const("two", np.float32(2))])
    net.outputs(net.op("TRANSPOSE", [y, net.const("back", [0, 3, 1, 2], np.int32)], name="back"))
    model = net.model()
    assert kinds(optimized(model, PASS)) == ["ABS", "RELU6", "MUL", "TRANSPOSE", "TRANSPOSE"]
    after = optimized(model, PASS, "remove_redundant_transpose")
    assert kinds(after) == ["ABS", "RELU6", "MUL"]
    assert after.main.outputs[0].name == "back"
    assert_same_outputs(model, after)


def test_a_transpose_with_other_readers_is_not_duplicated():
    net = Net()
    t = transposed(net)
    net.outputs(net.op("ABS", [t], name="op"), net.op("NEG", [t], name="neg"))
    model = net.model()
    assert kinds(optimized(model, PASS)) == kinds(model)


def perm_from_input():
    net = Net()
    x, p = net.input("x", [1, 4, 5, 6]), net.input("p", [4], "INT32")
    net.outputs(net.op("ABS", [net.op("TRANSPOSE", [x, p])], name="op"))
    return net.model()


def binary(opcode, other, *, perm=PERM, shape=(1, 4, 5, 6), dtype="FLOAT32"):
    net = Net()
    t = transposed(net, perm=perm, shape=shape, dtype=dtype)
    net.outputs(net.op(opcode, [t, other(net)], name="op"))
    return net.model()


NEAR_MISSES = {
    "not an element-wise operator": lambda: binary("SUB", lambda n: n.const("c", np.float32(1))),
    "int32 constant": lambda: binary("ADD", lambda n: n.const("c", np.int32(1)), dtype="INT32"),
    "rank-2 constant": lambda: binary("MUL", lambda n: n.random("c", [6, 4])),
    "rank-3 transpose": lambda: binary(
        "ADD", lambda n: n.random("c", [5, 6, 4]), perm=[1, 2, 0], shape=(4, 5, 6)
    ),
    "one element of a higher rank": lambda: binary(
        "ADD", lambda n: n.const("c", np.ones((1, 1, 1, 1, 1), np.float32))
    ),
    "different perms": lambda: binary(
        "ADD", lambda n: transposed(n, "y", perm=[0, 3, 1, 2], shape=(1, 6, 4, 5))
    ),
    "other operand not transposed": lambda: binary("ADD", lambda n: n.input("y", [1, 5, 6, 4])),
    "perm not constant": perm_from_input,
}


@pytest.mark.parametrize("case", NEAR_MISSES)
def test_near_misses_stay(case):
    model = NEAR_MISSES[case]()
    assert kinds(optimized(model, PASS)) == kinds(model)
