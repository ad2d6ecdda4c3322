"""unroll_unidirseqlstm (reference UnrollUnidirectionalSequenceLSTMPass)."""

import numpy as np
import pytest

from one_cmds.ir import Tensor
from support.passes import Net, assert_same_outputs, kinds, new_options, optimized, origin_names
from support.recurrent import RELU, RELU6, RELU_N1_TO_1, SIGN_BIT, lstm_model

PASS = "unroll_unidirseqlstm"
LSTM = "UNIDIRECTIONAL_SEQUENCE_LSTM"


def unrolled(model, **options):
    after = optimized(model, PASS, **options)
    assert LSTM not in kinds(after)
    assert all(origin_names(after, op) == {"lstm"} for op in after.main.operators)
    return after


def step_kinds(steps, *, act="TANH", clip=False):
    first = ["FULLY_CONNECTED", "SPLIT", "LOGISTIC", "LOGISTIC", act, "MUL"]  # no forget gate
    later = ["FULLY_CONNECTED", "FULLY_CONNECTED", "ADD", *first[1:], "LOGISTIC", "MUL", "ADD"]
    tail = [*(["MINIMUM", "MAXIMUM"] if clip else []), act, "MUL"]
    return sorted(["UNPACK", "PACK", *first, *tail, *(later + tail) * (steps - 1)])


@pytest.mark.parametrize("time_major", [False, True])
@pytest.mark.parametrize(("batch", "steps"), [(2, 3), (1, 1), (3, 1), (1, 4)])
def test_unrolls_over_the_time_axis(time_major, batch, steps):
    model = lstm_model(batch=batch, steps=steps, time_major=time_major)
    after = unrolled(model)
    assert sorted(kinds(after)) == step_kinds(steps)
    assert after.main.outputs[0].name == "lstm"
    assert after.main.outputs[0].shape == model.main.outputs[0].shape
    assert_same_outputs(model, after)


@pytest.mark.parametrize(
    ("activation", "name"), [(RELU, "RELU"), (RELU6, "RELU6"), (RELU_N1_TO_1, "RELU_N1_TO_1")]
)
def test_the_lstm_activation_is_used(activation, name):
    model = lstm_model(activation=activation)
    after = unrolled(model)
    assert sorted(kinds(after)) == step_kinds(3, act=name)
    assert_same_outputs(model, after)


def test_cell_clip_becomes_minimum_and_maximum():
    model = lstm_model(cell_clip=0.2, steps=4)
    after = unrolled(model)
    assert sorted(kinds(after)) == step_kinds(4, clip=True)
    assert_same_outputs(model, after)


def test_twenty_input_lstm():
    model = lstm_model(time_major=True)
    model.main.operators[0].inputs = model.main.operators[0].inputs[:20]
    assert_same_outputs(model, unrolled(model))


def test_merged_weights_are_shared_by_all_steps():
    model = lstm_model(steps=4)
    after = unrolled(model)
    fcs = [op for op in after.main.operators if op.opcode == "FULLY_CONNECTED"]
    assert len({id(op.inputs[1]) for op in fcs}) == 2
    lstm = model.main.operators[0]
    stacked = np.concatenate([t.data for t in lstm.inputs[1:5]])
    np.testing.assert_array_equal(fcs[0].inputs[1].data, stacked)


def lstm_and(extra, **kwargs):
    """An LSTM model whose outputs are ``extra(net, lstm)``."""
    lstm = lstm_model(**kwargs).main.operators[0]
    net = Net()
    net.inputs, net.operators = [lstm.inputs[0]], [lstm]
    net.outputs(*extra(net, lstm))
    return net.model()


def test_unrolled_lstm_feeding_other_operators():
    model = lstm_and(lambda net, lstm: [net.op("RELU", [lstm.outputs[0]], name="relu")], steps=2)
    after = optimized(model, PASS)
    assert kinds(after)[-2:] == ["PACK", "RELU"]
    assert_same_outputs(model, after)


def test_verify_accepts_the_unrolled_model():
    optimized(lstm_model(), PASS, verify=True)  # state variables without data start at zero


def replaced_input(index, tensor):
    model = lstm_model()
    model.main.operators[0].inputs[index] = tensor
    return model


@pytest.mark.parametrize(
    "model",
    [
        lstm_model(cifg=True),
        lstm_model(peephole=True),
        lstm_model(projection=3),
        lstm_model(layer_norm=True),
        lstm_model(activation=SIGN_BIT),
        replaced_input(18, Tensor("h_state", "FLOAT32", (2, 5))),  # not a variable
        replaced_input(3, Tensor("w_c", "FLOAT32", (5, 4))),  # non-constant weights
        replaced_input(14, Tensor.constant("b_c", np.zeros(4, np.float32))),  # wrong shape
    ],
    ids=["cifg", "peephole", "projection", "layer_norm", "sign_bit", "state", "weights", "bias"],
)
def test_near_misses_stay(model):
    assert kinds(optimized(model, PASS, disable_validation=True)) == [LSTM]


def test_a_state_read_elsewhere_stays():
    model = lstm_and(lambda net, lstm: [lstm.outputs[0], net.op("NEG", [lstm.inputs[19]])])
    assert LSTM in kinds(optimized(model, PASS, disable_validation=True))


def test_activation_none_stays():
    model = lstm_model()
    model.main.operators[0].options = new_options(
        "UnidirectionalSequenceLSTMOptions", fusedActivationFunction=0
    )
    assert kinds(optimized(model, PASS)) == [LSTM]


def test_dynamic_batch_stays():
    model = lstm_model()
    model.main.inputs[0].shape = (None, 3, 4)
    assert kinds(optimized(model, PASS)) == [LSTM]
