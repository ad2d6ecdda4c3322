"""WHILE, IF, CALL_ONCE and resource variables against LiteRT."""

import os
import tempfile

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter as LiteRTInterpreter

import one_cmds
from one_cmds.interp import Interpreter, InterpreterError
from one_cmds.ir import Graph, Model, Operator, Tensor
from support.litert import run_model, run_tflite
from support.single_op import new_options

RNG = np.random.default_rng(6)
STEP = np.array([[0.5, -1.0, 0.25, 2.0]], np.float32)


def while_model(iterations: int) -> Model:
    """main: (i, v) = WHILE(0, x); cond: table[i] (True ``iterations`` times); body: (i + 1,
    v + STEP). Outputs v and i."""
    x = Tensor("x", "FLOAT32", (1, 4))
    zero = Tensor.constant("zero", np.array(0, np.int32))
    i_out, v_out = Tensor("i_out", "INT32", ()), Tensor("v_out", "FLOAT32", (1, 4))
    main = Graph(
        "main",
        [x],
        [v_out, i_out],
        [
            Operator(
                "WHILE",
                [zero, x],
                [i_out, v_out],
                new_options("WhileOptions", condSubgraphIndex=1, bodySubgraphIndex=2),
            ),
        ],
    )
    ci, cv = Tensor("ci", "INT32", ()), Tensor("cv", "FLOAT32", (1, 4))
    table = Tensor.constant("table", np.arange(iterations + 1) < iterations)
    more = Tensor("more", "BOOL", ())
    cond = Graph(
        "cond",
        [ci, cv],
        [more],
        [
            Operator("GATHER", [table, ci], [more], new_options("GatherOptions", axis=0)),
        ],
    )
    bi, bv = Tensor("bi", "INT32", ()), Tensor("bv", "FLOAT32", (1, 4))
    one = Tensor.constant("one", np.array(1, np.int32))
    step = Tensor.constant("step", STEP)
    bi2, bv2 = Tensor("bi2", "INT32", ()), Tensor("bv2", "FLOAT32", (1, 4))
    body = Graph(
        "body",
        [bi, bv],
        [bi2, bv2],
        [
            Operator("ADD", [bi, one], [bi2], new_options("AddOptions")),
            Operator("ADD", [bv, step], [bv2], new_options("AddOptions")),
        ],
    )
    return Model(graphs=[main, cond, body])


def assert_same(expected, got):
    assert len(expected) == len(got)
    for e, g in zip(expected, got, strict=True):
        assert e.shape == g.shape
        assert e.dtype == g.dtype
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("iterations", [0, 1, 5])
def test_while(iterations):
    model = while_model(iterations)
    x = RNG.standard_normal((1, 4)).astype(np.float32)
    expected = run_model(model, [x])
    got = Interpreter(model).run([x])
    assert_same(expected, got)
    assert int(got[1]) == iterations


def test_while_fixture(fixture_path):
    """A converter-made tf.while_loop (LESS in cond, ADDs in body)."""
    path = fixture_path("two_subgraphs.tflite")
    x = RNG.standard_normal((1, 4)).astype(np.float32)
    assert_same(run_tflite(path, [x]), one_cmds.Interpreter(path).run([x]))


def unary_graph(name, opcode, constant, options, shape=(2, 3)):
    """A graph ``y = opcode(x, constant)`` on one FLOAT32 input."""
    x, y = Tensor(f"{name}_x", "FLOAT32", shape), Tensor(f"{name}_y", "FLOAT32", shape)
    operand = Tensor.constant(f"{name}_constant", constant)
    return Graph(name, [x], [y], [Operator(opcode, [x, operand], [y], options)])


