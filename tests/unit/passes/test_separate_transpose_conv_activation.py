"""separate_transpose_conv_activation: always on (optimization.md §4.1 item 25), so
``optimized(model)`` with no pass enabled runs it."""

import numpy as np
import pytest

from support.passes import Net, assert_same_outputs, kinds, optimized, origin_names, tconv_options

NONE, RELU, RELU_N1_TO_1, RELU6, TANH = 0, 1, 2, 3, 4
VALID = 1


def tconv_net(act, *, biased=True, dtype="FLOAT32", second_use=False):
    net = Net()
    x = net.input("x", [1, 4, 4, 3], dtype)
    wtype = np.float32 if dtype == "FLOAT32" else np.int8
    inputs = [
        net.const("out_shape", [1, 9, 9, 2], np.int32),
        net.const("w", net.rng.uniform(-3, 3, [2, 3, 3, 3]).astype(wtype)),
        x,
    ]
    if biased:
        inputs.append(
            net.random("b", [2]) if dtype == "FLOAT32" else net.const("b", [1, 2], np.int32)
        )
    options = tconv_options(act, padding=VALID, stride=(2, 2))
    y = net.op("TRANSPOSE_CONV", inputs, options, name="tconv", outputs=[dtype])
    net.outputs(y)
    if second_use:
        net.outputs(net.op("NEG", [y], name="other"))
    return net.model()


@pytest.mark.parametrize("act, kind", [(RELU, "RELU"), (RELU6, "RELU6")])
@pytest.mark.parametrize("biased", [True, False])
def test_relu_becomes_its_own_operator(act, kind, biased):
    model = tconv_net(act, biased=biased)
    after = optimized(model)
    assert kinds(after) == ["TRANSPOSE_CONV", kind]
    tconv, relu = after.main.operators
    assert tconv.options.fusedActivationFunction == NONE
    assert (tconv.options.padding, tconv.options.strideH) == (VALID, 2)
    assert relu.inputs == tconv.outputs
    assert origin_names(after, tconv) == origin_names(after, relu) == {"tconv"}
    assert after.main.outputs[0].name == "tconv"
    assert_same_outputs(model, after)


def test_every_consumer_reads_the_separate_relu():
    model = tconv_net(RELU, second_use=True)
    after = optimized(model)
    assert kinds(after) == ["TRANSPOSE_CONV", "RELU", "NEG"]
    assert after.main.operators[2].inputs == after.main.operators[1].outputs
    assert_same_outputs(model, after)


@pytest.mark.parametrize("act", [NONE, RELU_N1_TO_1, TANH])
def test_other_activations_stay_fused(act):
    model = tconv_net(act)
    after = optimized(model)
    assert kinds(after) == ["TRANSPOSE_CONV"]
    assert after.main.operators[0].options.fusedActivationFunction == act
    assert_same_outputs(model, after)


def test_an_integer_tconv_keeps_its_relu():
    model = tconv_net(RELU, dtype="INT8")
    after = optimized(model)
    assert kinds(after) == ["TRANSPOSE_CONV"]
    assert after.main.operators[0].options.fusedActivationFunction == RELU
