"""``one-import-bcq`` (tf-and-pytorch-import.md §4): the outputs' layout, judged in LiteRT
(§6.3: output 0 the §4.1 metadata, output 1 equal to the plain conversion, the bundles the
GraphDef's constants), ``fuse_bcq`` on the result, graphs without valid BCQ information and
graphs that already hold the metadata."""

from __future__ import annotations

import numpy as np
import pytest

import one_cmds
from one_cmds.cli import drivers
from support.litert import run_tflite
from support.tf_reference import Case, tensorflow_conversion, tf

METADATA = "one_compiler/bcqinfo_one_metadata"
BUNDLE = [
    "w/bcqinfo_do_w_x",
    "w/bcqinfo_alpha",
    "w/bcqinfo_packed_binary_code",
    "w/bcqinfo_number_of_clusters",
    "w/bcqinfo_size_of_clusters",
    "w/bcqinfo_qbits_of_clusters",
    "w",
]
START, END = -1999999973, 1999999973
ARRAYS = ["-I", "Placeholder", "-O", "MatMul"]


def _graph_def(path):
    graph_def = tf.compat.v1.GraphDef()
    graph_def.ParseFromString(path.read_bytes())
    return graph_def


def _constants(graph_def) -> dict[str, np.ndarray]:
    return {
        n.name: tf.make_ndarray(n.attr["value"].tensor) for n in graph_def.node if n.op == "Const"
    }


def _import(path, tmp_path) -> one_cmds.Model:
    out = tmp_path / "bcq.circle"
    assert drivers.one_import_bcq(["-i", str(path), "-o", str(out), *ARRAYS]) == 0
    return one_cmds.load(str(out))


def _add_const(graph_def, name: str, value: np.ndarray) -> None:
    node = graph_def.node.add()
    node.op, node.name = "Const", name
    node.attr["dtype"].type = tf.as_dtype(value.dtype).as_datatype_enum
    node.attr["value"].tensor.CopyFrom(tf.make_tensor_proto(value))


@pytest.mark.parametrize(
    ("file", "extra"), [("bcq.pb", []), ("bcq_dequant.pb", ["w/bcqinfo_dequant_weight"])]
)
def test_layout_judged_in_litert(tf_files, tmp_path, file, extra):
    """With ``dequant_weight`` (equal to the weight here), TensorFlow merges the two constants:
    the weight is listed twice."""
    model = _import(tf_files / file, tmp_path)
    names = [t.name for t in model.main.outputs]
    assert names == [METADATA, "MatMul", *BUNDLE, *(["w"] if extra else [])]
    assert not extra or model.main.outputs[-1] is model.main.outputs[-2]
    ours = tmp_path / "bcq.tflite"
    one_cmds.save(model, str(ours))
    plain = tmp_path / "plain.tflite"
    plain.write_bytes(tensorflow_conversion(tf_files, Case(file, ["Placeholder"], ["MatMul"])))
    x = [np.random.default_rng(0).standard_normal((1, 32)).astype(np.float32)]
    got = run_tflite(str(ours), x)
    (want,) = run_tflite(str(plain), x)
    count = len(BUNDLE) + len(extra) - 1
    np.testing.assert_array_equal(got[0], [START, 1, 1, count + 1, END])
    assert got[1].tobytes() == want.tobytes()
    constants = _constants(_graph_def(tf_files / file))
    for name, value in zip([*BUNDLE, *extra], got[2:], strict=True):
        np.testing.assert_array_equal(value, constants[name], err_msg=name)


def test_fuse_bcq_uses_the_bundle(tf_files, tmp_path):
    """The imported layout is what ``fuse_bcq`` reads: the MatMul becomes BCQ_FULLY_CONNECTED
    on the encoded weight, the model's outputs become the user's."""
    model = _import(tf_files / "bcq.pb", tmp_path)
    fused = one_cmds.optimize(model, ["fuse_bcq"])
    assert "BCQ_FULLY_CONNECTED" in [op.kind for op in fused.main.operators]
    assert [t.name for t in fused.main.outputs] == ["MatMul"]
    x = np.random.default_rng(0).standard_normal((1, 32)).astype(np.float32)
    (want,) = one_cmds.Interpreter(model).run([x])[1:2]
    (got,) = one_cmds.Interpreter(fused).run([x])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def _edited(tf_files, tmp_path, edit) -> str:
    graph_def = _graph_def(tf_files / "bcq.pb")
    edit(graph_def)
    path = tmp_path / "edited.pb"
    path.write_bytes(graph_def.SerializeToString())
    return str(path)


def _remove(graph_def, name: str) -> None:
    (node,) = [n for n in graph_def.node if n.name == name]
    graph_def.node.remove(node)


@pytest.mark.parametrize(
    ("edit", "reason"),
    [
        (lambda g: _add_const(g, "w/bcqinfo_bogus", np.zeros(1, np.float32)),
         "unknown BCQ constant 'w/bcqinfo_bogus'"),
        (lambda g: _add_const(g, "v/bcqinfo_alpha", np.zeros(1, np.float32)),
         "prefixes have different numbers of BCQ constants"),
        (lambda g: _remove(g, "w/bcqinfo_alpha"), "5 BCQ constants per prefix, expected 6 or 7"),
        (lambda g: [_remove(g, n) for n in BUNDLE[:6]], "no bcqinfo constants"),
    ],
    ids=["unknown", "counts-differ", "five", "none"],
)  # fmt: skip
def test_without_valid_information(tf_files, tmp_path, capsys, edit, reason):
    path = _edited(tf_files, tmp_path, edit)
    model = _import(path, tmp_path)
    assert [t.name for t in model.main.outputs] == ["MatMul"]
    assert capsys.readouterr().err.strip() == (
        f"WARNING: no valid BCQ information in {path} ({reason}); imported without BCQ metadata"
    )


def test_existing_metadata_is_used_as_is(tf_files, tmp_path):
    metadata = np.array([START, 1, 1, 7, END], np.int32)
    path = _edited(tf_files, tmp_path, lambda g: _add_const(g, METADATA, metadata))
    model = _import(path, tmp_path)
    assert [t.name for t in model.main.outputs] == [METADATA, "MatMul", *BUNDLE]


def test_newer_metadata_version(tf_files, tmp_path, capsys):
    metadata = np.array([START, 2, 1, 7, END], np.int32)
    path = _edited(tf_files, tmp_path, lambda g: _add_const(g, METADATA, metadata))
    args = ["-i", path, "-o", str(tmp_path / "b.circle"), *ARRAYS]
    assert drivers.one_import_bcq(args) == 255
    assert capsys.readouterr().err.strip() == (
        "one-import-bcq: BCQ version of the model(v2) is higher than the version supported by "
        "this program(v1)"
    )
