"""Zero-element constants through a file: a file can hold only an empty buffer for them, so
a zero-element tensor that no operator writes and that is neither a graph input nor a
variable is read back as a constant (as luci's importer reads it). A reshape to a scalar
keeps its constant target shape, so shape inference goes on past it after a file hand-off."""

import flatbuffers
import numpy as np
from circle_schema.v0_10.circle.Model import ModelT

import one_cmds
from one_cmds.formats.reader import load
from one_cmds.ir import Graph, Model, Operator, Tensor
from one_cmds.shape import infer_shapes
from support.model_equality import differences


def _reshape_to_scalar() -> Model:
    x = Tensor("x", "FLOAT32", (1,))
    target = Tensor.constant("target", np.zeros(0, np.int32))
    y = Tensor("y", "FLOAT32", ())
    z = Tensor("z", "FLOAT32", ())
    ops = [Operator("RESHAPE", [x, target], [y]), Operator("EXP", [y], [z])]
    return Model([Graph("main", [x], [z], ops)])


def test_an_empty_constant_stays_a_constant(tmp_path):
    model = _reshape_to_scalar()
    path = tmp_path / "m.circle"
    one_cmds.save(model, str(path))
    again = load(str(path))
    target = again.main.operators[0].inputs[1]
    assert target.is_constant and target.data.shape == (0,)
    assert differences(model, again, origins=False) == []
    second = tmp_path / "again.circle"
    one_cmds.save(again, str(second))
    assert second.read_bytes() == path.read_bytes()


def test_the_reshape_after_it_is_inferred_from_a_file(tmp_path):
    model = _reshape_to_scalar()
    model.main.inputs[0].shape = (None,)
    path = tmp_path / "m.circle"
    one_cmds.save(model, str(path))
    again = load(str(path))
    again.main.inputs[0].shape = (1,)
    infer_shapes(again)
    assert again.main.outputs[0].shape == ()


def test_inputs_outputs_and_variables_with_zero_elements_are_not_constants(tmp_path):
    x = Tensor("x", "FLOAT32", (0, 3))
    state = Tensor("state", "FLOAT32", (0,), is_variable=True)
    y = Tensor("y", "FLOAT32", (0, 3))
    ops = [Operator("RELU", [x], [y]), Operator("ASSIGN_VARIABLE", [state, state], [])]
    path = tmp_path / "m.circle"
    one_cmds.save(Model([Graph("main", [x], [y], ops)]), str(path))
    again = load(str(path))
    x, y = again.main.inputs[0], again.main.outputs[0]
    state = again.main.operators[1].inputs[0]
    assert not (x.is_constant or y.is_constant or state.is_constant)


def test_a_buffer_shared_with_a_non_constant_is_not_made_constant(tmp_path):
    """Buffer 0 and a buffer two tensors point at: the empty constant gets a buffer of its
    own; the other tensor keeps reading nothing."""
    model = _reshape_to_scalar()
    path = tmp_path / "m.circle"
    one_cmds.save(model, str(path))
    tree = ModelT.InitFromPackedBuf(path.read_bytes(), 0)
    tensors = {t.name.decode(): t for t in tree.subgraphs[0].tensors}
    tensors["y"].buffer = tensors["target"].buffer  # an activation sharing the empty buffer
    builder = flatbuffers.Builder(1024)
    builder.Finish(tree.Pack(builder), file_identifier=b"CIR0")
    shared = tmp_path / "shared.circle"
    shared.write_bytes(builder.Output())
    again = load(str(shared))
    reshape = again.main.operators[0]
    assert reshape.inputs[1].is_constant and not reshape.outputs[0].is_constant
