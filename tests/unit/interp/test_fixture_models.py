"""Whole bundled models: the interpreter against LiteRT, and its intermediate tensors."""

import numpy as np
import pytest

import one_cmds
from one_cmds import interp
from one_cmds.engines import Interpreter
from one_cmds.interp import InterpreterError
from support.fixtures import FLOAT_MODELS
from support.litert import random_inputs, run_tflite


def assert_close(got, expected):
    for g, e in zip(got, expected, strict=True):
        assert g.shape == e.shape and g.dtype == e.dtype
        if np.issubdtype(e.dtype, np.floating):
            scale = max(1.0, float(np.abs(e).max(initial=0.0)))
            np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5 * scale)
        else:
            np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("name", FLOAT_MODELS)
def test_fixture_matches_litert(fixture_path, name):
    path = fixture_path(name)
    model = one_cmds.load(path)
    inputs = random_inputs(model, seed=3)
    assert_close(Interpreter(model).run(inputs), run_tflite(path, inputs))


def test_inputs_by_name_and_every_intermediate(fixture_path):
    path = fixture_path("mobilenet_tiny.tflite")
    interpreter = Interpreter(path, engine="reference")
    (x,) = random_inputs(interpreter.model)
    everything = interpreter.run_all({"input": x})
    graph = interpreter.model.main
    produced = {t.name for op in graph.operators for t in op.outputs}
    assert produced | {"input"} <= set(everything)
    (out,) = interpreter.run([x])
    np.testing.assert_array_equal(everything[graph.outputs[0].name], out)


def test_the_public_interpreter_loads_files_the_reference_one_takes_models(fixture_path):
    path = fixture_path("add2.tflite")
    assert one_cmds.Interpreter is Interpreter
    assert isinstance(Interpreter(path), interp.Interpreter)
    with pytest.raises(TypeError, match="runs a Model, not str"):
        interp.Interpreter(path)


def test_observer_sees_each_activation_once(fixture_path):
    interpreter = Interpreter(fixture_path("transformer_block.tflite"))
    seen = []
    interpreter.run(random_inputs(interpreter.model), observer=lambda t, v: seen.append(t.name))
    expected = [t.name for op in interpreter.model.main.operators for t in op.outputs]
    assert seen == expected


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ([], "the model has 2 input(s) but 0 were given"),
        ({"ifm1": np.zeros((1, 4, 4, 3))}, "missing input(s): ifm2"),
        ({"nope": np.zeros(1)}, "unknown input name(s): nope"),
        (
            [np.zeros((1, 4, 4)), np.zeros((1, 4, 4, 3))],
            "input 'ifm1' has shape [1, 4, 4], the model expects [1, 4, 4, 3]",
        ),
    ],
)
def test_bad_inputs(fixture_path, inputs, message):
    with pytest.raises(InterpreterError) as e:
        Interpreter(fixture_path("add2.tflite")).run(inputs)
    assert str(e.value) == message


def test_operator_without_kernel_is_named(fixture_path):
    model = one_cmds.load(fixture_path("misc_ops_a.tflite"))
    model.main.operators[3].opcode = "ROPE"
    with pytest.raises(InterpreterError) as e:
        Interpreter(model).run(random_inputs(model))
    assert str(e.value) == "ROPE (graph 0, operator 3): no kernel for this operator"


@pytest.mark.parametrize("name", FLOAT_MODELS)
@pytest.mark.parametrize("batch", [None, 3])
def test_inferred_shapes_are_the_shapes_produced(fixture_path, name, batch):
    """Shape inference agrees with what the interpreter computes, also after a resize."""
    model = one_cmds.load(fixture_path(name))
    if batch is not None:
        baked = ("transformer_block.tflite", "layout_chains.tflite")
        if any(len(t.shape) == 0 for t in model.main.inputs) or name in baked:
            pytest.skip("batch is baked into a reshape constant / scalar input")
        model = one_cmds.resize(model, [(batch, *t.shape[1:]) for t in model.main.inputs])
    produced = {}
    interpreter = Interpreter(model)
    inputs = random_inputs(model, seed=1)
    interpreter.run(inputs, observer=lambda t, v: produced.__setitem__(id(t), (t, v.shape)))
    assert produced
    for t, shape in produced.values():
        assert all(d is None or d == s for d, s in zip(t.shape, shape, strict=True)), t
        if t.is_static:
            assert t.shape == shape, f"{t.name}: inferred {t.shape}, produced {shape}"
    if batch is not None and all(None not in t.shape[1:] for t in model.main.inputs):
        assert all(t.is_static for t, _ in produced.values())
