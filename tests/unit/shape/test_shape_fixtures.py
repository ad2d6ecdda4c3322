"""Inference over whole models: the bundled fixtures, resize acceptance cases, the fixpoint."""

import os
import tempfile

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter

import one_cmds
from one_cmds.errors import StageError
from one_cmds.ir import Graph, Model, Operator, Tensor
from one_cmds.shape import ShapeInferenceError, infer_shapes
from support.fixtures import ALL_MODELS, FIXTURES, MANIFEST, RUNNABLE_MODELS
from support.litert import random_inputs, run_model
from support.single_op import new_options

MODELS = ALL_MODELS

# Operators whose output type is an attribute (kept from the file, not derived).
DECLARED_TYPE = {"CAST", "SHAPE", "ARG_MAX", "ARG_MIN", "QUANTIZE", "DEQUANTIZE"}


def load(name):
    return one_cmds.load(os.path.join(FIXTURES, name))


def produced(model):
    return [(op, t) for g in model.graphs for op in g.operators for t in op.outputs]


# Custom operators keep their declared shapes: they cannot be re-inferred from nothing.
@pytest.mark.parametrize("name", RUNNABLE_MODELS)
def test_fixture_shapes_and_dtypes_reinferred(name):
    model = load(name)
    stored = {id(t): (t.shape, t.dtype) for g in model.graphs for t in g.referenced_tensors()}
    for op, t in produced(model):
        t.shape = ()
        if op.opcode not in DECLARED_TYPE:
            t.dtype = "FLOAT64"
    assert infer_shapes(model)
    for g in model.graphs:
        for t in g.referenced_tensors():
            assert (t.shape, t.dtype) == stored[id(t)], t.name


@pytest.mark.parametrize("name", MODELS)
def test_fixture_inference_changes_nothing(name):
    model = load(name)
    assert not infer_shapes(model)


def test_dynamic_batch_becomes_static():
    """SHAPE -> STRIDED_SLICE -> PACK -> RESHAPE is evaluated from the known batch."""
    model = load("dynamic_batch.tflite")
    model.main.inputs[0].shape = (4, 8, 8, 4)
    infer_shapes(model)
    assert all(t.is_static for t in model.main.referenced_tensors())
    assert model.main.outputs[0].shape == (4, 10)
    reshape = next(op for op in model.main.operators if op.opcode == "RESHAPE")
    assert reshape.outputs[0].shape == (4, 384)
    assert [op.opcode for op in model.main.operators] == [
        "CONV_2D", "SHAPE", "STRIDED_SLICE", "PACK", "RESHAPE", "FULLY_CONNECTED",
    ]  # fmt: skip


def test_dynamic_batch_resized_runs_in_litert():
    model = load("dynamic_batch.tflite")
    model.main.inputs[0].shape = (3, 8, 8, 4)
    infer_shapes(model)
    [out] = run_model(model, random_inputs(model))
    assert out.shape == model.main.outputs[0].shape == (3, 10)


def test_dynamic_batch_unresized_stays_unknown():
    model = load("dynamic_batch.tflite")
    infer_shapes(model)
    shapes = [op.outputs[0].shape for op in model.main.operators]
    assert shapes == [(None, 8, 8, 6), (4,), (), (2,), (None, None), (None, 10)]


