"""replace_non_const_fc_with_batch_matmul (reference ReplaceNonConstFCWithBatchMatMulPass)."""

import numpy as np
import pytest

from one_cmds.interp import Interpreter
from support.litert import random_inputs
from support.passes import (
    Net,
    assert_same_outputs,
    fc_options,
    kinds,
    op_named,
    optimized,
    origin_names,
)

PASS = "replace_non_const_fc_with_batch_matmul"
ACT_OPS = {1: "RELU", 2: "RELU_N1_TO_1", 3: "RELU6", 4: "TANH"}


def fc_net(
    *,
    in_shape=(3, 5),
    w_shape=(4, 5),
    act=0,
    keep=False,
    bias="const",
    const_w=False,
    w_perm=None,
    x_perm=None,
):
    """FC(x, w, b) with w a graph input (or Transpose(w, w_perm)) and x a graph input (or
    Transpose(x, x_perm)); ``bias``: "const", "zero", "input" or None."""
    net = Net()
    x = net.input("x", in_shape)
    if x_perm is not None:
        x = net.transpose(x, x_perm, "tx")
    w = net.random("w", w_shape) if const_w else net.input("w", w_shape)
    if w_perm is not None:
        w = net.transpose(w, w_perm, "tw")
    b = {
        "const": lambda: net.random("b", [4]),
        "zero": lambda: net.const("b", np.zeros(4, np.float32)),
        "input": lambda: net.input("b", [4]),
        None: lambda: None,
    }[bias]()
    net.outputs(net.op("FULLY_CONNECTED", [x, w, b], fc_options(act, keep), name="fc"))
    return net.model()


def check(model, expected_kinds, *, adj=(False, True)):
    after = optimized(model, PASS)
    assert kinds(after) == expected_kinds
    bmm = op_named(after, "BATCH_MATMUL")
    assert (bmm.options.adjointLhs, bmm.options.adjointRhs) == adj
    for op in after.main.operators:
        if op.opcode != "TRANSPOSE":
            assert origin_names(after, op) == {"fc"}
    out = after.main.outputs[0]
    assert (out.name, out.shape) == ("fc", model.main.outputs[0].shape)
    return after


@pytest.mark.parametrize("act", [0, 1, 2, 3])
def test_bias_becomes_an_add_with_the_activation(act):
    model = fc_net(act=act)
    after = check(model, ["BATCH_MATMUL", "ADD"])
    assert op_named(after, "ADD").options.fusedActivationFunction == act
    assert_same_outputs(model, after)


@pytest.mark.parametrize("bias", [None, "zero"])
@pytest.mark.parametrize("act", [0, 1, 2, 3])
def test_no_or_zero_bias_gives_a_separate_activation(bias, act):
    model = fc_net(act=act, bias=bias)
    check(model, ["BATCH_MATMUL", *([ACT_OPS[act]] if act else [])])
    assert_same_outputs(model, optimized(model, PASS))


@pytest.mark.parametrize(
    ("keep", "expected"),
    [
        (False, ["BATCH_MATMUL", "RESHAPE", "ADD"]),  # [2, 3, 4] reshaped to [6, 4]
        (True, ["BATCH_MATMUL", "ADD"]),  # already [2, 3, 4]
    ],
)
def test_a_reshape_restores_the_fc_result_shape(keep, expected):
    model = fc_net(in_shape=(2, 3, 5), keep=keep)
    after = check(model, expected)
    assert_same_outputs(model, after)


def test_transposed_weights_are_read_directly():
    model = fc_net(w_shape=(5, 4), w_perm=[1, 0])
    after = check(model, ["BATCH_MATMUL", "ADD"], adj=(False, False))
    assert op_named(after, "BATCH_MATMUL").inputs[1] is after.main.inputs[1]
    assert_same_outputs(model, after)


def test_a_transposed_input_becomes_adj_x():
    model = fc_net(in_shape=(2, 5, 3), x_perm=[0, 2, 1], keep=True)
    after = check(model, ["BATCH_MATMUL", "ADD"], adj=(True, True))
    assert op_named(after, "BATCH_MATMUL").inputs[0] is after.main.inputs[0]
    assert_same_outputs(model, after)


@pytest.mark.parametrize(
    ("variant", "expected"),
    [
        # perm [1, 0, 2] does not swap the matrix axes: the Transpose stays and feeds lhs
        (
            {"in_shape": (3, 2, 5), "x_perm": [1, 0, 2]},
            ["TRANSPOSE", "BATCH_MATMUL", "RESHAPE", "ADD"],
        ),
        # an identity Transpose of the weights is not a transposition
        ({"w_perm": [0, 1]}, ["TRANSPOSE", "BATCH_MATMUL", "ADD"]),
    ],
)
def test_other_transposes_are_not_looked_through(variant, expected):
    model = fc_net(**variant)
    after = optimized(model, PASS)
    assert kinds(after) == expected
    bmm = op_named(after, "BATCH_MATMUL")
    assert (bmm.options.adjointLhs, bmm.options.adjointRhs) == (False, True)
    assert_same_outputs(model, after)


@pytest.mark.parametrize(("bias", "expected"), [("const", ["ADD", "TANH"]), (None, ["TANH"])])
def test_tanh_is_a_separate_operator(bias, expected):
    """LiteRT's FC refuses TANH and its ADD ignores a fused TANH: judged by the interpreter."""
    model = fc_net(act=4, bias=bias)
    after = check(model, ["BATCH_MATMUL", *expected])
    inputs = random_inputs(model, seed=3)
    want = Interpreter(model).run(inputs)[0]
    np.testing.assert_allclose(Interpreter(after).run(inputs)[0], want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "variant",
    [
        {"const_w": True},
        {"const_w": True, "w_shape": (5, 4), "w_perm": [1, 0]},  # Transpose of a constant
        {"bias": "input"},  # the reference would drop it
        {"in_shape": (2, 10)},  # FC rows of 5 from a last dimension of 10
    ],
)
def test_near_misses_stay(variant):
    model = fc_net(**variant)
    after = optimized(model, PASS)
    assert kinds(after) == kinds(model)
