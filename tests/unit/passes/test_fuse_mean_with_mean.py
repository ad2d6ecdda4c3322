"""fuse_mean_with_mean (optimization.md §5.22, with the adopted keep_dims rules)."""

import numpy as np
import pytest

from support.passes import (
    Net,
    assert_same_outputs,
    kinds,
    new_options,
    op_named,
    optimized,
    origin_names,
)

PASS = "fuse_mean_with_mean"


def means(
    axes1, axes2, *, keep=False, keep2=None, shape=(2, 3, 4, 5), dtype="FLOAT32", other_use=False
):
    net = Net()
    x = net.input("x", shape, dtype)
    opts = new_options("ReducerOptions", keepDims=keep)
    m1 = net.op("MEAN", [x, net.const("a1", axes1, np.int32)], opts, name="mean1")
    opts2 = new_options("ReducerOptions", keepDims=keep if keep2 is None else keep2)
    net.outputs(net.op("MEAN", [m1, net.const("a2", axes2, np.int32)], opts2, name="mean2"))
    if other_use:
        net.outputs(m1)
    return net.model()


@pytest.mark.parametrize(
    "axes1, axes2, keep, merged",
    [
        ([1], [2], True, [1, 2]),  # keep_dims: both count x's axes
        ([2], [1], True, [1, 2]),
        ([1], [1], False, [1, 2]),  # the second counts the axes the first left
        ([2], [0], False, [0, 2]),
        ([1], [-1], False, [1, 3]),
        ([0, 2], [1], False, [0, 2, 3]),
        ([3], [1, 2], True, [1, 2, 3]),
        ([1], [1], True, [1]),
    ],
)
def test_fuses_into_one_mean(axes1, axes2, keep, merged):
    model = means(axes1, axes2, keep=keep)
    after = optimized(model, PASS)
    assert kinds(after) == ["MEAN"]
    mean = op_named(after, "MEAN")
    assert mean.inputs[0] is after.main.inputs[0]
    np.testing.assert_array_equal(mean.inputs[1].data, merged)
    assert mean.options.keepDims == keep
    assert origin_names(after, mean) == {"mean1", "mean2"}
    assert_same_outputs(model, after)


def test_three_means_collapse_in_one_run():
    net = Net()
    t = net.input("x", [2, 3, 4, 5])
    for i in range(3):
        opts = new_options("ReducerOptions", keepDims=False)
        t = net.op("MEAN", [t, net.const(f"a{i}", [0], np.int32)], opts, name=f"m{i}")
    net.outputs(t)
    model = net.model()
    after = optimized(model, PASS)
    assert kinds(after) == ["MEAN"]
    np.testing.assert_array_equal(op_named(after, "MEAN").inputs[1].data, [0, 1, 2])
    assert origin_names(after, op_named(after, "MEAN")) == {"m0", "m1", "m2"}
    assert_same_outputs(model, after)


@pytest.mark.parametrize(
    "variant",
    [
        {"keep": True, "keep2": False},  # results of another rank if fused
        {"keep": False, "keep2": True},
        {"other_use": True},
        {"shape": (6,), "axes1": [0], "axes2": []},
    ],
    ids=str,
)
def test_near_misses_stay(variant):
    args = {"axes1": [1], "axes2": [1], **variant}
    model = means(args.pop("axes1"), args.pop("axes2"), **args)
    after = optimized(model, PASS)
    assert kinds(after) == ["MEAN", "MEAN"]


def test_integer_means_stay():
    model = means([1], [1], dtype="INT32")
    assert kinds(optimized(model, PASS)) == ["MEAN", "MEAN"]


def test_non_constant_axes_stay():
    net = Net()
    x = net.input("x", [2, 3, 4])
    a = net.input("a", [1], "INT32")
    opts = new_options("ReducerOptions", keepDims=False)
    m1 = net.op("MEAN", [x, a], opts)
    net.outputs(net.op("MEAN", [m1, net.const("a2", [0], np.int32)], opts))
    assert kinds(optimized(net.model(), PASS)) == ["MEAN", "MEAN"]
