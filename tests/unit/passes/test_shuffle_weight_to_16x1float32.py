"""shuffle_weight_to_16x1float32 (reference ShuffleWeightTo16x1Float32Pass)."""

import numpy as np
import pytest

from one_cmds.interp import Interpreter, InterpreterError
from support.passes import (
    Net,
    assert_same_outputs,
    fc_options,
    kinds,
    new_options,
    op_named,
    optimized,
    origin_names,
)

PASS = "shuffle_weight_to_16x1float32"
SHUFFLED = 127


def fc_net(rows=32, cols=8, shape=(3, 8), bias=True, **fields):
    net = Net()
    x = net.input("x", shape)
    b = net.random("b", [rows]) if bias else None
    options = new_options("FullyConnectedOptions", **fields)
    y = net.op("FULLY_CONNECTED", [x, net.random("w", [rows, cols]), b], options, name="fc")
    net.outputs(y)
    return net.model()


@pytest.mark.parametrize(
    "variant",
    [
        {},
        {"bias": False},
        {"fusedActivationFunction": 1},
        {"rows": 48, "cols": 5, "shape": (2, 5)},
        {"shape": (2, 3, 8), "keepNumDims": True},
    ],
)
def test_weights_are_shuffled_and_outputs_unchanged(variant):
    model = fc_net(**variant)
    after = optimized(model, PASS)
    assert kinds(after) == ["FULLY_CONNECTED"]
    fc = op_named(after, "FULLY_CONNECTED")
    assert fc.options.weightsFormat == SHUFFLED
    assert origin_names(after, fc) == {"fc"}
    assert fc.inputs[1].shape == model.main.operators[0].inputs[1].shape
    assert_same_outputs(model, after)  # the original in LiteRT, the shuffled one interpreted


def test_shuffled_layout_is_sixteen_rows_column_by_column():
    model = fc_net(rows=32, cols=3, shape=(1, 3))
    w = model.main.operators[0].inputs[1].data
    got = op_named(optimized(model, PASS), "FULLY_CONNECTED").inputs[1].data.reshape(-1)
    expected = [w[r * 16 + i, c] for r in range(2) for c in range(3) for i in range(16)]
    np.testing.assert_array_equal(got, expected)


def test_fcs_sharing_weights_read_one_shuffled_copy():
    net = Net()
    x = net.input("x", [2, 8])
    w = net.random("w", [16, 8])
    a = net.op("FULLY_CONNECTED", [x, w, None], fc_options(), name="a")
    b = net.op("FULLY_CONNECTED", [net.op("NEG", [x], name="neg"), w, None], fc_options(), name="b")
    net.outputs(a, b)
    model = net.model()
    after = optimized(model, PASS)
    fcs = [op for op in after.main.operators if op.opcode == "FULLY_CONNECTED"]
    assert len(fcs) == 2 and fcs[0].inputs[1] is fcs[1].inputs[1]
    assert {frozenset(origin_names(after, op)) for op in fcs} == {
        frozenset({"a"}),
        frozenset({"b"}),
    }
    assert_same_outputs(model, after)


def test_verify_runs_the_shuffled_model():
    model = fc_net()
    optimized(model, PASS, verify=True)  # raises when the interpreter disagrees


@pytest.mark.parametrize("variant", [{"rows": 24}, {"rows": 8}])
def test_rows_not_a_multiple_of_16_stay(variant):
    after = optimized(fc_net(**variant), PASS)
    assert op_named(after, "FULLY_CONNECTED").options.weightsFormat == 0


def test_non_constant_weights_stay():
    net = Net()
    x, w = net.input("x", [2, 8]), net.input("w", [16, 8])
    net.outputs(net.op("FULLY_CONNECTED", [x, w, None], fc_options()))
    after = optimized(net.model(), PASS)
    assert op_named(after, "FULLY_CONNECTED").options.weightsFormat == 0


def test_already_shuffled_weights_stay():
    model = fc_net(weightsFormat=SHUFFLED)
    after = optimized(model, PASS)
    fc = op_named(after, "FULLY_CONNECTED")
    np.testing.assert_array_equal(fc.inputs[1].data, model.main.operators[0].inputs[1].data)


def test_the_kernel_refuses_shuffled_weights_of_uneven_rows():
    model = fc_net(rows=8, weightsFormat=SHUFFLED)
    with pytest.raises(InterpreterError, match="multiple of 16"):
        Interpreter(model).run([np.zeros((3, 8), np.float32)])
