"""Schema features that must survive a read and a write (custom operators, sparsity,
variables, signatures, operator codes, metadata) and weights that are never copied."""

from pathlib import Path

import numpy as np
from circle_schema.v0_10.circle.DimensionMetadata import DimensionMetadataT
from circle_schema.v0_10.circle.Int32Vector import Int32VectorT
from circle_schema.v0_10.circle.Model import ModelT
from circle_schema.v0_10.circle.SparsityParameters import SparsityParametersT

import one_cmds
from one_cmds.formats.reader import load
from one_cmds.ir import Buffer, Graph, MetadataEntry, Model, Operator, Tensor
from support.single_op import op_model


def twice(model, tmp_path, name="m.circle"):
    """Save, load and save again: the model read back and both files' bytes."""
    first, second = tmp_path / f"1{name}", tmp_path / f"2{name}"
    one_cmds.save(model, str(first))
    again = load(str(first))
    one_cmds.save(again, str(second))
    return again, first.read_bytes(), second.read_bytes()


def test_custom_operator_code_and_options(tmp_path):
    x = np.zeros((2, 3), np.float32)
    model = op_model(
        "CUSTOM", [x], custom_code="MyCustomOp", custom_options=b"\x01\x02\x03", version=2
    )
    again, a, b = twice(model, tmp_path)
    op = again.main.operators[0]
    assert (op.opcode, op.custom_code, op.custom_options, op.version) == (
        "CUSTOM",
        "MyCustomOp",
        b"\x01\x02\x03",
        2,
    )
    assert a == b


def _csr(values, segments, indices):
    def vector(v):
        out = Int32VectorT()
        out.values = v
        return out

    dense = DimensionMetadataT()
    dense.format, dense.denseSize = 0, 2
    sparse = DimensionMetadataT()
    sparse.format = 1
    sparse.arraySegmentsType, sparse.arraySegments = 1, vector(segments)
    sparse.arrayIndicesType, sparse.arrayIndices = 1, vector(indices)
    params = SparsityParametersT()
    params.traversalOrder, params.dimMetadata = [0, 1], [dense, sparse]
    tensor = Tensor("w", "FLOAT32", (2, 3), buffer=Buffer.from_array(np.array(values, np.float32)))
    tensor.sparsity = params
    return tensor


def test_sparse_constant_and_variable_tensor(tmp_path):
    weights = _csr([1.5, -2.0], [0, 1, 2], [2, 0])
    state = Tensor("state", "FLOAT32", (2, 3), is_variable=True)
    out = Tensor("out", "FLOAT32", (2, 3))
    densify = Tensor("dense", "FLOAT32", (2, 3))
    ops = [Operator("DENSIFY", [weights], [densify]), Operator("ADD", [densify, state], [out])]
    model = Model([Graph("main", [], [out], ops, [weights, densify, state, out])])
    again, a, b = twice(model, tmp_path)
    w = again.main.operators[0].inputs[0]
    assert list(w.sparsity.dimMetadata[1].arrayIndices.values) == [2, 0]
    assert w.data.tolist() == [1.5, -2.0]
    assert again.main.operators[1].inputs[1].is_variable
    assert a == b


def test_signature_defs(tmp_path, fixture_path):
    model = load(fixture_path("misc_ops_c.tflite"))
    assert model.signature_defs and model.signature_defs[0].key == "serving_default"
    again, a, b = twice(model, tmp_path)
    sig, original = again.signature_defs[0], model.signature_defs[0]
    assert [(n, t.name) for n, t in sig.inputs] == [(n, t.name) for n, t in original.inputs]
    assert [(n, t.name) for n, t in sig.outputs] == [(n, t.name) for n, t in original.outputs]
    assert a == b


def test_operator_codes_at_and_above_127(tmp_path, fixture_path):
    path = tmp_path / "m.circle"
    one_cmds.save(load(fixture_path("transformer_block.tflite")), str(path))
    codes = ModelT.InitFromPackedBuf(path.read_bytes(), 0).operatorCodes
    gelu = [c for c in codes if c.builtinCode == 150]
    assert gelu and gelu[0].deprecatedBuiltinCode == 127
    assert all(c.deprecatedBuiltinCode == c.builtinCode for c in codes if c.builtinCode < 127)


def test_old_files_with_only_the_deprecated_code(tmp_path, fixture_path):
    import flatbuffers

    tree = ModelT.InitFromPackedBuf(Path(fixture_path("mobilenet_tiny.tflite")).read_bytes(), 0)
    for code in tree.operatorCodes:
        code.builtinCode = 0  # as written before the int32 field existed
    builder = flatbuffers.Builder(1024)
    builder.Finish(tree.Pack(builder), file_identifier=b"TFL3")
    path = tmp_path / "old.tflite"
    path.write_bytes(bytes(builder.Output()))
    ops = [op.opcode for op in load(str(path)).main.operators]
    assert ops == [op.opcode for op in load(fixture_path("mobilenet_tiny.tflite")).main.operators]


def test_unknown_metadata_kept_in_order(tmp_path, fixture_path):
    model = load(fixture_path("add2.tflite"))
    model.metadata += [
        MetadataEntry("zeta", Buffer.from_bytes(b"\x00z")),
        MetadataEntry("alpha", Buffer.from_bytes(b"a")),
    ]
    again, a, b = twice(model, tmp_path)
    assert [(e.name, e.buffer.tobytes()) for e in again.metadata] == [
        (e.name, e.buffer.tobytes()) for e in model.metadata
    ]
    assert a == b


def test_import_never_copies_weights(fixture_path):
    model = load(fixture_path("mobilenet_tiny.tflite"))
    constants = [t for t in model.main.referenced_tensors() if t.is_constant]
    assert constants
    for t in constants:
        raw = t.buffer.raw
        assert not raw.flags.owndata and not raw.flags.writeable
        assert not t.data.flags.owndata
