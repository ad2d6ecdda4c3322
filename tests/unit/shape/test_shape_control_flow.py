"""WHILE, IF and CALL_ONCE: subgraphs inferred with their call-site operand shapes."""

import os

import numpy as np
import pytest

import one_cmds
from one_cmds.ir import Model, Operator
from one_cmds.shape import ShapeInferenceError, infer_shapes
from support.litert import run_model
from support.shape_helpers import GraphBuilder
from support.single_op import new_options

N = None
FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures")


def while_options(cond=1, body=2):
    return new_options("WhileOptions", condSubgraphIndex=cond, bodySubgraphIndex=body)


def counter_cond(limit=3):
    """(i, x) -> i < limit."""
    b = GraphBuilder("cond")
    i, _ = b.input((), "INT32"), b.input((1, 2))
    return b.graph(b.op("LESS", [i, b.const(limit)], dtypes=("BOOL",)))


def test_fixture_while_resized():
    model = one_cmds.load(os.path.join(FIXTURES, "two_subgraphs.tflite"))
    model.main.inputs[0].shape = (3, 4)
    assert infer_shapes(model)
    assert [t.shape for t in model.main.outputs] == [(3, 4)]
    body = model.graphs[2]
    assert [t.shape for t in body.inputs] == [(), (3, 4)]
    assert [t.shape for t in body.outputs] == [(), (3, 4)]
    assert model.graphs[1].inputs[1].shape == (3, 4)
    [out] = run_model(model, [np.ones((3, 4), np.float32)])
    assert out.shape == (3, 4)
    assert not infer_shapes(model)


def growing_while():
    """x [1, 2] doubled along axis 0 on each of 3 iterations."""
    main = GraphBuilder()
    x = main.input((1, 2))
    _, y = main.op("WHILE", [main.const(0), x], while_options(), dtypes=("INT32", "FLOAT32"))
    body = GraphBuilder("body")
    i, v = body.input((), "INT32"), body.input((1, 2))
    step = body.op("ADD", [i, body.const(1)], new_options("AddOptions"), dtypes=("INT32",))
    grown = body.op("CONCATENATION", [v, v], new_options("ConcatenationOptions", axis=0))
    return Model(graphs=[main.graph(y), counter_cond(), body.graph(step, grown)]), y


def test_while_body_changing_a_dimension_makes_it_unknown():
    model, y = growing_while()
    infer_shapes(model)
    assert y.shape == (N, 2)
    assert [t.shape for t in model.graphs[2].inputs] == [(), (N, 2)]
    assert model.graphs[2].outputs[1].shape == (N, 2)
    assert not infer_shapes(model)
    [out] = run_model(model, [np.ones((1, 2), np.float32)])
    assert out.shape == (8, 2)


def test_while_body_changing_a_rank_is_an_error():
    model, _ = growing_while()
    body = model.graphs[2]
    body.operators[1].opcode = "EXPAND_DIMS"
    body.operators[1].inputs = [body.inputs[1], body.operators[0].inputs[1]]
    with pytest.raises(
        ShapeInferenceError, match=r"^WHILE \(graph 0, operator 0\): WHILE loop variable 1 has rank"
    ):
        infer_shapes(model)


def if_model():
    """cond ? relu(x) : concat(x, x, axis 1)."""
    main = GraphBuilder()
    cond, x = main.input((), "BOOL"), main.input((2, 3))
    options = new_options("IfOptions", thenSubgraphIndex=1, elseSubgraphIndex=2)
    y = main.op("IF", [cond, x], options)
    then = GraphBuilder("then")
    a = then.input((2, 3))
    other = GraphBuilder("else")
    c = other.input((2, 3))
    wide = other.op("CONCATENATION", [c, c], new_options("ConcatenationOptions", axis=1))
    return Model(graphs=[main.graph(y), then.graph(then.op("RELU", [a])), other.graph(wide)]), x, y


def test_if_joins_the_branches():
    model, x, y = if_model()
    infer_shapes(model)
    assert y.shape == (2, N)
    x.shape = (5, 3)
    infer_shapes(model)
    assert y.shape == (5, N)
    assert model.graphs[1].inputs[0].shape == (5, 3)
    for cond, width in [(True, 3), (False, 6)]:
        [out] = run_model(model, [np.array(cond), np.ones((5, 3), np.float32)])
        assert out.shape == (5, width)


def test_subgraph_called_from_two_sites_gets_the_joined_shapes():
    main = GraphBuilder()
    x, z = main.input((2, 3)), main.input((4, 3))
    call = new_options("IfOptions", thenSubgraphIndex=1, elseSubgraphIndex=1)
    cond = main.const(True, bool)
    y1, y2 = main.op("IF", [cond, x], call), main.op("IF", [cond, z], call)
    sub = GraphBuilder("relu")
    r = sub.op("RELU", [sub.input((2, 3))])
    model = Model(graphs=[main.graph(y1, y2), sub.graph(r)])
    assert infer_shapes(model)
    assert not infer_shapes(model)
    assert model.graphs[1].inputs[0].shape == r.shape == (N, 3)
    assert y1.shape == (2, 3) and y2.shape == (N, 3)


def test_call_once_init_graph_is_inferred_and_kept():
    main = GraphBuilder()
    x = main.input((2, 2))
    main.op("CALL_ONCE", [], new_options("CallOnceOptions", initSubgraphIndex=1), dtypes=())
    y = main.op("RELU", [x])
    init = GraphBuilder("init")
    r = init.op("TANH", [init.const(np.ones((3, 1)), np.float32)])
    model = Model(graphs=[main.graph(y), init.graph(r)])
    assert infer_shapes(model)
    assert r.shape == (3, 1) and y.shape == (2, 2)
    assert [op.opcode for op in model.main.operators] == ["CALL_ONCE", "RELU"]


def test_graph_calling_itself_is_an_error():
    model, _ = growing_while()
    body = model.graphs[2]
    body.operators = [Operator("WHILE", list(body.inputs), list(body.outputs), while_options())]
    with pytest.raises(ShapeInferenceError, match=r"graph 2 calls itself \(0 -> 2 -> 2\)"):
        infer_shapes(model)


def test_graph_no_operator_calls_is_inferred_with_its_own_inputs():
    """E.g. the entry graph of a second signature."""
    main = GraphBuilder()
    y = main.op("RELU", [main.input((2,))])
    other = GraphBuilder("other")
    z = other.op("EXP", [other.input((7, N))])
    model = Model(graphs=[main.graph(y), other.graph(z)])
    infer_shapes(model)
    assert z.shape == (7, N)
