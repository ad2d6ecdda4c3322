"""DepthToSpace, SpaceToDepth, LRN and the normalizations (onnx-import.md §6.1):
BatchNormalization, InstanceNormalization (the V1 form ``fuse_instnorm`` matches),
LayerNormalization, RMSNormalization; onnxruntime vs LiteRT."""

import numpy as np
import onnx
import pytest

import one_cmds
from one_cmds.frontends.onnx import OnnxOptions
from one_cmds.interp import Interpreter
from support.onnx_check import check, onnx_inputs, run_onnxruntime
from support.onnx_graphs import FLOAT, graph_model, node_model, opcodes
from support.onnx_text import import_error

RNG = np.random.default_rng(0)
LOWERED = OnnxOptions(disable_transpose_propagation=True)


def floats(*shape, low=-1.0, high=1.0):
    return RNG.uniform(low, high, shape).astype(np.float32)


# -- DepthToSpace, SpaceToDepth -------------------------------------------------------------------
@pytest.mark.parametrize(
    "op_type, x_shape, attrs, opcode",
    [
        ("DepthToSpace", ["N", 8, 3, 4], dict(blocksize=2), "DEPTH_TO_SPACE"),
        ("DepthToSpace", ["N", 8, 3, 4], dict(blocksize=2, mode="DCR"), "DEPTH_TO_SPACE"),
        ("DepthToSpace", ["N", 8, 3, 4], dict(blocksize=2, mode="CRD"), "DEPTH_TO_SPACE"),
        ("DepthToSpace", [1, 18, 2, 3], dict(blocksize=3, mode="CRD"), "DEPTH_TO_SPACE"),
        ("SpaceToDepth", ["N", 3, 4, 6], dict(blocksize=2), "SPACE_TO_DEPTH"),
        ("SpaceToDepth", [1, 2, 6, 3], dict(blocksize=3), "SPACE_TO_DEPTH"),
    ],
)
def test_depth_space(op_type, x_shape, attrs, opcode, tmp_path):
    model = node_model(op_type, ["x"], {"x": (FLOAT, x_shape)}, opset=13, **attrs)
    check(model, tmp_path)
    ops = opcodes(check(model, tmp_path, options=LOWERED))
    crd = ["GATHER"] if attrs.get("mode") == "CRD" else []
    assert ops == ["TRANSPOSE", *crd, opcode, "TRANSPOSE"]


def test_depth_space_unsupported(tmp_path):
    model = node_model("SpaceToDepth", ["x"], {"x": (FLOAT, [1, 4, 6])}, blocksize=2)
    assert import_error(model, tmp_path).endswith("): rank 3 is not supported")
    model = node_model(
        "DepthToSpace", ["x"], {"x": (FLOAT, [1, "C", 2, 2])}, blocksize=2, mode="CRD"
    )
    assert import_error(model, tmp_path).endswith("): dimension 1 of 'x' must be known")


# -- LRN --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "x_shape, attrs",
    [
        (["N", 6, 4, 5], dict(size=3)),
        ([1, 7, 3, 3], dict(size=5, alpha=0.5, beta=0.6, bias=2.0)),
    ],
)
def test_lrn(x_shape, attrs, tmp_path):
    model = node_model("LRN", ["x"], {"x": (FLOAT, x_shape)}, opset=13, **attrs)
    check(model, tmp_path)
    lrn = next(
        o for o in check(model, tmp_path, options=LOWERED).main.operators if "RESPONSE" in o.opcode
    )
    assert lrn.options.radius == (attrs["size"] - 1) // 2


def test_lrn_unsupported(tmp_path):
    model = node_model("LRN", ["x"], {"x": (FLOAT, [1, 6, 4, 4])}, size=4)
    assert import_error(model, tmp_path).endswith("): size 4 is not supported")
    model = node_model("LRN", ["x"], {"x": (FLOAT, [1, 6, 4])}, size=3)
    assert import_error(model, tmp_path).endswith("): rank 3 is not supported")


# -- BatchNormalization -------------------------------------------------------------------------
def batch_norm(x_shape, opset=15, channels=None, **attrs):
    c = channels or x_shape[1]
    params = {"scale": floats(c), "bias": floats(c), "mean": floats(c),
              "var": floats(c, low=0.1, high=2.0)}  # fmt: skip
    operands = ["x", "scale", "bias", "mean", "var"]
    return node_model("BatchNormalization", operands, {"x": (FLOAT, x_shape)}, params,
                      opset=opset, epsilon=1e-3, **attrs)  # fmt: skip


