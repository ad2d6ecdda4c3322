"""O1 on whole models: every bundled fixture keeps its outputs and never grows; the fixtures
made for the optimizer get the expected rewrite (optimization.md §2, §7)."""

import numpy as np
import pytest

import one_cmds
from one_cmds.interp import Interpreter
from support.fixtures import ALL_MODELS, MANIFEST
from support.litert import random_inputs
from support.passes import assert_same_outputs, kinds, run_reference

CUSTOM = {m["file"] for m in MANIFEST if m.get("custom_ops")}

EXPECTED = {
    "instnorm_decomposed.tflite": ["INSTANCE_NORM"],
    "prelu_decomposed.tflite": ["PRELU"],
    "gelu_erf_custom.tflite": ["GELU"],
    "mean_of_mean.tflite": ["MEAN"],
    "splitv_equal.tflite": ["SPLIT_V", "ADD", "MUL", "SPLIT", "MUL", "CONCATENATION"],
    "fp16_weights.tflite": ["CONV_2D"],
    "conv_channel_affine.tflite": ["CONV_2D", "MUL", "ADD"],
    "layout_chains.tflite": ["RELU", "RESHAPE"],
    "clamp_dense.tflite": ["RELU6", "FULLY_CONNECTED"],
}


def compare_with_interpreted(before, after, inputs):
    """For a model LiteRT cannot run: the original in the interpreter, the optimized one in
    LiteRT (or the interpreter when it is circle-only)."""
    want = Interpreter(before).run(inputs)
    got = run_reference(after, inputs)
    for w, g in zip(want, got, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", ALL_MODELS)
def test_o1_keeps_outputs_and_never_grows(fixture_path, name):
    model = one_cmds.load(fixture_path(name))
    after = one_cmds.optimize(model, "O1")
    assert after.operator_count() <= model.operator_count()
    if name in EXPECTED:
        assert kinds(after) == EXPECTED[name]
    if name in CUSTOM:
        inputs = random_inputs(model, seed=5)
        compare_with_interpreted(model, after, inputs)
    else:
        assert_same_outputs(model, after)


def test_channel_affine_becomes_depthwise_with_its_pass(fixture_path):
    model = one_cmds.load(fixture_path("conv_channel_affine.tflite"))
    after = one_cmds.optimize(model, ["O1", "replace_cw_mul_add_with_depthwise_conv"])
    assert kinds(after) == ["CONV_2D", "DEPTHWISE_CONV_2D"]
    assert_same_outputs(model, after)


def test_profile_tables_map_fused_operators_to_every_original(tmp_path, fixture_path):
    source = fixture_path("instnorm_decomposed.tflite")
    model = one_cmds.load(source)
    out = str(tmp_path / "opt.circle")
    one_cmds.save(one_cmds.optimize(model, "O1"), out, profile=True)
    back = one_cmds.load(out)
    (norm,) = back.main.operators
    assert norm.opcode == "INSTANCE_NORM"
    assert {back.source_table[i] for i in norm.origin} == {
        t.name for op in model.main.operators for t in op.outputs[:1]
    }
    assert back.source_md5 == model.source_md5
