"""The resize stage and the Python call one_cmds.resize (resize.md §3-§5, §8, §11)."""

from types import SimpleNamespace

import numpy as np
import pytest
from circle_schema.v0_10.circle.Model import ModelT

import one_cmds
from one_cmds.errors import OneCmdsError, StageError
from one_cmds.formats import metadata as md
from one_cmds.interp import Interpreter
from one_cmds.passes.dynamic_batch_to_single_batch import dynamic_batch_to_single_batch
from one_cmds.stages.resize import ResizeError
from support.litert import run_model, run_tflite

U = None


def shapes_of(tensors):
    return [t.shape for t in tensors]


@pytest.mark.parametrize(
    ("shapes", "output"),
    [
        ("[4,6]", (4, 1, 6)),
        ([(1, 2, 3, 4)], (1, 1, 2, 3, 4)),
        ([(4, -1)], (4, 1, U)),
        ([(4, None)], (4, 1, U)),
    ],
)
def test_expand_dims_cases(fixture_path, shapes, output):
    model = one_cmds.resize(one_cmds.load(fixture_path("expand_dims.tflite")), shapes)
    assert model.main.outputs[0].shape == output


def test_resized_model_saved_and_reloaded(tmp_path, fixture_path):
    model = one_cmds.resize(one_cmds.load(fixture_path("expand_dims.tflite")), "[4,6]")
    path = str(tmp_path / "r.circle")
    one_cmds.save(model, path)
    again = one_cmds.load(path)
    assert shapes_of(again.main.inputs) == [(4, 6)]
    assert shapes_of(again.main.outputs) == [(4, 1, 6)]


def test_last_resize_wins(fixture_path):
    model = one_cmds.resize(one_cmds.load(fixture_path("expand_dims.tflite")), "[6,8]")
    model = one_cmds.resize(model, "[4,6]")
    assert model.main.outputs[0].shape == (4, 1, 6)


@pytest.mark.parametrize(
    ("shapes", "output"), [("[1,5,5,3],[1,5,5,3]", (1, 5, 5, 3)), ("[],[]", ())]
)
def test_add_cases(fixture_path, shapes, output):
    model = one_cmds.resize(one_cmds.load(fixture_path("add2.tflite")), shapes)
    assert model.main.outputs[0].shape == output


@pytest.mark.parametrize(("shapes", "count"), [([], 0), ([(1, 2)], 1), ([(1,), (2,), (3,)], 3)])
def test_wrong_number_of_shapes(fixture_path, shapes, count):
    with pytest.raises(ResizeError) as e:
        one_cmds.resize(one_cmds.load(fixture_path("add2.tflite")), shapes)
    assert str(e.value) == f"Expected 2 shapes but provided {count}"


def test_inference_failure_names_the_operator(fixture_path):
    with pytest.raises(ResizeError) as e:
        one_cmds.resize(one_cmds.load(fixture_path("add2.tflite")), "[1,2,3],[4,5,6]")
    assert str(e.value) == (
        "Exception during resizing with message: "
        "ADD (graph 0, operator 0): Cannot produce expand_dimension of two shapes "
        "(result 'Identity')"
    )


def test_wrong_rank_for_an_operator(fixture_path):
    with pytest.raises(ResizeError) as e:
        one_cmds.resize(one_cmds.load(fixture_path("mobilenet_tiny.tflite")), "[1,32,32]")
    assert str(e.value) == (
        "Exception during resizing with message: CONV_2D (graph 0, operator 0): input rank 3, "
        "expected 4 (result 'Relu6;BiasAdd;Conv2D;BiasAdd/bias1')"
    )


@pytest.mark.parametrize("shape", [(1, -2, 3), (1, 2.5, 3), (1, "2", 3)])
def test_bad_dimension_values(fixture_path, shape):
    with pytest.raises(OneCmdsError, match="Error during shape processing"):
        one_cmds.resize(one_cmds.load(fixture_path("expand_dims.tflite")), [shape])


def test_python_call_returns_a_copy(fixture_path):
    model = one_cmds.load(fixture_path("mobilenet_tiny.tflite"))
    resized = one_cmds.resize(model, "[2,32,32,3]")
    assert model.main.inputs[0].shape == (1, 32, 32, 3)
    assert model.main.outputs[0].shape == (1, 10)
    assert resized.main.outputs[0].shape == (2, 10)
    weights = [t for t in resized.main.referenced_tensors() if t.is_constant]
    originals = {id(t.buffer) for t in model.main.referenced_tensors() if t.is_constant}
    assert weights and all(id(t.buffer) in originals for t in weights)