@pytest.mark.parametrize("opset", [9, 14, 15])
@pytest.mark.parametrize("x_shape", [["N", 4], ["N", 4, 5], ["N", 3, 4, 5], [2, 3, 2, 3, 4]])
def test_batch_normalization_is_mul_add(opset, x_shape, tmp_path):
    ops = opcodes(check(batch_norm(x_shape, opset), tmp_path, options=LOWERED))
    assert ops == ["MUL", "ADD"]
    check(batch_norm(x_shape, opset), tmp_path)


def test_batch_normalization_unsupported(tmp_path):
    model = batch_norm([1, 3, 4, 4], training_mode=1)
    assert import_error(model, tmp_path).endswith("): training_mode 1 is not supported")
    model = node_model(
        "BatchNormalization", ["x", "s", "b", "m", "v"],
        {"x": (FLOAT, [1, 3, 2, 2]), "m": (FLOAT, [3])},
        {"s": floats(3), "b": floats(3), "v": floats(3, low=0.5)},
    )  # fmt: skip
    assert import_error(model, tmp_path).endswith("): input 'm' must be constant")


# -- InstanceNormalization ------------------------------------------------------------------------
def instance_norm(x_shape, c):
    consts = {"scale": floats(c), "bias": floats(c)}
    return node_model("InstanceNormalization", ["x", "scale", "bias"],
                      {"x": (FLOAT, x_shape)}, consts, epsilon=1e-4)  # fmt: skip


@pytest.mark.parametrize("x_shape", [["N", 3, 7], ["N", 3, 4, 5], [2, 2, 3, 4, 5]])
def test_instance_normalization(x_shape, tmp_path):
    check(instance_norm(x_shape, x_shape[1]), tmp_path)


@pytest.mark.parametrize("x_shape", [[2, 3, 7], [2, 3, 4, 5]])
@pytest.mark.parametrize("options", [LOWERED, None], ids=["lowered", "layout_pass"])
def test_instance_normalization_is_the_v1_form_fuse_instnorm_matches(x_shape, options, tmp_path):
    model = instance_norm(x_shape, 3)
    fused = one_cmds.optimize(check(model, tmp_path, options=options), ["fuse_instnorm"])
    assert opcodes(fused).count("INSTANCE_NORM") == 1 and "MEAN" not in opcodes(fused)
    path = str(tmp_path / "m.onnx")
    onnx.save(model, path)
    feeds = onnx_inputs(model)
    got = Interpreter(fused).run(feeds)[0]  # INSTANCE_NORM is circle-only: not in LiteRT
    np.testing.assert_allclose(got, run_onnxruntime(path, feeds)[0], rtol=1e-4, atol=1e-4)


# -- LayerNormalization, RMSNormalization -----------------------------------------------------------
@pytest.mark.parametrize(
    "x_shape, axis, bias",
    [(["N", 5, 8], -1, True), (["N", 3, 4, 6], 2, False), ([2, 3, 4], 1, True), ([6, 8], 0, True)],
)
def test_layer_normalization(x_shape, axis, bias, tmp_path):
    normalized = x_shape[axis:]
    consts = {"scale": floats(*normalized)}
    operands = ["x", "scale"]
    if bias:
        consts["bias"] = floats(*normalized)
        operands.append("bias")
    model = node_model("LayerNormalization", operands, {"x": (FLOAT, x_shape)}, consts,
                       axis=axis, epsilon=1e-4)  # fmt: skip
    ops = opcodes(check(model, tmp_path, options=LOWERED))
    assert ops[:5] == ["MEAN", "SQUARED_DIFFERENCE", "MEAN", "ADD", "RSQRT"]
    check(model, tmp_path)


def test_layer_normalization_extra_outputs(tmp_path):
    node = onnx.helper.make_node(
        "LayerNormalization", ["x", "scale", "bias"], ["y", "mean", "inv_std"], axis=-2
    )
    model = graph_model(
        [node], {"x": (FLOAT, ["N", 3, 4, 6])}, {"y": FLOAT, "mean": FLOAT, "inv_std": FLOAT},
        {"scale": floats(4, 6), "bias": floats(4, 6)},
    )  # fmt: skip
    imported = check(model, tmp_path)
    assert [t.shape for t in imported.main.outputs] == [(None, 3, 4, 6), *[(None, 3, 1, 1)] * 2]


@pytest.mark.parametrize("x_shape, axis", [(["N", 5, 8], -1), ([2, 3, 4, 5], 1)])
def test_rms_normalization(x_shape, axis, tmp_path):
    scale = floats(*x_shape[axis:])
    model = node_model("RMSNormalization", ["x", "scale"], {"x": (FLOAT, x_shape)},
                       {"scale": scale}, opset=23, axis=axis, epsilon=1e-4)  # fmt: skip
    ops = opcodes(check(model, tmp_path, options=LOWERED))
    assert ops == ["MUL", "MEAN", "ADD", "RSQRT", "MUL", "MUL"]
    check(model, tmp_path)