def litert_tensor_shapes(model, inputs):
    """Every tensor's shape after LiteRT ran ``model`` on ``inputs``, by tensor name."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.tflite")
        one_cmds.save(model, path)
        interpreter = Interpreter(model_path=path)
        for d, value in zip(interpreter.get_input_details(), inputs, strict=True):
            interpreter.resize_tensor_input(d["index"], value.shape, strict=False)
        interpreter.allocate_tensors()
        for d, value in zip(interpreter.get_input_details(), inputs, strict=True):
            interpreter.set_tensor(d["index"], value)
        interpreter.invoke()
        return {d["name"]: tuple(d["shape"]) for d in interpreter.get_tensor_details()}


@pytest.mark.parametrize(
    ("name", "shape"),
    [("mobilenet_tiny.tflite", (3, 40, 24, 3)), ("conv_spatial.tflite", (2, 12, 20, 3)),
     ("dynamic_batch.tflite", (5, 8, 8, 4)), ("misc_ops_c.tflite", (3, 7, 4))],
)  # fmt: skip
def test_resized_fixture_every_tensor_matches_litert(name, shape):
    model = load(name)
    model.main.inputs[0].shape = shape
    infer_shapes(model)
    actual = litert_tensor_shapes(model, random_inputs(model))
    for t in model.main.referenced_tensors():
        assert t.is_static and t.shape == actual[t.name], t.name


@pytest.mark.parametrize("name", ["conv_spatial.tflite", "misc_ops_c.tflite"])
def test_resize_check_of_manifest(name):
    entry = next(m for m in MANIFEST if m["file"] == name)
    model = load(name)
    model.main.inputs[0].shape = tuple(entry["resize_check"]["input_shape"])
    infer_shapes(model)
    assert model.main.outputs[0].shape == tuple(entry["resize_check"]["output_shape"])
    [out] = run_model(model, random_inputs(model))
    assert out.shape == model.main.outputs[0].shape


# -- resize.md §11 acceptance cases about inference -------------------------------------


@pytest.mark.parametrize(
    ("shape", "expected"),
    [((4, 6), (4, 1, 6)), ((1, 2, 3, 4), (1, 1, 2, 3, 4)), ((4, None), (4, 1, None))],
)
def test_expand_dims_resized(shape, expected):
    model = load("expand_dims.tflite")
    model.main.inputs[0].shape = shape
    infer_shapes(model)
    assert model.main.outputs[0].shape == expected
    assert model.main.inputs[0].shape == shape


def test_expand_dims_resized_twice_last_wins():
    model = load("expand_dims.tflite")
    for shape in [(6, 8), (4, 6)]:
        model.main.inputs[0].shape = shape
        infer_shapes(model)
    assert model.main.outputs[0].shape == (4, 1, 6)


@pytest.mark.parametrize(("shape", "expected"), [((1, 5, 5, 3), (1, 5, 5, 3)), ((), ())])
def test_add_resized(shape, expected):
    model = load("add2.tflite")
    for t in model.main.inputs:
        t.shape = shape
    infer_shapes(model)
    assert model.main.outputs[0].shape == expected


def test_add_incompatible_shapes():
    model = load("add2.tflite")
    model.main.inputs[0].shape = (1, 2, 3)
    model.main.inputs[1].shape = (4, 5, 6)
    with pytest.raises(ShapeInferenceError) as e:
        infer_shapes(model)
    assert (
        str(e.value) == "ADD (graph 0, operator 0): Cannot produce expand_dimension of two shapes "
        "(result 'Identity')"
    )
    assert isinstance(e.value, StageError)


@pytest.mark.parametrize(
    ("name", "shape", "message"),
    [
        # the converter folded the sequence length into a RESHAPE constant
        ("transformer_block.tflite", (2, 8, 16), r"^RESHAPE \(graph 0, operator 9\): cannot reshape"),
        ("mobilenet_tiny.tflite", (32, 32, 3), r"^CONV_2D \(graph 0, operator 0\): input rank 3, expected 4 \(result '.*'\)$"),
    ],
)  # fmt: skip
def test_resize_errors_name_the_operator(name, shape, message):
    model = load(name)
    model.main.inputs[0].shape = shape
    with pytest.raises(ShapeInferenceError, match=message):
        infer_shapes(model)


def test_operator_without_rule():
    x = Tensor("x", "FLOAT32", (2,))
    y = Tensor("y", "FLOAT32", (2,))
    graph = Graph("main", [x], [y], [Operator("NO_SUCH_OP", [x], [y])])
    with pytest.raises(
        ShapeInferenceError, match=r"^NO_SUCH_OP \(graph 0, operator 0\): no shape inference rule$"
    ):
        infer_shapes(Model(graphs=[graph]))


def test_custom_operator_keeps_declared_shapes():
    x = Tensor("x", "FLOAT32", (2, 3))
    y = Tensor("y", "INT8", (7,))
    op = Operator("CUSTOM", [x], [y], custom_code="MyOp")
    model = Model(graphs=[Graph("main", [x], [y], [op])])
    assert not infer_shapes(model)
    assert (y.shape, y.dtype) == ((7,), "INT8")


# -- the fixpoint --------------------------------------------------------------------------


def _chain():
    """x -> RELU -> a -> TANH -> y (output); x -> EXP -> dead (unused)."""
    x = Tensor("x", "FLOAT32", (2, 3))
    a, y, dead = (Tensor(n, "FLOAT32", ()) for n in ("a", "y", "dead"))
    ops = [Operator("RELU", [x], [a]), Operator("EXP", [x], [dead]), Operator("TANH", [a], [y])]
    return Model(graphs=[Graph("main", [x], [y], ops)]), x, a, y


def test_first_round_changes_second_does_not():
    model, x, a, y = _chain()
    assert infer_shapes(model)
    assert a.shape == y.shape == (2, 3)
    assert not infer_shapes(model)
    x.shape = (5, None)
    assert infer_shapes(model)
    assert y.shape == (5, None)
    assert not infer_shapes(model)


def test_dead_operators_removed():
    model, *_ = _chain()
    assert infer_shapes(model)
    assert [op.opcode for op in model.main.operators] == ["RELU", "TANH"]


def test_dead_operator_removal_alone_is_a_change():
    model, *_ = _chain()
    infer_shapes(model)
    dead_in = Tensor("d", "FLOAT32", (2, 3))
    model.main.operators.append(Operator("EXP", [model.main.inputs[0]], [dead_in]))
    assert infer_shapes(model)
    assert len(model.main.operators) == 2


def test_operators_out_of_order_are_sorted_then_inferred():
    model, _, _, y = _chain()
    model.main.operators.reverse()
    infer_shapes(model)
    assert y.shape == (2, 3)
    assert [op.opcode for op in model.main.operators] == ["RELU", "TANH"]


def test_graph_input_shapes_are_never_changed():
    """An operator output that is (wrongly) also a graph input keeps the caller's shape."""
    x = Tensor("x", "FLOAT32", (2, 3))
    y = Tensor("y", "FLOAT32", (9,))
    model = Model(graphs=[Graph("main", [x, y], [y], [Operator("RELU", [x], [y])])])
    infer_shapes(model)
    assert y.shape == (9,)


def test_dtype_change_is_a_change():
    model, _, _, y = _chain()
    infer_shapes(model)
    y.dtype = "INT8"
    assert infer_shapes(model)
    assert y.dtype == "FLOAT32"


def test_value_inference_does_not_rewrite_the_graph():
    """SHAPE -> MUL(2) -> RESHAPE target [2*n] known after inference; ops unchanged."""
    x = Tensor("x", "FLOAT32", (None,))
    s, m, y = Tensor("s", "INT32", ()), Tensor("m", "INT32", ()), Tensor("y", "FLOAT32", ())
    two = Tensor.constant("two", np.array([1], np.int32))
    ops = [
        Operator("SHAPE", [x], [s], new_options("ShapeOptions", outType=2)),
        Operator("MUL", [s, two], [m], new_options("MulOptions")),
        Operator("RESHAPE", [x, m], [y]),
    ]
    model = Model(graphs=[Graph("main", [x], [y], ops)])
    infer_shapes(model)
    assert y.shape == (None,)
    x.shape = (6,)
    infer_shapes(model)
    assert y.shape == (6,)
    assert [op.opcode for op in model.main.operators] == ["SHAPE", "MUL", "RESHAPE"]
    assert m.data is None
