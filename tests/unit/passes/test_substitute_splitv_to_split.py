"""substitute_splitv_to_split (reference SubstituteSplitVToSplitPass)."""

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

PASS = "substitute_splitv_to_split"


def splitv_net(sizes, *, dynamic=False, dtype=np.int32):
    net = Net()
    x = net.input("x", [2, 6])
    relu = net.op("RELU", [x], name="relu")
    s = net.input("sizes", [len(sizes)], "INT32") if dynamic else net.const("sizes", sizes, dtype)
    options = new_options("SplitVOptions", numSplits=len(sizes))
    parts = net.op(
        "SPLIT_V",
        [relu, s, net.const("axis", -1, np.int32)],
        options,
        outputs=len(sizes),
        name="sv",
    )
    net.outputs(*(parts if len(sizes) > 1 else [parts]))
    return net.model()


@pytest.mark.parametrize(
    ("sizes", "dtype"), [([2, 2, 2], np.int32), ([3, 3], np.int64), ([-1], np.int32)]
)
def test_equal_sizes_become_a_split(sizes, dtype):
    model = splitv_net(sizes, dtype=dtype)
    after = optimized(model, PASS)
    assert kinds(after) == ["RELU", "SPLIT"]
    split = op_named(after, "SPLIT")
    assert split.options.numSplits == len(sizes)
    assert origin_names(after, split) == ({"sv:0"} if len(sizes) > 1 else {"sv"})
    assert [t.name for t in after.main.outputs] == [t.name for t in model.main.outputs]
    assert_same_outputs(model, after)


@pytest.mark.parametrize("variant", [{"sizes": [2, 4]}, {"sizes": [3, 3], "dynamic": True}])
def test_near_misses_stay(variant):
    model = splitv_net(**variant)
    assert kinds(optimized(model, PASS)) == ["RELU", "SPLIT_V"]
