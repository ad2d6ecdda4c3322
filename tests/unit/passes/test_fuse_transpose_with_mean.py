"""fuse_transpose_with_mean (reference FuseTransposeWithMeanPass)."""

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

PASS = "fuse_transpose_with_mean"


def transpose_mean(perm, axes, *, keep=False, other_use=False, shape=(2, 3, 4, 5)):
    net = Net()
    x = net.input("x", shape)
    t = net.op("TRANSPOSE", [x, net.const("perm", perm, np.int32)], name="transpose")
    opts = new_options("ReducerOptions", keepDims=keep)
    net.outputs(net.op("MEAN", [t, net.const("axes", axes, np.int32)], opts, name="mean"))
    if other_use:
        net.outputs(net.op("NEG", [t], name="neg"))
    return net.model()


@pytest.mark.parametrize(
    "perm, axes, reduced",
    [
        ([0, 2, 3, 1], [1, 2], [2, 3]),  # NHWC mean over H, W of an NCHW tensor
        ([0, 2, 3, 1], [-3, -2], [2, 3]),
        ([0, 2, 3, 1], [1, 2, 1], [2, 3]),
        ([3, 0, 1, 2], [0], [3]),
        ([1, 0, 2, 3], [0, 1], [0, 1]),
    ],
)
def test_fuses_into_one_mean(perm, axes, reduced):
    model = transpose_mean(perm, axes)
    after = optimized(model, PASS)
    assert kinds(after) == ["MEAN"]
    mean = op_named(after, "MEAN")
    assert mean.inputs[0] is after.main.inputs[0]
    np.testing.assert_array_equal(mean.inputs[1].data, reduced)
    assert mean.options.keepDims is False
    assert origin_names(after, mean) == {"transpose", "mean"}
    assert_same_outputs(model, after)


def test_transpose_with_another_user_stays():
    model = transpose_mean([0, 2, 3, 1], [1, 2], other_use=True)
    after = optimized(model, PASS)
    assert sorted(kinds(after)) == ["MEAN", "NEG", "TRANSPOSE"]
    assert op_named(after, "MEAN").inputs[0] is after.main.inputs[0]
    assert_same_outputs(model, after)


@pytest.mark.parametrize(
    "perm, axes, keep",
    [
        ([0, 2, 3, 1], [1, 2], True),  # keep_dims: the result stays transposed
        ([0, 3, 1, 2], [2], False),  # the kept axes 0, 3, 2 are out of order
        ([0, 2, 3, 1], [3], False),  # reduces axis 1 of x, keeps 0, 2, 3 in order
    ],
    ids=["keep_dims", "kept_out_of_order", "kept_in_order"],
)
def test_conditions(perm, axes, keep):
    model = transpose_mean(perm, axes, keep=keep)
    after = optimized(model, PASS)
    kept = [p for i, p in enumerate(perm) if i not in axes]
    fused = not keep and kept == sorted(kept)
    assert kinds(after) == (["MEAN"] if fused else ["TRANSPOSE", "MEAN"])
    assert_same_outputs(model, after)


def test_non_constant_perm_stays():
    net = Net()
    x = net.input("x", [2, 3, 4, 5])
    t = net.op("TRANSPOSE", [x, net.input("perm", [4], "INT32")])
    opts = new_options("ReducerOptions", keepDims=False)
    net.outputs(net.op("MEAN", [t, net.const("axes", [1, 2], np.int32)], opts))
    model = net.model()
    assert kinds(optimized(model, PASS)) == ["TRANSPOSE", "MEAN"]