@pytest.mark.parametrize(
    "name", ["mobilenet_tiny.tflite", "conv_spatial.tflite", "dynamic_batch.tflite"]
)
def test_batch_of_four_runs_row_by_row(fixture_path, name):
    """Each batch row equals the batch-1 result for that row, in LiteRT and the interpreter."""
    path = fixture_path(name)
    model = one_cmds.load(path)
    row_shape = tuple(1 if d is None else d for d in model.main.inputs[0].shape)
    resized = one_cmds.resize(model, [(4, *row_shape[1:])])
    assert all(t.is_static for t in resized.main.referenced_tensors())
    x = np.random.default_rng(5).standard_normal((4, *row_shape[1:])).astype(np.float32)
    (litert,) = run_model(resized, [x])
    (ours,) = Interpreter(resized).run([x])
    rows = np.concatenate([run_tflite(path, [x[i : i + 1]])[0] for i in range(4)])
    scale = max(1.0, float(np.abs(rows).max()))
    np.testing.assert_allclose(litert, rows, rtol=1e-5, atol=1e-5 * scale)
    np.testing.assert_allclose(ours, rows, rtol=1e-5, atol=1e-5 * scale)


def test_spatial_resize_runs(fixture_path):
    model = one_cmds.resize(one_cmds.load(fixture_path("conv_spatial.tflite")), "[2,40,24,3]")
    assert model.main.outputs[0].shape == (2, 20, 12, 6)
    x = np.random.default_rng(2).standard_normal((2, 40, 24, 3)).astype(np.float32)
    (litert,) = run_model(model, [x])
    (ours,) = Interpreter(model).run([x])
    assert litert.shape == (2, 20, 12, 6)
    np.testing.assert_allclose(ours, litert, rtol=1e-5, atol=1e-5)


def test_dynamic_batch_becomes_fully_static(tmp_path, fixture_path):
    model = one_cmds.resize(one_cmds.load(fixture_path("dynamic_batch.tflite")), "[3,8,8,4]")
    ops = [op.opcode for op in model.main.operators]
    assert ops[1:5] == ["SHAPE", "STRIDED_SLICE", "PACK", "RESHAPE"]  # the chain stays
    assert all(t.is_static for t in model.main.referenced_tensors())
    path = str(tmp_path / "static.circle")
    one_cmds.save(model, path)
    tree = ModelT.InitFromPackedBuf((tmp_path / "static.circle").read_bytes(), 0)
    assert all(t.shapeSignature is None for t in tree.subgraphs[0].tensors)


def test_origins_and_profile_tables_survive(tmp_path, fixture_path):
    model = one_cmds.load(fixture_path("mobilenet_tiny.tflite"))
    resized = one_cmds.resize(model, "[2,32,32,3]")
    assert [op.origin for op in resized.main.operators] == [
        op.origin for op in model.main.operators
    ]
    assert resized.source_table == model.source_table
    assert resized.source_md5 == model.source_md5
    path = str(tmp_path / "p.circle")
    one_cmds.save(resized, path, profile=True)
    again = one_cmds.load(path)
    assert again.source_md5 == model.source_md5
    assert again.source_table == model.source_table
    assert md.SOURCE_TABLE not in [e.name for e in again.metadata]


def options(**kw):
    return SimpleNamespace(**{"disable_validation": False, "mute_warnings": False, **kw})


def test_dynamic_batch_to_single_batch(fixture_path):
    model = one_cmds.load(fixture_path("dynamic_batch.tflite"))
    assert dynamic_batch_to_single_batch(model, options())
    assert model.main.inputs[0].shape == (1, 8, 8, 4)
    assert all(t.is_static for t in model.main.referenced_tensors())


def test_dynamic_batch_needs_rank_four(fixture_path):
    model = one_cmds.load(fixture_path("misc_ops_c.tflite"))
    with pytest.raises(StageError) as e:
        dynamic_batch_to_single_batch(model, options())
    assert str(e.value) == "First dimension of input is unknown, but its rank is not 4."


def test_dynamic_batch_validation(fixture_path, capsys):
    model = one_cmds.load(fixture_path("dynamic_batch.tflite"))
    model.main.inputs[0].shape = (None, None, 8, 4)
    with pytest.raises(StageError, match="Invalid shape detected after converting dynamic batch"):
        dynamic_batch_to_single_batch(model, options())
    model = one_cmds.load(fixture_path("dynamic_batch.tflite"))
    model.main.inputs[0].shape = (None, None, 8, 4)
    dynamic_batch_to_single_batch(model, options(disable_validation=True))
    assert (
        "WARNING: Invalid shape detected after converting dynamic batch to single batch"
        in capsys.readouterr().err
    )
