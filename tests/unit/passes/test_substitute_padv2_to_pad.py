"""substitute_padv2_to_pad (reference SubstitutePadV2ToPadPass, with the MaxPool padding and
the batch/channel paddings checked)."""

import numpy as np
import pytest

from support.passes import (
    Net,
    assert_same_outputs,
    conv2d_options,
    kinds,
    new_options,
    op_named,
    optimized,
    origin_names,
    pool_options,
    run_reference,
)

PASS = "substitute_padv2_to_pad"
VALID, SAME = 1, 0
NCHW, NHWC = [0, 3, 1, 2], [0, 2, 3, 1]


def padv2_net(
    paddings=((0, 0), (1, 2), (2, 1), (0, 0)),
    value=-3.4e38,
    *,
    source="RELU",
    padding=VALID,
    nchw=False,
    second_use=False,
):
    net = Net()
    x = net.input("x", [1, 5, 5, 2])
    if source == "RELU":
        act = net.op("RELU", [x], name="relu")
    else:
        conv_act = 1 if source == "CONV_RELU" else 3
        act = net.op(
            "CONV_2D",
            [x, net.random("w", [2, 1, 1, 2]), net.random("b", [2])],
            conv2d_options(conv_act, padding=SAME),
            name="conv",
        )
    if nchw:
        act = net.transpose(act, NCHW, "to_nchw")
        paddings = [paddings[p] for p in NCHW]
    pad = net.op(
        "PADV2",
        [act, net.const("paddings", paddings, np.int32), net.const("value", value, np.float32)],
        new_options("PadV2Options"),
        name="padv2",
    )
    pooled_in = net.transpose(pad, NHWC, "to_nhwc") if nchw else pad
    options = pool_options(size=3, padding=padding)
    net.outputs(net.op("MAX_POOL_2D", [pooled_in], options, name="pool"))
    if second_use:
        net.outputs(net.op("NEG", [pad], name="other"))
    return net.model()


@pytest.mark.parametrize(
    "variant",
    [
        {},
        {"value": 0.0},
        {"source": "CONV_RELU"},
        {"nchw": True},
        {"paddings": ((0, 0), (2, 2), (0, 2), (0, 0))},
    ],
)
def test_padv2_before_a_max_pool_becomes_pad(variant):
    model = padv2_net(**variant)
    after = optimized(model, PASS)
    assert "PADV2" not in kinds(after)
    pad = op_named(after, "PAD")
    assert origin_names(after, pad) == {"padv2"}
    assert_same_outputs(model, after)


@pytest.mark.parametrize(
    "variant",
    [
        {"value": 0.5},  # a positive pad value can win
        {"source": "CONV_RELU6"},  # not a RELU (the reference's list)
        {"second_use": True},
        {"paddings": ((0, 0), (3, 0), (0, 0), (0, 0))},  # a window of padding only
        {
            "paddings": ((0, 0), (0, 0), (0, 0), (0, 1))
        },  # a padded channel (reference: changes results)
        {"padding": SAME},  # a window may hold padding only (reference: changes results)
    ],
)
def test_near_misses_stay(variant):
    model = padv2_net(**variant)
    assert kinds(optimized(model, PASS)) == kinds(model)


@pytest.mark.parametrize(
    "variant",
    [
        {"paddings": ((0, 0), (0, 0), (0, 0), (0, 1))},
        {"padding": SAME, "paddings": ((0, 0), (0, 2), (0, 0), (0, 0))},
    ],
)
def test_what_the_reference_would_break(variant):
    """The two cases the reference substitutes although the results change."""
    model = padv2_net(**variant)
    zero_pad = padv2_net(value=0.0, **variant)
    inputs = [np.random.default_rng(0).standard_normal((1, 5, 5, 2)).astype(np.float32)]
    assert not np.array_equal(run_reference(model, inputs)[0], run_reference(zero_pad, inputs)[0])
