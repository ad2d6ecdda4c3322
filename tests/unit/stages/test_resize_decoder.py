"""Decoder-only transformers with unknown batch and sequence length, specialized by resize.

The fixtures take token ids [-1, -1] and give logits [-1, -1, vocab]. Each specialization must
make every tensor static, and the resized model, written as .tflite and run in LiteRT, and run
in the interpreter, must equal LiteRT's run of the dynamic file resized with
resize_tensor_input to the same shape.
"""

import numpy as np
import pytest
from circle_schema.v0_10.circle.Model import ModelT

import one_cmds
from one_cmds.interp import Interpreter
from one_cmds.stages.resize import ResizeError
from support.fixtures import MANIFEST
from support.litert import run_tflite

DECODERS = ["llama_decoder.tflite", "gpt_decoder.tflite"]
SHAPES = [(1, 16), (2, 64), (1, 1), (4, 128)]
N = None


def entry(name):
    return next(m for m in MANIFEST if m["file"] == name)


def vocab(name):
    """The last dim of the logits, as the generator recorded it."""
    return entry(name)["outputs"][0]["shape_signature"][-1]


def token_ids(name, shape, seed):
    """Token ids over the whole vocabulary, in the input's dtype."""
    dtype = np.dtype(entry(name)["inputs"][0]["dtype"])
    return np.random.default_rng(seed).integers(0, vocab(name), size=shape).astype(dtype)


@pytest.mark.parametrize("shape", SHAPES, ids=[f"{b}x{s}" for b, s in SHAPES])
@pytest.mark.parametrize("name", DECODERS)
def test_specialized_decoder_is_static_and_matches_litert(tmp_path, fixture_path, name, shape):
    path = fixture_path(name)
    model = one_cmds.load(path)
    assert model.main.inputs[0].shape == (N, N)
    resized = one_cmds.resize(model, [shape])
    assert resized.main.outputs[0].shape == (*shape, vocab(name))
    unknown = [t.name for g in resized.graphs for t in g.referenced_tensors() if not t.is_static]
    assert unknown == []
    static = tmp_path / "static.tflite"
    one_cmds.save(resized, str(static))
    tree = ModelT.InitFromPackedBuf(static.read_bytes(), 0)
    assert all(t.shapeSignature is None for g in tree.subgraphs for t in g.tensors)

    ids = token_ids(name, shape, seed=sum(shape))
    (expected,) = run_tflite(path, [ids])  # the dynamic file, resize_tensor_input
    (litert,) = run_tflite(str(static), [ids])
    (ours,) = Interpreter(resized).run([ids])
    assert expected.shape == (*shape, vocab(name))
    np.testing.assert_allclose(litert, expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(ours, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", DECODERS)
def test_one_unknown_dimension_keeps_the_other_known(fixture_path, name):
    """A known sequence length reaches the heads and the scores while the batch is unknown."""
    resized = one_cmds.resize(one_cmds.load(fixture_path(name)), "[-1,16]")
    shapes = {t.shape for t in resized.main.referenced_tensors()}
    assert resized.main.outputs[0].shape == (N, 16, vocab(name))
    assert {(N, 16, 4, 8), (N, 4, 16, 8), (N, 4, 16, 16)} <= shapes
    unknown = [t.name for t in resized.main.referenced_tensors() if None in t.shape[1:]]
    assert unknown == []


@pytest.mark.parametrize(
    ("name", "shape", "operator", "tensor", "index", "size"),
    [
        ("llama_decoder.tflite", "[16]", "STRIDED_SLICE (graph 0, operator 11)",
         "strided_slice_1", 1, 1),
        ("gpt_decoder.tflite", "[]", "STRIDED_SLICE (graph 0, operator 2)",
         "strided_slice", 0, 0),
    ],
)  # fmt: skip
def test_impossible_specialization_names_operator_and_tensor(
    fixture_path, name, shape, operator, tensor, index, size
):
    """Token ids of rank 1 have no sequence length to take from their shape (rank 0 no batch
    either)."""
    model = one_cmds.load(fixture_path(name))
    with pytest.raises(ResizeError) as e:
        one_cmds.resize(model, shape)
    assert str(e.value) == (
        f"Exception during resizing with message: {operator}: cannot compute the value of "
        f"{tensor!r}: index {index} is out of range for a dimension of size {size}"
    )
    assert model.main.inputs[0].shape == (N, N)


def test_a_shape_rule_failure_names_the_result_it_could_not_infer(fixture_path):
    """Ids of rank 3 reach a RESHAPE whose target no longer fits its input."""
    model = one_cmds.load(fixture_path("llama_decoder.tflite"))
    with pytest.raises(ResizeError) as e:
        one_cmds.resize(model, "[1,16,1]")
    assert str(e.value) == (
        "Exception during resizing with message: RESHAPE (graph 0, operator 75): cannot "
        "reshape [1, 16, 16, 32] to [1, 16, 4, 8] (result 'Reshape_5')"
    )