def if_model() -> Model:
    """main: IF(c, x); then: x + 1; else: x reversed along its last axis."""
    c, x = Tensor("c", "BOOL", ()), Tensor("x", "FLOAT32", (2, 3))
    y = Tensor("y", "FLOAT32", (2, 3))
    options = new_options("IfOptions", thenSubgraphIndex=1, elseSubgraphIndex=2)
    main = Graph("main", [c, x], [y], [Operator("IF", [c, x], [y], options)])
    then = unary_graph("then", "ADD", np.float32(1), new_options("AddOptions"))
    else_ = unary_graph(
        "else", "REVERSE_V2", np.array([1], np.int32), new_options("ReverseV2Options")
    )
    return Model(graphs=[main, then, else_])


@pytest.mark.parametrize("condition", [True, False])
def test_if(condition):
    model = if_model()
    inputs = [np.array(condition), RNG.standard_normal((2, 3)).astype(np.float32)]
    assert_same(run_model(model, inputs), Interpreter(model).run(inputs))


def test_if_condition_must_be_one_value():
    model = if_model()
    model.main.inputs[0].shape = (2,)
    with pytest.raises(InterpreterError, match="one value"):
        Interpreter(model).run([np.array([True, False]), np.zeros((2, 3), np.float32)])


def variable_model() -> Model:
    """main: CALL_ONCE(init); y = read(v) + x; assign(v, y). init: assign(v, INITIAL)."""
    x, y = Tensor("x", "FLOAT32", (3,)), Tensor("y", "FLOAT32", (3,))
    handle, value = Tensor("handle", "RESOURCE", ()), Tensor("value", "FLOAT32", (3,))
    var_options = new_options("VarHandleOptions", sharedName="v")
    main = Graph(
        "main",
        [x],
        [y],
        [
            Operator("CALL_ONCE", [], [], new_options("CallOnceOptions", initSubgraphIndex=1)),
            Operator("VAR_HANDLE", [], [handle], var_options),
            Operator("READ_VARIABLE", [handle], [value], new_options("ReadVariableOptions")),
            Operator("ADD", [value, x], [y], new_options("AddOptions")),
            Operator("ASSIGN_VARIABLE", [handle, y], [], new_options("AssignVariableOptions")),
        ],
    )
    init_handle = Tensor("init_handle", "RESOURCE", ())
    initial = Tensor.constant("initial", np.array([1.0, 2.0, 3.0], np.float32))
    init = Graph(
        "init",
        [],
        [],
        [
            Operator(
                "VAR_HANDLE", [], [init_handle], new_options("VarHandleOptions", sharedName="v")
            ),
            Operator(
                "ASSIGN_VARIABLE", [init_handle, initial], [], new_options("AssignVariableOptions")
            ),
        ],
    )
    return Model(graphs=[main, init])


def test_call_once_and_variables_persist_across_runs():
    model = variable_model()
    xs = [RNG.standard_normal(3).astype(np.float32) for _ in range(3)]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.tflite")
        one_cmds.save(model, path)
        litert = LiteRTInterpreter(model_path=path, num_threads=1)
        litert.allocate_tensors()
        expected = []
        for x in xs:
            litert.set_tensor(litert.get_input_details()[0]["index"], x)
            litert.invoke()
            expected.append(litert.get_tensor(litert.get_output_details()[0]["index"]).copy())
    ours = Interpreter(model)
    got = [ours.run([x])[0] for x in xs]
    for e, g in zip(expected, got, strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-6)
    np.testing.assert_allclose(got[-1], np.array([1, 2, 3], np.float32) + sum(xs), rtol=1e-6)


def test_reading_an_unassigned_variable_is_an_error():
    handle, value = Tensor("handle", "RESOURCE", ()), Tensor("value", "FLOAT32", (3,))
    main = Graph(
        "main",
        [],
        [value],
        [
            Operator("VAR_HANDLE", [], [handle], new_options("VarHandleOptions", sharedName="w")),
            Operator("READ_VARIABLE", [handle], [value], new_options("ReadVariableOptions")),
        ],
    )
    with pytest.raises(InterpreterError, match="before it is assigned"):
        Interpreter(Model(graphs=[main])).run([])
