"""UNIDIRECTIONAL_SEQUENCE_LSTM against LiteRT, on the models of ``support.recurrent``."""

import numpy as np
import pytest

from one_cmds.interp import Interpreter, InterpreterError, RunContext, evaluate, load_kernels
from one_cmds.ir import Tensor
from support.litert import BUILTIN, run_model
from support.recurrent import RELU, RELU6, RELU_N1_TO_1, SIGN_BIT, lstm_model


def sequence(model, seed=1):
    shape = model.main.inputs[0].shape
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def kernel_output(model, x):
    """The kernel on ``x`` with the states omitted (they start at zero)."""
    load_kernels()
    op = model.main.operators[0]
    args = [x, *(None if t is None else t.data for t in op.inputs[1:])]
    (out,) = evaluate(op, args, RunContext(model))
    return out


def check(model, atol=1e-5):
    x = sequence(model)
    (want,) = run_model(model, [x], BUILTIN)
    got = kernel_output(model, x)
    assert got.shape == want.shape and got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=atol)


@pytest.mark.parametrize("time_major", [False, True])
@pytest.mark.parametrize(("batch", "steps"), [(2, 3), (1, 1), (3, 5)])
def test_sequence_in_both_layouts(time_major, batch, steps):
    check(lstm_model(batch=batch, steps=steps, time_major=time_major))


@pytest.mark.parametrize("activation", [RELU, RELU_N1_TO_1, RELU6, SIGN_BIT])
def test_activations(activation):
    check(lstm_model(activation=activation))


@pytest.mark.parametrize(
    "variant",
    [
        {"cifg": True},
        {"peephole": True},
        {"cifg": True, "peephole": True},
        {"cell_clip": 0.3},
        {"projection": 3},
        {"projection": 3, "projection_bias": False},
        {"projection": 3, "proj_clip": 0.1},
        {"layer_norm": True},
        {"layer_norm": True, "cifg": True, "peephole": True, "projection": 4},
        {"time_major": True, "peephole": True, "projection": 6, "cell_clip": 0.5},
    ],
)
def test_cell_variants(variant):
    check(lstm_model(**variant))


def test_long_sequence_with_large_inputs_stays_close():
    model = lstm_model(steps=12, features=6, cells=8, seed=3)
    x = sequence(model) * 4
    (want,) = run_model(model, [x], BUILTIN)
    np.testing.assert_allclose(kernel_output(model, x), want, rtol=1e-5, atol=1e-5)


def test_a_model_with_state_variables_runs_in_the_interpreter():
    """State variables without data start at zero, as LiteRT resets them."""
    model = lstm_model()
    x = sequence(model)
    (want,) = run_model(model, [x], BUILTIN)
    (got,) = Interpreter(model).run([x])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("fusedActivationFunction", 0, "activation NONE"),
        ("diagonalRecurrentTensors", True, "diagonal"),
    ],
)
def test_refusals(field, value, message):
    model = lstm_model()
    setattr(model.main.operators[0].options, field, value)
    with pytest.raises(InterpreterError, match=message):
        kernel_output(model, sequence(model))


def test_quantized_weights_are_refused():
    model = lstm_model()
    op = model.main.operators[0]
    op.inputs[2] = Tensor.constant("w_q", np.zeros((5, 4), np.int8))
    with pytest.raises(InterpreterError, match="only float operands"):
        kernel_output(model, sequence(model))


def test_twenty_inputs_without_layer_norm():
    model = lstm_model(peephole=True)
    op = model.main.operators[0]
    op.inputs = op.inputs[:20]
    check(model)
