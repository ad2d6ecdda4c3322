"""forward_reshape_to_unaryop (optimization.md §5.20; reference ForwardReshapeToUnaryOpPass)."""

import numpy as np
import pytest

from support.passes import (
    Net,
    assert_optimized,
    assert_same_outputs,
    kinds,
    new_options,
    op_named,
    optimized,
    origin_names,
)

PASS = "forward_reshape_to_unaryop"


def reshaped(build, *, shape=(2, 3, 4), target=(6, 4), other_use=False, dynamic=False):
    """x -> Reshape(x, target) -> build(net, reshaped) -> output."""
    net = Net()
    x = net.input("x", shape)
    s = net.input("s", [len(target)], "INT32") if dynamic else net.const("s", target, np.int32)
    r = net.op(
        "RESHAPE", [x, s], new_options("ReshapeOptions", newShape=list(target)), name="reshape"
    )
    net.outputs(build(net, r))
    if other_use:
        net.outputs(net.op("RELU", [r], name="relu"))
    return net.model()


def op(opcode, *, options=None, const=None, first=False):
    def build(net, r):
        if const is None:
            return net.op(opcode, [r], options, name="unary")
        c = net.const("c", np.asarray(const, np.float32))
        return net.op(opcode, [c, r] if first else [r, c], options, name="unary")

    return build


MUL = new_options("MulOptions")
DIV = new_options("DivOptions")

CASES = {
    "abs": op("ABS"),
    "neg": op("NEG"),
    "logistic": op("LOGISTIC"),
    "mul": op("MUL", options=MUL, const=2.5),
    "mul_const_first": op("MUL", options=MUL, const=[2.5], first=True),
    "div": op("DIV", options=DIV, const=4.0),
    "div_const_first": op("DIV", options=DIV, const=[[4.0]], first=True),
}


@pytest.mark.parametrize("build", CASES.values(), ids=CASES.keys())
def test_reshape_moves_below_the_operator(build):
    model = reshaped(build)
    unary = model.main.operators[1]
    after = optimized(model, PASS)
    assert kinds(after) == [unary.opcode, "RESHAPE"]
    moved, reshape = after.main.operators
    assert after.main.inputs[0] in moved.inputs
    assert reshape.inputs[0] is moved.outputs[0]
    np.testing.assert_array_equal(reshape.inputs[1].data, [6, 4])
    assert origin_names(after, moved) == {"unary"}
    assert origin_names(after, reshape) == {"reshape"}
    assert after.main.outputs[0].name == "unary"
    assert_same_outputs(model, after, [np.linspace(-3, 3, 24, dtype=np.float32).reshape(2, 3, 4)])


def mean(axis, keep=True, axes_shape=()):
    def build(net, r):
        a = net.const("axis", np.full(axes_shape, axis, np.int32))
        return net.op("MEAN", [r, a], new_options("ReducerOptions", keepDims=keep), name="unary")

    return build


@pytest.mark.parametrize("axis", [1, -3])
def test_mean_over_an_unchanged_axis(axis):
    model = reshaped(mean(axis, axes_shape=(1,)), shape=(2, 3, 4, 6), target=(2, 3, 8, 3))
    after = optimized(model, PASS)
    assert kinds(after) == ["MEAN", "RESHAPE"]
    reshape = op_named(after, "RESHAPE")
    np.testing.assert_array_equal(reshape.inputs[1].data, [2, 1, 8, 3])
    assert list(reshape.options.newShape) == [2, 1, 8, 3]
    assert reshape.outputs[0].shape == (2, 1, 8, 3)
    assert origin_names(after, reshape) == {"reshape"}
    assert origin_names(after, op_named(after, "MEAN")) == {"unary"}
    assert_same_outputs(model, after)


@pytest.mark.parametrize(
    "build, shape, target",
    [
        (mean(2), (2, 3, 4, 6), (2, 3, 8, 3)),  # the reduced dim changes
        (mean(1, keep=False), (2, 3, 4, 6), (2, 3, 8, 3)),
        (mean(0, axes_shape=(2,)), (2, 3, 4, 6), (2, 3, 8, 3)),  # two axes
        (mean(0), (2, 3, 4), (2, 12)),  # the rank changes
        (op("MUL", options=MUL, const=[1.0, 2.0, 3.0, 4.0]), (2, 3, 4), (6, 4)),
        (op("SQRT"), (2, 3, 4), (6, 4)),
    ],
    ids=["mean_axis_changed", "mean_no_keep", "mean_two_axes", "mean_rank", "mul_vector", "sqrt"],
)
def test_near_misses_stay(build, shape, target):
    model = reshaped(build, shape=shape, target=target)
    after = optimized(model, PASS)
    assert kinds(after) == kinds(model)
    x = np.abs(np.random.default_rng(0).standard_normal(shape)).astype(np.float32)
    assert_same_outputs(model, after, [x])


def test_non_constant_shape_stays():
    model = reshaped(op("ABS"), dynamic=True)
    assert kinds(optimized(model, PASS)) == ["RESHAPE", "ABS"]


def test_reshape_with_another_user_is_not_duplicated():
    model = reshaped(op("NEG"), other_use=True)
    after = optimized(model, PASS)
    assert kinds(after) == kinds(model)


def test_chain_moves_down_over_sweeps():
    model = reshaped(lambda net, r: net.op("ABS", [net.op("NEG", [r], name="neg")], name="abs"))
    assert_optimized(model, PASS, expect=["NEG", "ABS", "RESHAPE"])


def test_integer_multiplier_stays():
    net = Net()
    x = net.input("x", [2, 3, 4], "INT32")
    r = net.op("RESHAPE", [x, net.const("s", [6, 4], np.int32)], outputs=["INT32"])
    net.outputs(net.op("MUL", [r, net.const("c", np.int32(3))], MUL, outputs=["INT32"]))
    model = net.model()
    after = optimized(model, PASS)
    assert kinds(after) == ["RESHAPE", "MUL"]
    assert_same_outputs(model, after)
