"""fuse_slice_with_tconv (reference FuseSliceWithTConvPass)."""

import numpy as np
import pytest

from support.passes import (
    Net,
    assert_same_outputs,
    kinds,
    op_named,
    optimized,
    origin_names,
    tconv_options,
)

PASS = "fuse_slice_with_tconv"
BEFORE = ["TRANSPOSE_CONV", "SLICE"]
SAME, VALID = 0, 1


def tconv_slice_net(
    begin, size, *, padding=VALID, out=10, batch=1, biased=True, act=0, begin_input=False
):
    """x [batch, 4, 4, 3] -> TransposeConv (filter 4x4, stride 2) -> Slice."""
    net = Net()
    x = net.input("x", [batch, 4, 4, 3])
    inputs = [
        net.const("out_shape", [batch, out, out, 2], np.int32),
        net.random("w", [2, 4, 4, 3]),
        x,
    ]
    if biased:
        inputs.append(net.random("b", [2]))
    options = tconv_options(act, padding=padding, stride=(2, 2))
    tconv = net.op("TRANSPOSE_CONV", inputs, options, name="tconv")
    b = net.input("begin", [4], "INT32") if begin_input else net.const("begin", begin, np.int32)
    net.outputs(net.op("SLICE", [tconv, b, net.const("size", size, np.int32)], name="slice"))
    return net.model()


@pytest.mark.parametrize(
    "begin, size, channels",
    [
        ([0, 1, 1, 0], [1, 8, 8, 2], [0, 1]),
        ([0, 1, 1, 0], [-1, 8, 8, -1], [0, 1]),  # -1: to the end
        ([0, 1, 1, 1], [1, 8, 8, 1], [1]),  # channels cut too
        ([0, 1, 1, 0], [1, 8, 8, 1], [0]),
    ],
)
def test_a_crop_of_a_valid_tconv_becomes_a_same_tconv(begin, size, channels):
    model = tconv_slice_net(begin, size)
    after = optimized(model, PASS)
    assert kinds(after) == ["TRANSPOSE_CONV"]
    tconv = op_named(after, "TRANSPOSE_CONV")
    assert tconv.options.padding == SAME
    np.testing.assert_array_equal(tconv.inputs[0].data, [1, 8, 8, len(channels)])
    old = model.main.operators[0]
    np.testing.assert_array_equal(tconv.inputs[1].data, old.inputs[1].data[channels])
    np.testing.assert_array_equal(tconv.inputs[3].data, old.inputs[3].data[channels])
    assert origin_names(after, tconv) == {"tconv", "slice"}
    assert after.main.outputs[0].name == "slice"
    assert_same_outputs(model, after)


def test_the_tconvs_own_padding_counts():
    # SAME, output 8: the TransposeConv itself starts 1 row into its full result. A crop of
    # the first 7 rows is SAME with output 7 (which starts there too); the reference compares
    # the new padding with begin (0) alone and would pick VALID, one row off.
    model = tconv_slice_net([0, 0, 0, 0], [1, 7, 7, 2], padding=SAME, out=8)
    after = optimized(model, PASS)
    assert kinds(after) == ["TRANSPOSE_CONV"]
    tconv = op_named(after, "TRANSPOSE_CONV")
    assert tconv.options.padding == SAME
    np.testing.assert_array_equal(tconv.inputs[0].data, [1, 7, 7, 2])
    assert_same_outputs(model, after)


def test_a_fused_activation_is_kept():
    model = tconv_slice_net([0, 1, 1, 0], [1, 8, 8, 2], act=2)  # RELU_N1_TO_1 stays fused
    after = optimized(model, PASS)
    assert kinds(after) == ["TRANSPOSE_CONV"]
    assert op_named(after, "TRANSPOSE_CONV").options.fusedActivationFunction == 2
    assert_same_outputs(model, after)


@pytest.mark.parametrize(
    "begin, size, extra",
    [
        ([0, 0, 0, 0], [1, 9, 9, 2], {}),  # no padding mode crops there with 4 input rows
        ([0, 1, 1, 0], [1, 7, 7, 2], {"padding": SAME, "out": 8}),  # would start 1 row early
        ([0, 1, 1, 0], [1, 8, 8, 2], {"biased": False}),  # the reference needs a bias
        ([1, 1, 1, 0], [1, 8, 8, 2], {"batch": 2}),  # batch cut
        ([0, 1, 1, 0], [1, 8, 8, 2], {"begin_input": True}),
    ],
)
def test_near_misses_stay(begin, size, extra):
    model = tconv_slice_net(begin, size, **extra)
    after = optimized(model, PASS)
    assert kinds(after) == BEFORE
    if not extra.get("begin_input"):
        assert_same_outputs(model, after)
